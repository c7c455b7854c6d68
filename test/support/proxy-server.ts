import { createServer, request as httpRequest, type IncomingMessage } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';

/** A forward proxy on 127.0.0.1, as an operator's egress proxy: what passes through it is counted. */
export interface ProxyServer {
  /** `http://127.0.0.1:<port>`, for HTTPS_PROXY / HTTP_PROXY. */
  readonly url: string;
  /** Plain-http requests forwarded, by absolute URL. */
  readonly forwarded: string[];
  /** CONNECT tunnels opened, by `host:port`. */
  readonly tunnels: string[];
  close(): Promise<void>;
}

/** Starts a proxy that forwards absolute-URL GETs and opens CONNECT tunnels, to 127.0.0.1 only. */
export async function startProxyServer(): Promise<ProxyServer> {
  const forwarded: string[] = [];
  const tunnels: string[] = [];
  const sockets = new Set<Socket>();
  const server = createServer((request, response) => {
    const target = new URL(request.url ?? '');
    forwarded.push(target.href);
    if (target.hostname !== '127.0.0.1') return void response.writeHead(403).end();
    const upstream = httpRequest(target, { method: request.method, headers: request.headers }, (answer: IncomingMessage) => {
      response.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(response);
    });
    upstream.on('error', () => response.writeHead(502).end());
    request.pipe(upstream);
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  server.on('connect', (request: IncomingMessage, client: Socket, head: Buffer) => {
    const target = request.url ?? '';
    tunnels.push(target);
    const [host, port] = target.split(':');
    if (host !== '127.0.0.1' && host !== 'localhost') return void client.end('HTTP/1.1 403 Forbidden\r\n\r\n');
    const upstream = connect(Number(port), '127.0.0.1', () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      upstream.write(head);
      upstream.pipe(client).pipe(upstream);
    });
    sockets.add(upstream);
    upstream.on('error', () => client.destroy());
    client.on('error', () => upstream.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    forwarded,
    tunnels,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
