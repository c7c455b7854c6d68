/** The package's HTTP client in `fetch`'s shape for the service: Node's `fetch` reads no proxy variable. */
import type { IncomingMessage } from 'node:http';
import { loadProxy } from './exchange';

/** What the service's client asks of a `fetch`. The global `fetch` fits, and so does {@link fetchThroughProxy}. */
export type Fetch = (url: string, init: FetchInit) => Promise<Response>;

interface FetchInit {
  readonly method: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string | undefined;
  readonly redirect: 'manual';
  /** Ends the request, or the answer's body once the request has been answered, with its reason. */
  readonly signal: AbortSignal;
}

/** Statuses whose answer has no body: a `Response` refuses one for them. */
const NULL_BODY_STATUS = new Set([204, 205, 304]);

/** Sends the request through `process.env`'s proxy, failing as `fetch` does, whichever `fetch` served it. */
export async function fetchThroughProxy(url: string, init: FetchInit): Promise<Response> {
  const target = new URL(url);
  const { signal } = init;
  // Loaded here, as the transport is (docs/development.md#dependencies).
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
