import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** What one path answers. */
export type IssuerAnswer =
  /** 200 with this value as JSON. */
  | { readonly json: unknown; readonly headers?: Record<string, string> }
  /** This status, empty body. */
  | { readonly status: number; readonly headers?: Record<string, string> }
  /** 200 with this text. */
  | { readonly body: string; readonly contentType: string }
  /** Accept the request and never answer. */
  | { readonly hang: true };

export interface IssuerServer {
  /** `http://127.0.0.1:<port>` */
  readonly origin: string;
  /** The issuer: the origin plus the path it was started with. */
  readonly issuer: string;
  /** Where it serves `jwks`. */
  readonly jwksUrl: string;
  /** The paths requested, in order. */
  readonly requested: string[];
  /** Answers by path (query excluded); a path not in it answers 404. */
  readonly answers: Map<string, IssuerAnswer>;
  /** The key set served at `jwksUrl`. */
  jwks: { keys: unknown[] };
  close(): Promise<void>;
}

export interface IssuerServerOptions {
  /** The issuer's path after the origin, e.g. `/tenant-a` (default none). */
  readonly path?: string;
  /**
   * Which metadata it publishes for its issuer: `openid` (`<issuer>/.well-known/openid-configuration`), `oauth`
   * (RFC 8414 only: `/.well-known/oauth-authorization-server<path>`), or `none`. Default `openid`.
   */
  readonly metadata?: 'openid' | 'oauth' | 'none';
}

/**
 * An identity provider's discovery and JWKS endpoints on 127.0.0.1, scriptable per path: for what a real OpenID
 * provider cannot be made to do (answer 404, name another issuer, hang, publish only RFC 8414 metadata).
 */
export async function startIssuerServer(options: IssuerServerOptions = {}): Promise<IssuerServer> {
  const path = options.path ?? '';
  const requested: string[] = [];
  const answers = new Map<string, IssuerAnswer>();
  const hung = new Set<ServerResponse>();
  const state = { jwks: { keys: [] as unknown[] } };
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    const pathname = new URL(request.url ?? '/', 'http://x').pathname;
    requested.push(pathname);
    if (pathname === `${path}/jwks`) return send(response, { json: state.jwks });
    const answer = answers.get(pathname);
    if (answer === undefined) return send(response, { status: 404 });
    if ('hang' in answer) {
      hung.add(response);
      return undefined;
    }
    return send(response, answer);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const issuer = `${origin}${path}`;
  const jwksUrl = `${issuer}/jwks`;
  const document = { issuer, jwks_uri: jwksUrl, token_endpoint: `${issuer}/token` };
  const metadata = options.metadata ?? 'openid';
  if (metadata === 'openid') answers.set(`${path}/.well-known/openid-configuration`, { json: document });
  if (metadata === 'oauth') answers.set(`/.well-known/oauth-authorization-server${path}`, { json: document });
  return {
    origin,
    issuer,
    jwksUrl,
    requested,
    answers,
    get jwks() {
      return state.jwks;
    },
    set jwks(value) {
      state.jwks = value;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const response of hung) response.destroy();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

function send(response: ServerResponse, answer: Exclude<IssuerAnswer, { hang: true }>): void {
  if ('json' in answer) {
    response.writeHead(200, { 'content-type': 'application/json', ...answer.headers }).end(JSON.stringify(answer.json));
  } else if ('body' in answer) {
    response.writeHead(200, { 'content-type': answer.contentType }).end(answer.body);
  } else {
    response.writeHead(answer.status, answer.headers).end();
  }
}
