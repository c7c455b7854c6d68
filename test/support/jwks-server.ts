import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** What the server answers to the next requests. */
export type JwksServerMode =
  /** The current `jwks`, as application/json. */
  | { kind: 'ok' }
  /** The same, after a delay. */
  | { kind: 'slow'; delayMs: number }
  /** Headers at once, then one byte of the key set per interval: never idle, never done in time. */
  | { kind: 'drip'; intervalMs: number }
  /** Accept the request and never answer. */
  | { kind: 'hang' }
  /** Destroy the connection as soon as the request arrives. */
  | { kind: 'reset' }
  /** This status, with an optional text body. */
  | { kind: 'status'; status: number; body?: string; headers?: Record<string, string> }
  /** A 200 with this body (HTML, non-JSON, JSON without keys...); Content-Length is set. */
  | { kind: 'body'; body: string; contentType?: string }
  /** A 200 JSON answer of `bytes` bytes, streamed without Content-Length. */
  | { kind: 'oversized'; bytes: number };

export interface JwksServer {
  /** The JWKS URL on its loopback address. */
  readonly url: string;
  /** Requests received, whatever the mode. */
  readonly requests: number;
  /** Resolves once `count` requests have been received in all (at once if they have). */
  received(count: number): Promise<void>;
  mode: JwksServerMode;
  /** The key set served by `ok`, `slow` and `drip`: assign a new one to rotate keys. */
  jwks: { keys: unknown[] };
  /** Stops listening and drops every connection: fetches fail with ECONNREFUSED until `start()`. */
  stop(): Promise<void>;
  /** Listens again, on the same port. */
  start(): Promise<void>;
  /** Same as `stop()`; never hangs, even with hung requests open. */
  close(): Promise<void>;
}

/** Starts a scriptable JWKS server on a free port of `host` (IPv4 loopback unless told) serving `jwks`. */
export async function startJwksServer(
  jwks: { keys: unknown[] } = { keys: [] },
  host: '127.0.0.1' | '::1' = '127.0.0.1',
): Promise<JwksServer> {
  const server = new ScriptableJwksServer(jwks, host);
  await server.start();
  return server;
}

class ScriptableJwksServer implements JwksServer {
  mode: JwksServerMode = { kind: 'ok' };
  requests = 0;
  private port = 0;
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly waiters = new Set<{ count: number; resolve: () => void }>();
  private readonly server = createServer((request, response) => {
    this.requests++;
    for (const waiter of this.waiters) {
      if (this.requests >= waiter.count) {
        this.waiters.delete(waiter);
        waiter.resolve();
      }
    }
    this.answer(request.socket.destroy.bind(request.socket), response);
  });

  constructor(
    public jwks: { keys: unknown[] },
    private readonly host: '127.0.0.1' | '::1',
  ) {}

  get url(): string {
    const host = this.host === '::1' ? '[::1]' : this.host;
    return `http://${host}:${this.port}/.well-known/jwks.json`;
  }

  received(count: number): Promise<void> {
    if (this.requests >= count) return Promise.resolve();
    return new Promise((resolve) => this.waiters.add({ count, resolve }));
  }

  start(): Promise<void> {
    return new Promise((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(this.port, this.host, () => {
        this.server.off('error', reject);
        this.port = (this.server.address() as AddressInfo).port;
        resolve();
      });
    });
  }

  stop(): Promise<void> {
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    this.server.closeAllConnections();
    return closed;
  }

  close(): Promise<void> {
    return this.stop();
  }

  private answer(reset: () => void, response: ServerResponse): void {
    const mode = this.mode;
    switch (mode.kind) {
      case 'ok':
        return this.send(response, 200, 'application/json', JSON.stringify(this.jwks));
      case 'slow':
        return this.after(mode.delayMs, () => this.send(response, 200, 'application/json', JSON.stringify(this.jwks)));
      case 'drip':
        return this.drip(response, JSON.stringify(this.jwks), mode.intervalMs);
      case 'hang':
        return;
      case 'reset':
        return reset();
      case 'status':
        response.writeHead(mode.status, { 'content-type': 'text/plain', ...mode.headers });
        response.end(mode.body ?? '');
        return;
      case 'body':
        return this.send(response, 200, mode.contentType ?? 'application/json', mode.body);
      case 'oversized':
        return this.stream(response, mode.bytes);
    }
  }

  private send(response: ServerResponse, status: number, contentType: string, body: string): void {
    if (response.destroyed) return;
    response.writeHead(status, { 'content-type': contentType });
    response.end(body);
  }

  private after(delayMs: number, action: () => void): void {
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      action();
    }, delayMs);
    this.timers.add(timer);
  }

  private drip(response: ServerResponse, body: string, intervalMs: number): void {
    response.writeHead(200, { 'content-type': 'application/json' });
    let sent = 0;
    const timer = setInterval(() => {
      response.write(body.charAt(sent++));
      if (sent === body.length) {
        this.stopTimer(timer);
        response.end();
      }
    }, intervalMs);
    this.timers.add(timer);
    response.on('close', () => this.stopTimer(timer));
  }

  private stopTimer(timer: NodeJS.Timeout): void {
    clearInterval(timer);
    this.timers.delete(timer);
  }

  /** Valid JSON of exactly `bytes` bytes (at least 24), written in 64 KiB chunks. */
  private stream(response: ServerResponse, bytes: number): void {
    response.writeHead(200, { 'content-type': 'application/json' });
    const head = '{"keys":[],"pad":"';
    let padding = bytes - head.length - 2;
    response.write(head);
    const chunk = 'x'.repeat(65_536);
    while (padding > 0 && !response.destroyed) {
      response.write(chunk.slice(0, Math.min(padding, chunk.length)));
      padding -= chunk.length;
    }
    response.end('"}');
  }
}
