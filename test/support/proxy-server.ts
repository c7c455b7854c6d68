import { createServer, request as httpRequest, type IncomingMessage } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { conditions } from './conditions';

/**
 * How the proxy answers CONNECT. `tunnel`: opens the tunnel at once. `silent`: reads the CONNECT and never answers,
 * as an egress proxy stuck on its upstream. `no-tls`: answers 200 and then relays nothing, so the TLS handshake
 * through the tunnel never gets an answer. `slow`: answers 200 and opens the tunnel only after `delayMs`.
 */
export type ConnectMode =
  { kind: 'tunnel' } | { kind: 'silent' } | { kind: 'no-tls' } | { kind: 'slow'; delayMs: number };

/** A forward proxy on 127.0.0.1, as an operator's egress proxy: what passes through it is counted. */
export interface ProxyServer {
  /** `http://127.0.0.1:<port>`, for HTTPS_PROXY / HTTP_PROXY. */
  readonly url: string;
  /** Plain-http requests forwarded, by absolute URL. */
  readonly forwarded: string[];
  /** CONNECT requests received, by `host:port`, whatever the mode. */
  readonly tunnels: string[];
  /** How the next CONNECT requests are answered. Default `tunnel`. */
  connectMode: ConnectMode;
  /** Resolves once `count` CONNECT requests have been received in all (at once if they have). */
  connected(count: number): Promise<void>;
  /** Resolves once every client connection has been closed (by the client, since the proxy closes none itself). */
  idle(): Promise<void>;
  close(): Promise<void>;
}

/** Starts a proxy that forwards absolute-URL GETs (to 127.0.0.1 only) and opens CONNECT tunnels (to loopback only). */
export async function startProxyServer(): Promise<ProxyServer> {
  const forwarded: string[] = [];
  const tunnels: string[] = [];
  const clients = new Set<Socket>();
  const upstreams = new Set<Socket>();
  const timers = new Set<NodeJS.Timeout>();
  const { wake, until } = conditions();
  const server = createServer((request, response) => {
    const target = new URL(request.url ?? '');
    forwarded.push(target.href);
    if (target.hostname !== '127.0.0.1') return void response.writeHead(403).end();
    const upstream = httpRequest(
      target,
      { method: request.method, headers: request.headers },
      (answer: IncomingMessage) => {
        response.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(response);
      },
    );
    upstream.on('error', () => response.writeHead(502).end());
    request.pipe(upstream);
  });
  server.on('connection', (socket: Socket) => {
    clients.add(socket);
    socket.once('close', () => {
      clients.delete(socket);
      wake();
    });
  });
  const open = (client: Socket, target: string, head: Buffer): void => {
    // `host:port`, with an IPv6 address in brackets.
    const { hostname, port } = new URL(`http://${target}`);
    const host = hostname.replace(/^\[|\]$/g, '');
    if (!['127.0.0.1', 'localhost', '::1'].includes(host)) return void client.end('HTTP/1.1 403 Forbidden\r\n\r\n');
    const upstream = connect(Number(port), host, () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      upstream.write(head);
      upstream.pipe(client).pipe(upstream);
    });
    upstreams.add(upstream);
    // A tunnel lives as long as both its ends: whichever closes first takes the other with it.
    upstream.once('close', () => {
      upstreams.delete(upstream);
      client.destroy();
    });
    upstream.on('error', () => undefined);
    client.once('close', () => upstream.destroy());
  };
  let connectMode: ConnectMode = { kind: 'tunnel' };
  server.on('connect', (request: IncomingMessage, client: Socket, head: Buffer) => {
    const target = request.url ?? '';
    tunnels.push(target);
    wake();
    const mode = connectMode;
    // A client that gives up is not an error of the proxy's, and what it closes the proxy closes too (a CONNECT
    // socket is left half-open otherwise, and would count as open).
    client.on('error', () => undefined);
    client.once('end', () => client.destroy());
    switch (mode.kind) {
      case 'tunnel':
        return open(client, target, head);
      // Both read what comes and relay none of it; unread, it would hide the client's closing from the proxy.
      case 'silent':
        return void client.resume();
      case 'no-tls':
        client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
        return void client.resume();
      case 'slow': {
        const timer = setTimeout(() => {
          timers.delete(timer);
          if (!client.destroyed) open(client, target, head);
        }, mode.delayMs);
        timers.add(timer);
      }
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    forwarded,
    tunnels,
    get connectMode() {
      return connectMode;
    },
    set connectMode(mode) {
      connectMode = mode;
    },
    connected: (count) => until(() => tunnels.length >= count),
    idle: () => until(() => clients.size === 0),
    close: () =>
      new Promise<void>((resolve) => {
        for (const timer of timers) clearTimeout(timer);
        for (const socket of [...clients, ...upstreams]) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
