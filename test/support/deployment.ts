// Small HTTP servers on 127.0.0.1 that answer like a deployed Cube, well or badly, for `probe`'s tests.
import type { KeyObject } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { verify as jwtVerify } from 'jsonwebtoken';

/** Cube's answer to GET /meta, as far as `probe` reads it. */
export const META_BODY = JSON.stringify({ cubes: [{ name: 'orders', measures: [], dimensions: [] }] });

/** A request as the server received it. */
export interface ReceivedRequest {
  readonly path: string;
  readonly headers: IncomingMessage['headers'];
}

export interface Deployment {
  /** http://127.0.0.1:<port>, or https:// when started with a certificate */
  readonly url: string;
  /** Every request so far, in order. */
  readonly requests: readonly ReceivedRequest[];
  /** Stops listening and drops every connection, hung ones included. */
  close(): Promise<void>;
}

export type Handler = (request: IncomingMessage, response: ServerResponse) => void;

/** Starts a server on a free port of 127.0.0.1 answering with `handler`; over https with `tls` (a certificate for 127.0.0.1). */
export async function startDeployment(
  handler: Handler,
  tls?: { readonly key: Buffer; readonly cert: Buffer },
): Promise<Deployment> {
  const requests: ReceivedRequest[] = [];
  const listener = (request: IncomingMessage, response: ServerResponse): void => {
    requests.push({ path: request.url ?? '', headers: request.headers });
    handler(request, response);
  };
  const server = tls === undefined ? createServer(listener) : createHttpsServer(tls, listener);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `${tls === undefined ? 'http' : 'https'}://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export function answer(response: ServerResponse, status: number, body: string, contentType = 'application/json'): void {
  response.writeHead(status, { 'content-type': contentType, 'content-length': Buffer.byteLength(body) });
  response.end(body);
}

/** A checkAuth as Cube calls it: the request and the token, or undefined without an Authorization header. */
export type CheckAuthLike = (
  req: { headers: IncomingMessage['headers'] },
  token: string | undefined,
) => Promise<unknown>;

/**
 * What Cube 0.33's gateway does around checkAuth (ApiGateway.checkAuthWrapper): the token is the Authorization header
 * without its scheme; an error with status 403 (Cube's CubejsHandlerError, or the hook's DualAuthError) becomes
 * `403 {"error": message}`; any other error `500 {"error": String(error), "stack": error.stack}`. /meta then answers.
 */
export function cubeGateway(checkAuth: CheckAuthLike): Handler {
  return (request, response) => {
    const header = request.headers.authorization;
    const token = header === undefined ? undefined : (header.split(' ', 2)[1] ?? header);
    checkAuth({ headers: request.headers }, token).then(
      () => answer(response, 200, META_BODY),
      (error: unknown) => {
        if ((error as { status?: unknown }).status === 403)
          answer(response, 403, JSON.stringify({ error: (error as Error).message }));
        else answer(response, 500, JSON.stringify({ error: String(error), stack: (error as Error).stack }));
      },
    );
  };
}

/**
 * The checkAuth of the snippet most deployments start from: jsonwebtoken with the API secret for the service, with
 * the identity provider's key otherwise. A bad token makes it throw a plain Error, which Cube answers with a 500.
 */
export function naiveCheckAuth(secret: string, publicKey: KeyObject): CheckAuthLike {
  const pem = publicKey.export({ type: 'spki', format: 'pem' }).toString();
  return async (req, token) =>
    req.headers['request-origin'] === 'embeddable'
      ? jwtVerify(token as string, secret)
      : jwtVerify(token as string, pem);
}
