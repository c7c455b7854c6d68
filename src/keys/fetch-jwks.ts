import type * as http from 'node:http';
import { quote } from '../errors';
import { isJwksFailure, jwksInvalid, jwksTimedOut, jwksUnreachable, type JwksFailure } from './errors';
import { get, proxyFor } from './proxy';

/** A JSON Web Key Set as served. Only the shape is checked here; the keys are vetted by `usableKeys`. */
export interface JwksDocument {
  readonly keys: readonly unknown[];
}

/** A key set as the identity provider answered it. */
export interface JwksAnswer {
  readonly document: JwksDocument;
  /**
   * How long the answer may be used, from its `Cache-Control` (`max-age` in ms; 0 for `no-cache` or `no-store`),
   * undefined when it says nothing. The key store keeps it within the operator's bounds.
   */
  readonly maxAgeMs: number | undefined;
}

export interface FetchJwksOptions {
  /** Deadline for the whole exchange: connect, headers and body. */
  readonly timeoutMs: number;
  /** A body larger than this is an invalid answer. */
  readonly maxResponseBytes: number;
  /** Aborting it ends the request at once (used by `KeyStore.close()`). */
  readonly signal?: AbortSignal;
  /** Where `HTTPS_PROXY`, `HTTP_PROXY` and `NO_PROXY` are read. Default `process.env`. */
  readonly env?: NodeJS.ProcessEnv;
}

const ACCEPT = 'application/jwk-set+json, application/json;q=0.9';

/**
 * GETs a JWKS. jwks-rsa's own request has only a socket-idle timeout and no size limit, so an IdP that
 * trickles bytes or answers with a huge body could hold a request forever; this one cannot. Every failure
 * is a `JwksFailure` saying whether the URL was unreachable, timed out, or answered something unusable.
 * Goes through the proxy the environment names (see proxy.ts), as Cube's own JWKS fetcher does.
 */
export async function fetchJwks(jwksUri: string, options: FetchJwksOptions): Promise<JwksAnswer> {
  const url = new URL(jwksUri);
  // A new connection per fetch: fetches are minutes apart, and a pooled socket that a load balancer
  // dropped meanwhile would fail the refresh with a spurious ECONNRESET.
  const request = get(url, { accept: ACCEPT }, proxyFor(url, options.env));
  let ended: JwksFailure | undefined;
  const end = (failure: JwksFailure): void => {
    ended ??= failure;
    request.destroy();
  };
  const timer = setTimeout(() => end(jwksTimedOut(jwksUri, options.timeoutMs)), options.timeoutMs);
  const onAbort = (): void => end(jwksUnreachable(jwksUri, 'key store closed'));
  options.signal?.addEventListener('abort', onAbort);
  try {
    const response = await responseTo(request);
    const body = await readBody(response, jwksUri, options.maxResponseBytes);
    return { document: parseJwks(body, response.headers['content-type'], jwksUri), maxAgeMs: cacheLifetimeMs(response.headers['cache-control']) };
  } catch (error) {
    request.destroy();
    // A deadline or an abort destroys the socket, which surfaces as some stream error: report the reason, not the symptom.
    throw ended ?? (isJwksFailure(error) ? error : jwksUnreachable(jwksUri, causeOf(error)));
  } finally {
    clearTimeout(timer);
    options.signal?.removeEventListener('abort', onAbort);
  }
}

function responseTo(request: http.ClientRequest): Promise<http.IncomingMessage> {
  return new Promise((resolve, reject) => {
    request.once('response', resolve);
    // Stays attached for the request's life, so a late socket error is never an unhandled 'error' event.
    request.on('error', reject);
  });
}

async function readBody(response: http.IncomingMessage, jwksUri: string, maxBytes: number): Promise<string> {
  checkStatus(response.statusCode ?? 0, jwksUri);
  if (Number(response.headers['content-length']) > maxBytes) throw tooLarge(jwksUri, maxBytes);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of response) {
    size += (chunk as Buffer).length;
    if (size > maxBytes) throw tooLarge(jwksUri, maxBytes);
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function checkStatus(status: number, jwksUri: string): void {
  if (status >= 200 && status < 300) return;
  // Following a redirect would let whoever controls the Location header choose our keys.
  const hint = status >= 300 && status < 400 ? ' (redirects are not followed: configure the final URL)' : '';
  throw jwksInvalid(jwksUri, `HTTP ${status}${hint}`);
}

function tooLarge(jwksUri: string, maxBytes: number): JwksFailure {
  return jwksInvalid(jwksUri, `larger than ${maxBytes} bytes`);
}

function parseJwks(body: string, contentType: string | undefined, jwksUri: string): JwksDocument {
  let document: unknown;
  try {
    document = JSON.parse(body);
  } catch {
    // The content type tells an operator at once whether they got a login page or an error page.
    throw jwksInvalid(jwksUri, contentType ? `not JSON (content-type ${quote(contentType)})` : 'not JSON');
  }
  if (!isJwksDocument(document)) throw jwksInvalid(jwksUri, 'not a JWKS (no "keys" array)');
  return document;
}

/** `max-age` of a `Cache-Control` header in ms; 0 when the answer must not be reused; undefined when not said. */
export function cacheLifetimeMs(cacheControl: string | undefined): number | undefined {
  if (cacheControl === undefined) return undefined;
  const directives = cacheControl.toLowerCase().split(',').map((part) => part.trim());
  if (directives.some((directive) => directive === 'no-store' || directive === 'no-cache')) return 0;
  const maxAge = directives.map((directive) => /^max-age\s*=\s*"?(\d+)"?$/.exec(directive)?.[1]).find((value) => value !== undefined);
  return maxAge === undefined ? undefined : Number(maxAge) * 1000;
}

function isJwksDocument(value: unknown): value is JwksDocument {
  return typeof value === 'object' && value !== null && Array.isArray((value as { keys?: unknown }).keys);
}

/** The Node error code (`ECONNREFUSED`, `ENOTFOUND`, `CERT_HAS_EXPIRED`...) names the cause best. */
function causeOf(error: unknown): string {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (typeof code === 'string') return code;
  return error instanceof Error ? error.message : 'request failed';
}
