import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exchange, Interrupted, readBody } from '../../src/http/exchange';

/** A body source that yields these chunks, then never ends; `pulled` counts the chunks taken, `ended` its end. */
function source(chunks: readonly string[]): AsyncIterable<Uint8Array> & { pulled: number; ended: boolean } {
  const state = {
    pulled: 0,
    ended: false,
    async *[Symbol.asyncIterator]() {
      try {
        for (const chunk of chunks) {
          state.pulled += 1;
          yield Buffer.from(chunk);
        }
        await new Promise(() => undefined);
      } finally {
        state.ended = true;
      }
    },
  };
  return state;
}

describe('readBody', () => {
  it('refuses a body whose declared length is over the limit without reading any of it', async () => {
    const body = source(['a']);
    expect(await readBody(body, 4, '5')).toBeUndefined();
    expect(body.pulled).toBe(0);
  });

  it('refuses once the bytes read pass the limit, and stops reading there', async () => {
    const body = source(['abc', 'de', 'never read']);
    expect(await readBody(body, 4)).toBeUndefined();
    expect(body).toMatchObject({ pulled: 2, ended: true });
  });

  it('reads a body of exactly the limit to its end', async () => {
    const whole = readBody(
      new ReadableStream({ start: (controller) => (controller.enqueue(Buffer.from('abcd')), controller.close()) }),
      4,
    );
    expect((await whole)?.toString()).toBe('abcd');
  });

  it('cut: returns the first maxBytes as soon as they have come, without waiting for the end', async () => {
    const body = source(['abc', 'defgh']);
    expect((await readBody(body, 4, undefined, 'cut')).toString()).toBe('abcd');
    expect(body.ended).toBe(true);
  });

  it('cancels a web body it refuses by its declared length', async () => {
    let cancelled = false;
    const body = new ReadableStream<Uint8Array>({ cancel: () => void (cancelled = true) });
    expect(await readBody(body, 4, '5')).toBeUndefined();
    expect(cancelled).toBe(true);
  });

  it('reads no body as empty', async () => {
    expect((await readBody(null, 4))?.length).toBe(0);
  });
});

describe('exchange', () => {
  let server: Server;
  let url: URL;
  /** Told when the server receives a request to /hang, which it never answers. */
  let hung = (): void => undefined;
  beforeAll(async () => {
    server = createServer((request, response) => {
      if (request.url === '/hang') return hung();
      if (request.url === '/redirect') return void response.writeHead(302, { location: '/elsewhere' }).end();
      response.end('ok');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
  });
  afterAll(() => {
    server.closeAllConnections();
    return new Promise<void>((resolve) => server.close(() => resolve()));
  });

  // A deadline no busy machine reaches for a server that answers; the deadline's own test gives 300 ms.
  const text = (path: string, options: Partial<Parameters<typeof exchange>[1]> = {}) =>
    exchange(
      new URL(path, url),
      { headers: {}, timeoutMs: 10_000, env: {}, ...options },
      async (answer) => `${answer.statusCode} ${(await readBody(answer, 100))?.toString()}`,
    );

  it('hands the answer to its reader, a redirect as it is', async () => {
    expect(await text('/')).toBe('200 ok');
    expect(await text('/redirect')).toBe('302 ');
  });

  it('ends at the deadline with Interrupted, however the ending surfaced', async () => {
    const started = performance.now();
    const error = await text('/hang', { timeoutMs: 300 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Interrupted);
    expect(error).toMatchObject({ by: 'deadline' });
    expect(performance.now() - started).toBeGreaterThanOrEqual(295);
  });

  it("ends at once when the caller's signal is aborted, or was before it began", async () => {
    const abort = new AbortController();
    const received = new Promise<void>((resolve) => (hung = resolve));
    const pending = text('/hang', { timeoutMs: 10_000, signal: abort.signal }).catch((e: unknown) => e);
    // Aborted once the request is under way, so the abort ends an exchange and does not race its start.
    await received;
    abort.abort();
    expect(await pending).toMatchObject({ by: 'signal' });
    expect(await text('/', { signal: abort.signal }).catch((e: unknown) => e)).toMatchObject({ by: 'signal' });
  });

  it('rejects with the Node error and its code when there is no answer', async () => {
    const error = await text('/', { env: { HTTP_PROXY: 'http://127.0.0.1:9' } }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'ECONNREFUSED' });
  });
});
