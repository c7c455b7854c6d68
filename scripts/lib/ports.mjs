import { mkdirSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

// A port handed out here stays unbound until its user binds it, and a Cube takes seconds to. Meanwhile no other
// process may get it: it lies below the ports the system hands to `listen(0)` (Linux from 32768, macOS and Windows from
// 49152), and it is reserved for a minute in a directory every process of this user shares (docs/development.md#tests).
const FIRST_PORT = 20_000;
const PORTS = 12_768;
const RESERVED_FOR_MS = 60_000;
const MAX_ATTEMPTS = 100;
const reservations = join(tmpdir(), `cube-dual-auth-ports-${process.getuid?.() ?? 'user'}`);

/** A TCP port of 127.0.0.1 that is free, and that no other caller of this function got in the last minute. */
export async function freePort() {
  mkdirSync(reservations, { recursive: true });
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const port = FIRST_PORT + Math.floor(Math.random() * PORTS);
    if (reserve(port) && (await bindable(port))) return port;
  }
  throw new Error(`no free port from ${FIRST_PORT} to ${FIRST_PORT + PORTS - 1} in ${MAX_ATTEMPTS} attempts`);
}

/** Whether a listener can bind the port now; it is released again at once. */
function bindable(port) {
  return new Promise((resolve) => {
    const server = createServer();
    server.unref();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/** Reserves the port, unless another caller did in the last minute: the file is created exclusively, or renewed. */
function reserve(port) {
  const file = join(reservations, String(port));
  try {
    writeFileSync(file, '', { flag: 'wx' });
    return true;
  } catch (error) {
    if (error.code !== 'EEXIST') throw error;
  }
  const now = new Date();
  if (now.getTime() - statSync(file).mtimeMs < RESERVED_FOR_MS) return false;
  utimesSync(file, now, now);
  return true;
}
