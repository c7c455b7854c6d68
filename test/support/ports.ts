import { once } from 'node:events';
import { createServer, type AddressInfo } from 'node:net';

/** A TCP port of 127.0.0.1 that is free right now (the system picks it). */
export async function freePort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}
