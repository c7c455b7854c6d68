/**
 * The package's HTTP client (exchange.ts) in the shape of `fetch`, for the service's client: its transport is written
 * against `fetch`, which a caller may also pass (an instrumented one, say), and keeps its retries, deadline and size
 * limit whichever serves it. Node's global `fetch` reads no proxy variable; this one honours them as the hook does.
 */
import type { IncomingMessage } from 'node:http';
import { loadProxy } from './exchange';

/** What the service's client asks of a `fetch`. The global `fetch` fits, and so does {@link fetchThroughProxy}. */
export type Fetch = (url: string, init: FetchInit) => Promise<Response>;

interface FetchInit {
  readonly method: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string | undefined;
  /** A redirect is answered, never followed (this client follows none whatever is asked). */
  readonly redirect: 'manual';
  /** Ends the request, or the answer's body once the request has been answered, with its reason. */
  readonly signal: AbortSignal;
}

/** Statuses whose answer has no body: a `Response` refuses one for them. */
const NULL_BODY_STATUS = new Set([204, 205, 304]);

/**
 * Sends the request through the proxy that `process.env` names. It fails as `fetch` does, so that the service's
 * client tells every failure the same way whichever `fetch` served it: an abort rejects with the signal's reason
 * (the deadline's `TimeoutError`), anything else with a `TypeError` whose `cause` is the Node error and its code.
 */
export async function fetchThroughProxy(url: string, init: FetchInit): Promise<Response> {
  const target = new URL(url);
  const { signal } = init;
  // Loaded here, as the transport is: `node:stream` alone would add about 3 ms to `require('cube-dual-auth/service')`.
  const [{ proxyFor, send }, { Readable }] = await Promise.all([loadProxy(), import('node:stream')]);
  let answer: IncomingMessage;
  try {
    answer = await send(target, init, proxyFor(target), signal);
  } catch (error) {
    throw signal.aborted ? signal.reason : new TypeError('fetch failed', { cause: error });
  }
  // The body is read after this resolves: an abort then ends it with the signal's reason, as it ends a fetch's body.
  const abort = (): void => void answer.destroy(signal.reason as Error);
  signal.addEventListener('abort', abort, { once: true });
  answer.once('close', () => signal.removeEventListener('abort', abort));
  const headers = new Headers();
  for (let i = 0; i + 1 < answer.rawHeaders.length; i += 2)
    headers.append(answer.rawHeaders[i] as string, answer.rawHeaders[i + 1] as string);
  const status = answer.statusCode ?? 0;
  const body = NULL_BODY_STATUS.has(status) ? null : (Readable.toWeb(answer) as ReadableStream<Uint8Array>);
  if (body === null) answer.resume();
  return new Response(body, { status, statusText: answer.statusMessage ?? '', headers });
}
