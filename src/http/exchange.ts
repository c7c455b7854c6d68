/**
 * The one HTTP client of the package: every request (a key set, a discovery document, `probe`'s checks, the service's
 * API) goes through the proxy the environment names (proxy.ts), never follows a redirect, and is bounded in time
 * and in the bytes it holds. Node's own `http`, `https` and `tls` are the transport; see docs/development.md
 * ("Dependencies") for why no library does this part.
 */
import type { IncomingMessage, OutgoingHttpHeaders } from 'node:http';

/**
 * The proxy and transport code, loaded at the first request: Node's `http`, `https`, `tls` and `net` cost a process
 * about 12 ms to load, which `require('cube-dual-auth')` would otherwise pay at Cube's start.
 */
export function loadProxy(): Promise<typeof import('./proxy.js')> {
  return import('./proxy.js');
}

interface ExchangeOptions {
  readonly headers: OutgoingHttpHeaders;
  /** Deadline of the whole exchange: the proxy's CONNECT, the TLS handshake, the request, and what `read` does. */
  readonly timeoutMs: number;
  /** Aborting it ends the exchange at once. */
  readonly signal?: AbortSignal;
  /** Where `HTTPS_PROXY`, `HTTP_PROXY` and `NO_PROXY` are read. Default `process.env`. */
  readonly env?: NodeJS.ProcessEnv;
}

/** Why an exchange ended before it settled: its deadline passed, or its caller's signal was aborted. */
export class Interrupted extends Error {
  constructor(readonly by: 'deadline' | 'signal') {
    super(by === 'deadline' ? 'the deadline passed' : 'aborted');
  }
}

/**
 * GETs `url` and resolves with what `read` makes of the answer, all within one deadline. Whatever is under way when
 * the deadline passes or `signal` is aborted is ended (the proxy's CONNECT, the TLS handshake, the request, the body
 * being read) and the exchange rejects with {@link Interrupted}, whatever error the ending caused; any other failure
 * rejects as it came (a Node error with its `code`, or what `read` threw). Nothing outlives the exchange: an unread
 * body, a connection the server keeps open.
 */
export async function exchange<T>(
  url: URL,
  options: ExchangeOptions,
  read: (answer: IncomingMessage) => Promise<T>,
): Promise<T> {
  if (options.signal?.aborted) throw new Interrupted('signal');
  const stop = new AbortController();
  let ended: Interrupted | undefined;
  const end = (by: Interrupted['by']): void => {
    ended ??= new Interrupted(by);
    stop.abort();
  };
  const timer = setTimeout(() => end('deadline'), options.timeoutMs);
  const onAbort = (): void => end('signal');
  options.signal?.addEventListener('abort', onAbort);
  try {
    const { proxyFor, send } = await loadProxy();
    return await read(await send(url, { headers: options.headers }, proxyFor(url, options.env), stop.signal));
  } catch (error) {
    // An ending destroys the socket, which surfaces as some stream error: report the reason, not the symptom.
    throw ended ?? error;
  } finally {
    clearTimeout(timer);
    options.signal?.removeEventListener('abort', onAbort);
    stop.abort();
  }
}

/**
 * A body, read as it comes, of which no more than `maxBytes` is ever held. Undefined once it is known to be larger:
 * its declared length says so (before any of it is read), or the bytes read pass the limit. With `cut`, a larger
 * body is no failure: its first `maxBytes` are returned as soon as they have come. Reading stops there; leaving the
 * iteration cancels a web stream's rest, and a Node answer's rest ends with its exchange.
 */
export async function readBody(
  body: AsyncIterable<Uint8Array> | null,
  maxBytes: number,
  declaredLength?: string | null,
): Promise<Buffer | undefined>;
export async function readBody(
  body: AsyncIterable<Uint8Array>,
  maxBytes: number,
  declaredLength: undefined,
  cut: 'cut',
): Promise<Buffer>;
export async function readBody(
  body: AsyncIterable<Uint8Array> | null,
  maxBytes: number,
  declaredLength?: string | null,
  cut?: 'cut',
): Promise<Buffer | undefined> {
  if (Number(declaredLength) > maxBytes) {
    await body?.[Symbol.asyncIterator]().return?.();
    return undefined;
  }
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of body ?? []) {
    if (cut !== undefined && size + chunk.byteLength >= maxBytes) {
      // Enough: the rest is not read.
      chunks.push(chunk.subarray(0, maxBytes - size));
      break;
    }
    size += chunk.byteLength;
    if (size > maxBytes) return undefined;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}
