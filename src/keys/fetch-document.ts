import { quote } from '../errors';
import { exchange, Interrupted, readBody } from '../http/exchange';
import { JsonTooDeepError, parseOutsideJson } from '../http/json';
import { transportHint } from '../http/transport-failure';
import { isJwksFailure, type FailureWording } from './errors';

export interface FetchDocumentOptions {
  /** Deadline for the whole exchange: connect, headers and body. */
  readonly timeoutMs: number;
  /** A body larger than this is an invalid answer. */
  readonly maxResponseBytes: number;
  /** Aborting it ends the request at once (used by `KeyStore.close()`). */
  readonly signal?: AbortSignal;
  /** Where `HTTPS_PROXY`, `HTTP_PROXY` and `NO_PROXY` are read. Default `process.env`. */
  readonly env?: NodeJS.ProcessEnv;
}

/** A JSON document as the identity provider answered it. */
interface FetchedDocument {
  /** The parsed JSON of a 2xx answer. */
  readonly json: unknown;
  /**
   * How long the answer may be used, from its `Cache-Control` (`max-age` in ms; 0 for `no-cache` or `no-store`),
   * undefined when it says nothing. The key store keeps it within the operator's bounds.
   */
  readonly maxAgeMs: number | undefined;
}

/** A non-2xx answer, for a caller that treats some statuses as a fact (discovery falls back on a 404). */
export class HttpStatus {
  constructor(readonly status: number) {}
}

/**
 * GETs an identity provider's JSON document (JWKS or discovery) with a deadline and a size limit, which jwks-rsa's
 * own request lacks (docs/failure-modes.md); no redirects, through the environment's proxy. A failure is a
 * `JwksFailure` worded by `wording`; a non-2xx status is returned as {@link HttpStatus}, its body unread.
 */
export async function fetchDocument(
  address: string,
  accept: string,
  options: FetchDocumentOptions,
  wording: FailureWording,
): Promise<FetchedDocument | HttpStatus> {
  const url = new URL(address);
  const { timeoutMs, maxResponseBytes, signal, env } = options;
  try {
    // A new connection per fetch: fetches are minutes apart, and a pooled socket that a load balancer
    // dropped meanwhile would fail the refresh with a spurious ECONNRESET.
    return await exchange(url, { headers: { accept }, timeoutMs, signal, env }, async (response) => {
      const status = response.statusCode ?? 0;
      if (status < 200 || status >= 300) return new HttpStatus(status);
      const body = await readBody(response, maxResponseBytes, response.headers['content-length']);
      if (body === undefined) throw wording.invalid(`larger than ${maxResponseBytes} bytes`);
      return {
        json: parseJson(body.toString('utf8'), response.headers['content-type'], wording),
        maxAgeMs: cacheLifetimeMs(response.headers['cache-control']),
      };
    });
  } catch (error) {
    // A close() that came before this fetch began (while discovery was asked, whose last URL still serves) ends it too.
    if (error instanceof Interrupted)
      throw error.by === 'deadline' ? wording.timedOut(timeoutMs) : wording.unreachable('key store closed');
    throw isJwksFailure(error) ? error : wording.unreachable(causeOf(error));
  }
}

/** Why a status is not an answer, for the message: a redirect is named as such. */
export function statusProblem({ status }: HttpStatus): string {
  // Following a redirect would let whoever controls the Location header choose our keys.
  const hint = status >= 300 && status < 400 ? ' (redirects are not followed: configure the final URL)' : '';
  return `HTTP ${status}${hint}`;
}

function parseJson(body: string, contentType: string | undefined, wording: FailureWording): unknown {
  try {
    return parseOutsideJson(body);
  } catch (error) {
    if (error instanceof JsonTooDeepError) throw wording.invalid(`refused: ${error.message}`);
    // The content type tells an operator at once whether they got a login page or an error page.
    throw wording.invalid(contentType ? `not JSON (content-type ${quote(contentType)})` : 'not JSON');
  }
}

/** `max-age` of a `Cache-Control` header in ms; 0 when the answer must not be reused; undefined when not said. */
function cacheLifetimeMs(cacheControl: string | undefined): number | undefined {
  if (cacheControl === undefined) return undefined;
  const directives = cacheControl
    .toLowerCase()
    .split(',')
    .map((part) => part.trim());
  if (directives.some((directive) => directive === 'no-store' || directive === 'no-cache')) return 0;
  const maxAge = directives
    .map((directive) => /^max-age\s*=\s*"?(\d+)"?$/.exec(directive)?.[1])
    .find((value) => value !== undefined);
  return maxAge === undefined ? undefined : Number(maxAge) * 1000;
}

/** The Node error code (`ECONNREFUSED`, `ENOTFOUND`, `CERT_HAS_EXPIRED`...) names the cause best, but for TLS. */
function causeOf(error: unknown): string {
  const hint = transportHint(error);
  if (hint !== undefined) return hint;
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (typeof code === 'string') return code;
  return error instanceof Error ? error.message : 'request failed';
}
