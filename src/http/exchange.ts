/**
 * The one HTTP client of the package: through the environment's proxy, no redirects, bounded in time and bytes. Why
 * no library does it: docs/development.md#dependencies.
 */
import type { IncomingMessage, OutgoingHttpHeaders } from 'node:http';

/** Loaded at the first request, not at Cube's start (docs/development.md#dependencies). */
export function loadProxy(): Promise<typeof import('./proxy.js')> {
  return import('./proxy.js');
}

interface ExchangeOptions {
  readonly headers: OutgoingHttpHeaders;
  /** Deadline of the whole exchange: the proxy's CONNECT, the TLS handshake, the request, and what `read` does. */
  readonly timeoutMs: number;
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
 * GETs `url` and resolves with what `read` makes of the answer, within one deadline; an ending rejects with
 * {@link Interrupted}, other failures as they came. Nothing outlives the exchange.
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
 * A body of which no more than `maxBytes` is ever held: undefined once known to be larger, or with `cut` its first
 * `maxBytes`. Leaving the iteration cancels the rest.
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
      chunks.push(chunk.subarray(0, maxBytes - size));
      break;
    }
    size += chunk.byteLength;
    if (size > maxBytes) return undefined;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}
