// A controllable HTTP proxy on 127.0.0.1 between Cube and the identity provider's JWKS endpoint, so a test
// can make the IdP unreachable for Cube alone (its token endpoint stays up for the callers), and count
// every JWKS request that reaches it.
import {
  createServer,
  request as httpRequest,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * `pass`: forward each request to the IdP and its answer back; `refuse`: nothing listens on the port, so
 * connections are refused (ECONNREFUSED); `hang`: accept the request and never answer.
 */
export type JwksProxyMode = 'pass' | 'refuse' | 'hang';

/** One request that reached the proxy (a refused connection never does). */
export interface ProxiedRequest {
  /** `clock()` when it arrived. */
  readonly at: number;
  readonly mode: 'pass' | 'hang';
  /** The IdP's status, once it answered (pass mode). */
  status?: number;
}

export class JwksProxy {
  readonly requests: ProxiedRequest[] = [];
  private currentMode: JwksProxyMode = 'refuse';
  private server: Server | undefined;
  private port = 0;

  private constructor(
    private readonly upstream: URL,
    private readonly clock: () => number,
  ) {}

  /** Starts in `pass` mode on a free port, forwarding to the origin of `upstream` (same path and query). */
  static async start(upstream: string, clock: () => number = () => performance.now()): Promise<JwksProxy> {
    const proxy = new JwksProxy(new URL(upstream), clock);
    await proxy.setMode('pass');
    return proxy;
  }

  get mode(): JwksProxyMode {
    return this.currentMode;
  }

  /** Where Cube fetches the keys: the upstream URL's path on the proxy's port. */
  get url(): string {
    return `http://127.0.0.1:${this.port}${this.upstream.pathname}${this.upstream.search}`;
  }

  /**
   * Switches mode. Into `refuse` it stops listening and drops its connections; out of it, it listens again
   * on the same port. Requests held by `hang` stay hung when the mode changes otherwise, as on a real
   * hung server: the client's own deadline ends them.
   */
  async setMode(mode: JwksProxyMode): Promise<void> {
    this.currentMode = mode;
    if (mode === 'refuse') await this.stopListening();
    else if (!this.server) await this.listen();
  }

  /** Stops listening and drops every connection, hung ones included. */
  close(): Promise<void> {
    return this.stopListening();
  }

  private handle(request: IncomingMessage, response: ServerResponse): void {
    const mode = this.currentMode;
    // A request that arrived as the port was closing: the connection is dropped, as on a refusing host.
    if (mode === 'refuse') return void request.socket.destroy();
    const record: ProxiedRequest = { at: this.clock(), mode };
    this.requests.push(record);
    if (mode === 'hang') return;
    const forwarded = httpRequest(
      new URL(request.url ?? '/', this.upstream.origin),
      { method: request.method, agent: false, headers: { accept: request.headers.accept ?? '*/*' } },
      (answer) => {
        record.status = answer.statusCode;
        response.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(response);
      },
    );
    forwarded.on('error', () => {
      if (!response.headersSent) response.writeHead(502).end();
      else response.destroy();
    });
    forwarded.end();
  }

  private listen(): Promise<void> {
    const server = createServer((request, response) => this.handle(request, response));
    return new Promise((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.port, '127.0.0.1', () => {
        server.off('error', reject);
        this.port = (server.address() as AddressInfo).port;
        this.server = server;
        resolve();
      });
    });
  }

  private stopListening(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (!server) return Promise.resolve();
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeAllConnections();
    return closed;
  }
}
