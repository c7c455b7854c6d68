import { randomUUID, type KeyObject } from 'node:crypto';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { DualAuthError, quote } from '../../src/errors';
import type { AuthEvent } from '../../src/events';
import { DEFAULTS } from '../../src/config/options';
import { KeyStore, type KeyStoreOptions } from '../../src/keys';
import { createClock, type FakeClock } from '../support/clock';
import { rejectionOf } from '../support/requests';
import { startJwksServer, type JwksServer } from '../support/jwks-server';
import { generateKeyPair, jwks, type TestKeyPair } from '../support/keys';
import { startProxyServer, type ConnectMode, type ProxyServer } from '../support/proxy-server';
import { watchLateness } from '../support/lateness';

const COOLDOWN = 200;
/** A real deadline on a real socket: tests of a hanging IdP wait for it, and pass it to the store they make. */
const TIMEOUT = 300;
const OPTIONS = {
  cooldownMs: COOLDOWN,
  maxAgeMs: 60_000,
  staleIfErrorMs: 60_000,
  // The other tests' deadline: far beyond how late a busy machine runs this process, so that none of them ends a fetch
  // to a server that answers (docs/development.md#timing-dependent-tests).
  timeoutMs: 10_000,
  maxResponseBytes: 524_288,
};

let A: TestKeyPair;
let B: TestKeyPair;
let server: JwksServer;
let clock: FakeClock;
let events: AuthEvent[];
const stores: KeyStore[] = [];

beforeAll(() => {
  A = generateKeyPair('RS256', { kid: 'key-a' });
  B = generateKeyPair('RS256', { kid: 'key-b' });
});
beforeEach(async () => {
  server = await startJwksServer(jwks(A, B));
  clock = createClock();
  events = [];
});
afterEach(async () => {
  for (const store of stores.splice(0)) store.close();
  await server.close();
});

/** A store on the fake clock: cooldowns and ages pass with `clock.advance`, fetches are real. */
function makeStore(overrides: Partial<KeyStoreOptions> = {}): KeyStore {
  const store = new KeyStore({
    jwksUri: server.url,
    algorithms: ['RS256'],
    ...OPTIONS,
    clock: clock.now,
    onEvent: (event) => events.push(event),
    ...overrides,
  });
  stores.push(store);
  return store;
}

/** The refusal of a key the store cannot give at once: a promise that rejects with a refusal of the key-set path. */
async function rejection(result: KeyObject | Promise<KeyObject> | Promise<void>): Promise<DualAuthError> {
  expect(result).toBeInstanceOf(Promise);
  const error = await rejectionOf(result as Promise<unknown>);
  expect(error.path).toBe('key-set');
  return error;
}

function sameKey(actual: KeyObject, pair: TestKeyPair): void {
  expect(actual.export({ format: 'jwk' })).toEqual(pair.publicKey.export({ format: 'jwk' }));
}

/** Whether `result` settles before the event loop's next turn, that is without waiting for any socket or timer. */
function settlesAtOnce(result: unknown): Promise<boolean> {
  const settled = Promise.resolve(result).then(
    () => true,
    () => true,
  );
  const nextTurn = new Promise<boolean>((resolve) => setImmediate(() => resolve(false)));
  return Promise.race([settled, nextTurn]);
}

/** Waits for the refresh in flight, by joining it: a prefetch() during a fetch shares it and starts none. */
async function refreshEnded(store: KeyStore): Promise<void> {
  const { refreshing, fetches } = store.describe();
  expect(refreshing).toBe(true);
  await store.prefetch().catch(() => undefined);
  expect(store.describe()).toMatchObject({ refreshing: false, fetches: { started: fetches.started } });
}

function timeouts(): number {
  return process.getActiveResourcesInfo().filter((name) => name === 'Timeout').length;
}

function cpuMs(since: NodeJS.CpuUsage): number {
  const used = process.cpuUsage(since);
  return (used.user + used.system) / 1000;
}

const unreachable = (uri: string, cause: string): string => `JWKS URL ${uri} unreachable: ${cause}`;
const invalid = (uri: string, reason: string): string => `JWKS response from ${uri} is invalid: ${reason}`;
const timedOut = (uri: string): string => `JWKS request to ${uri} timed out after ${TIMEOUT} ms`;

describe('KeyStore', () => {
  describe('cold start and warm-up', () => {
    it('200 concurrent requests on a cold store share exactly one fetch', async () => {
      const store = makeStore();
      const keys = await Promise.all(Array.from({ length: 200 }, () => store.getKey(A.kid)));
      expect(server.requests).toBe(1);
      expect(new Set(keys).size).toBe(1);
      sameKey(keys[0] as KeyObject, A);
      expect(events).toEqual([
        {
          type: 'jwks-refreshed',
          jwksUri: server.url,
          kids: [A.kid, B.kid],
          skipped: 0,
          durationMs: expect.any(Number),
        },
      ]);
    });

    it('reports the discovery of its JWKS URL before the key set it fetched from there', async () => {
      const issuerServer = await startJwksServer();
      try {
        const issuer = new URL(issuerServer.url).origin;
        issuerServer.mode = { kind: 'body', body: JSON.stringify({ issuer, jwks_uri: server.url }) };
        await makeStore({ jwksUri: { discoverFrom: issuer }, issuer }).prefetch();
        expect(events).toEqual([
          { type: 'discovery', issuer, jwksUri: server.url, durationMs: expect.any(Number) },
          {
            type: 'jwks-refreshed',
            jwksUri: server.url,
            issuer,
            kids: [A.kid, B.kid],
            skipped: 0,
            durationMs: expect.any(Number),
          },
        ]);
      } finally {
        await issuerServer.close();
      }
    });

    it('prefetch() loads the set; known kids are then answered synchronously, with the KeyObject made at load', async () => {
      const store = makeStore();
      expect(store.describe()).toMatchObject({ status: 'empty', kids: [], fetchedAt: undefined });
      await store.prefetch();
      const key = store.getKey(B.kid);
      expect(key).not.toBeInstanceOf(Promise);
      expect(store.getKey(B.kid)).toBe(key);
      sameKey(key as KeyObject, B);
      expect(store.describe()).toMatchObject({
        jwksUri: server.url,
        status: 'fresh',
        kids: [A.kid, B.kid],
        skippedKeys: 0,
        lastError: undefined,
        fetches: { started: 1, succeeded: 1, failed: 0 },
        refreshing: false,
        closed: false,
      });
      expect(store.describe().fetchedAt).toBeInstanceOf(Date);
    });

    it('prefetch() during a fetch joins it', async () => {
      const store = makeStore();
      await Promise.all([store.prefetch(), store.getKey(A.kid), store.prefetch()]);
      expect(server.requests).toBe(1);
    });

    it('events give the duration of a fetch on the store clock', async () => {
      const store = makeStore();
      const loading = store.prefetch();
      clock.advance(150);
      await loading;
      server.mode = { kind: 'status', status: 503 };
      const failing = rejection(store.prefetch());
      clock.advance(40);
      await failing;
      expect(events.map((event) => 'durationMs' in event && event.durationMs)).toEqual([150, 40]);
    });
  });

  describe('unknown kids', () => {
    it('within the cooldown an unknown kid is refused at once, without a fetch, saying when a refresh is allowed', async () => {
      const store = makeStore({ cooldownMs: 5_000 });
      await store.prefetch();
      const result = store.getKey('rotated-in');
      expect(await settlesAtOnce(result)).toBe(true);
      const error = await rejection(result);
      expect(error.code).toBe('ERR_KID_UNKNOWN');
      expect(error.detail).toBe(
        `No key for kid "rotated-in" in the JWKS at ${server.url}; next refresh allowed in 5 s`,
      );
      expect(server.requests).toBe(1);
    });

    it('after the cooldown an unknown kid triggers one refetch; still absent, it is refused', async () => {
      const store = makeStore();
      await store.prefetch();
      clock.advance(COOLDOWN);
      const error = await rejection(store.getKey('nope'));
      expect(error.code).toBe('ERR_KID_UNKNOWN');
      expect(error.detail).toBe(`No key for kid "nope" in the JWKS at ${server.url}`);
      expect(server.requests).toBe(2);
    });

    it('the cooldown ends exactly cooldownMs after the previous fetch ended, not when it started', async () => {
      const store = makeStore();
      const loading = store.prefetch();
      clock.advance(150); // the fetch takes 150 ms
      await loading;
      clock.advance(COOLDOWN - 1);
      const early = await rejection(store.getKey('rotated-in'));
      expect(early.detail).toBe(
        `No key for kid "rotated-in" in the JWKS at ${server.url}; next refresh allowed in 1 s`,
      );
      expect(server.requests).toBe(1);

      clock.advance(1);
      server.jwks = jwks(A, B, { ...B.jwk, kid: 'rotated-in' });
      sameKey(await store.getKey('rotated-in'), B);
      expect(server.requests).toBe(2);
    });

    it('echoes the kid quoted, printable and capped', async () => {
      const store = makeStore({ cooldownMs: 5_000 });
      await store.prefetch();
      const kid = `${'k'.repeat(500)}\n"`;
      const error = await rejection(store.getKey(kid));
      expect(error.detail).toBe(
        `No key for kid ${quote(kid)} in the JWKS at ${server.url}; next refresh allowed in 5 s`,
      );
      expect(error.detail.length).toBeLessThan(200);
    });

    it('a burst of 500 random kids after the cooldown costs one fetch; known kids keep working', async () => {
      const store = makeStore();
      await store.prefetch();
      clock.advance(COOLDOWN);
      const known = store.getKey(A.kid);
      const cpu = process.cpuUsage();
      const started = performance.now();
      const results = await Promise.allSettled(
        Array.from({ length: 500 }, () => {
          expect(store.getKey(A.kid)).toBe(known);
          return store.getKey(randomUUID());
        }),
      );
      const elapsed = performance.now() - started;
      const cpuUsed = cpuMs(cpu);
      expect(server.requests - 1).toBe(1);
      for (const result of results) {
        expect(result.status).toBe('rejected');
        expect((result as PromiseRejectedResult).reason).toMatchObject({ code: 'ERR_KID_UNKNOWN' });
      }
      expect(cpuUsed).toBeLessThan(1_000);
      console.info(
        `[figures] burst of 500 random kids: ${server.requests - 1} fetch, ${elapsed.toFixed(1)} ms elapsed, ${cpuUsed.toFixed(1)} ms CPU`,
      );
    });

    it('a sustained flood of 500 random kids over 5 cooldowns costs at most one fetch per cooldown; known kids keep working', async () => {
      const cooldownMs = 100;
      const store = makeStore({ cooldownMs });
      await store.prefetch();
      const cpu = process.cpuUsage();
      const errors: unknown[] = [];
      // Ten waves of 50, one every half cooldown; each wave's refetch, if any, ends before the clock moves on.
      for (let wave = 0; wave < 10; wave++) {
        const outcomes: Promise<unknown>[] = [];
        for (let i = 0; i < 50; i++) {
          outcomes.push(Promise.resolve(store.getKey(randomUUID())).catch((error: unknown) => error));
          // Each refresh converts the keys anew, so the KeyObject is equal, not identical, across refreshes.
          expect(store.getKey(A.kid)).not.toBeInstanceOf(Promise);
        }
        errors.push(...(await Promise.all(outcomes)));
        clock.advance(cooldownMs / 2);
      }
      const cpuUsed = cpuMs(cpu);
      const fetches = server.requests - 1;
      expect(errors).toHaveLength(500);
      expect(errors.every((error) => error instanceof DualAuthError && error.code === 'ERR_KID_UNKNOWN')).toBe(true);
      // The waves at 100, 200, 300 and 400 ms each find the previous fetch a cooldown old.
      expect(fetches).toBe(4);
      expect(cpuUsed).toBeLessThan(1_000);
      console.info(
        `[figures] sustained flood of 500 random kids over ${clock.now()} ms of clock (cooldown ${cooldownMs} ms): ${fetches} fetches, ${cpuUsed.toFixed(1)} ms CPU`,
      );
    });

    it('with the default cooldown (30 s) the same flood costs no fetch at all after warm-up', async () => {
      const store = makeStore({ cooldownMs: DEFAULTS.jwksCooldownMs });
      await store.prefetch();
      const errors = await Promise.all(Array.from({ length: 500 }, () => rejection(store.getKey(randomUUID()))));
      expect(server.requests).toBe(1);
      expect(errors[0]?.detail).toMatch(/; next refresh allowed in 30 s$/);
    });
  });

  describe('rotation and freshness', () => {
    it('rotation mid-traffic: a new kid is picked up after the cooldown, the retired one stops after the next refresh', async () => {
      server.jwks = jwks(A);
      const cooldownMs = 400;
      const maxAgeMs = 600;
      const store = makeStore({ cooldownMs, maxAgeMs });
      await store.prefetch();
      let served = 0;
      const refused: DualAuthError[] = [];
      /** A request for the old kid every 5 ms of clock, for `ms` or until one is refused. */
      const traffic = async (ms: number): Promise<void> => {
        for (let elapsed = 0; elapsed < ms && refused.length === 0; elapsed += 5) {
          clock.advance(5);
          try {
            await store.getKey(A.kid);
            served++;
          } catch (error) {
            refused.push(error as DualAuthError);
          }
          // A refresh started behind a request ends before the next one, as it does with an IdP that answers.
          if (store.describe().refreshing) await refreshEnded(store);
        }
      };

      server.jwks = jwks(A, B); // the IdP publishes its next key next to the current one
      const early = await rejection(store.getKey(B.kid));
      expect(early.detail).toBe(`No key for kid "key-b" in the JWKS at ${server.url}; next refresh allowed in 1 s`);
      await traffic(cooldownMs);
      sameKey(await store.getKey(B.kid), B);

      expect(refused).toEqual([]);
      server.jwks = jwks(B); // ...then retires the old one
      await traffic(2 * maxAgeMs);

      // The set loaded for key-b at 400 ms is refreshed at 1 000 ms; the request after that is refused.
      expect(clock.now()).toBe(cooldownMs + maxAgeMs + 5);
      expect(served).toBe((cooldownMs + maxAgeMs) / 5);
      expect(refused).toHaveLength(1);
      expect(refused[0]?.code).toBe('ERR_KID_UNKNOWN');
      expect(refused[0]?.detail).toBe(
        `No key for kid "key-a" in the JWKS at ${server.url}; next refresh allowed in 1 s`,
      );
      expect(store.getKey(B.kid)).not.toBeInstanceOf(Promise);
      expect(
        events.filter((event) => event.type === 'jwks-refreshed').map((event) => 'kids' in event && event.kids),
      ).toEqual([[A.kid], [A.kid, B.kid], [B.kid]]);
    });

    it('a set older than maxAgeMs is refreshed behind the request that notices: nobody waits for the IdP', async () => {
      const store = makeStore({ maxAgeMs: 150, cooldownMs: 50 });
      await store.prefetch();
      clock.advance(170);
      expect(store.getKey(A.kid)).not.toBeInstanceOf(Promise);
      expect(store.describe()).toMatchObject({ status: 'stale', refreshing: true });
      expect(store.getKey(A.kid)).not.toBeInstanceOf(Promise);
      await refreshEnded(store);
      expect(server.requests).toBe(2);
      expect(store.describe()).toMatchObject({ status: 'fresh', fetches: { started: 2, succeeded: 2, failed: 0 } });
    });

    it('at exactly maxAgeMs the known key still answers synchronously while a background refresh starts; the new set is fresh for maxAgeMs again', async () => {
      const maxAgeMs = 10_000;
      const store = makeStore({ maxAgeMs });
      await store.prefetch();
      const loaded = store.getKey(A.kid);

      clock.advance(maxAgeMs - 1);
      expect(store.getKey(A.kid)).toBe(loaded);
      expect(store.describe()).toMatchObject({ status: 'fresh', refreshing: false });

      clock.advance(1);
      expect(store.getKey(A.kid)).toBe(loaded);
      expect(store.describe()).toMatchObject({ status: 'stale', refreshing: true });
      expect(store.getKey(A.kid)).toBe(loaded);
      await refreshEnded(store);
      const refreshed = store.getKey(A.kid);
      expect(refreshed).not.toBeInstanceOf(Promise);
      expect(refreshed).not.toBe(loaded);
      sameKey(refreshed as KeyObject, A);
      expect(server.requests).toBe(2);

      clock.advance(maxAgeMs - 1);
      expect(store.getKey(A.kid)).toBe(refreshed);
      expect(store.describe()).toMatchObject({ status: 'fresh', refreshing: false });
      clock.advance(1);
      expect(store.getKey(A.kid)).toBe(refreshed);
      await refreshEnded(store);
      expect(server.requests).toBe(3);
    });

    it('a stale set is refreshed only once the cooldown allows it, and serves known kids meanwhile', async () => {
      const store = makeStore({ maxAgeMs: 100, cooldownMs: 500 });
      await store.prefetch();
      clock.advance(100);
      expect(store.getKey(A.kid)).not.toBeInstanceOf(Promise);
      expect(store.describe()).toMatchObject({ status: 'stale', refreshing: false });
      clock.advance(399);
      expect(store.getKey(A.kid)).not.toBeInstanceOf(Promise);
      expect(store.describe().refreshing).toBe(false);
      clock.advance(1);
      expect(store.getKey(A.kid)).not.toBeInstanceOf(Promise);
      await refreshEnded(store);
      expect(server.requests).toBe(2);
      expect(store.describe().status).toBe('fresh');
    });
  });

  describe("the answer's Cache-Control: max-age", () => {
    const answerWith = (cacheControl: string) => {
      server.mode = {
        kind: 'status',
        status: 200,
        body: JSON.stringify(jwks(A, B)),
        headers: { 'content-type': 'application/json', 'cache-control': cacheControl },
      };
    };

    it('a shorter max-age than maxAgeMs makes the set stale after max-age', async () => {
      answerWith('public, max-age=5');
      const store = makeStore();
      await store.prefetch();
      clock.advance(4_999);
      expect(store.describe().status).toBe('fresh');
      clock.advance(1);
      expect(store.describe().status).toBe('stale');
    });

    it('is kept within the operator bounds: never fresher than maxAgeMs, never staler than the cooldown', async () => {
      answerWith('max-age=86400');
      const long = makeStore();
      await long.prefetch();
      clock.advance(OPTIONS.maxAgeMs);
      expect(long.describe().status).toBe('stale');
      answerWith('no-cache');
      const short = makeStore();
      await short.prefetch();
      clock.advance(COOLDOWN - 1);
      expect(short.describe().status).toBe('fresh');
      clock.advance(1);
      expect(short.describe().status).toBe('stale');
    });
  });

  describe('outage after a good fetch', () => {
    const outages: [string, (s: JwksServer) => Promise<void> | void, string, (uri: string) => string][] = [
      ['port closed', (s) => s.stop(), 'ERR_JWKS_UNREACHABLE', (u) => unreachable(u, 'ECONNREFUSED')],
      [
        'connection reset',
        (s) => void (s.mode = { kind: 'reset' }),
        'ERR_JWKS_UNREACHABLE',
        (u) => unreachable(u, 'ECONNRESET'),
      ],
      [
        'HTTP 503',
        (s) => void (s.mode = { kind: 'status', status: 503 }),
        'ERR_JWKS_INVALID',
        (u) => invalid(u, 'HTTP 503'),
      ],
      ['hanging', (s) => void (s.mode = { kind: 'hang' }), 'ERR_JWKS_TIMEOUT', timedOut],
      [
        'HTML page',
        (s) => void (s.mode = { kind: 'body', body: '<html></html>', contentType: 'text/html' }),
        'ERR_JWKS_INVALID',
        (u) => invalid(u, 'not JSON (content-type "text/html")'),
      ],
      [
        'JSON without keys',
        (s) => void (s.mode = { kind: 'body', body: '{}' }),
        'ERR_JWKS_INVALID',
        (u) => invalid(u, 'not a JWKS (no "keys" array)'),
      ],
      [
        'empty key set',
        (s) => void (s.jwks = { keys: [] }),
        'ERR_JWKS_INVALID',
        (u) => invalid(u, 'no usable signing keys for RS256 (0 keys in the set)'),
      ],
      [
        'only unusable keys',
        (s) => void (s.jwks = { keys: [{ kty: 'oct', kid: 'h', k: 'c2VjcmV0' }] }),
        'ERR_JWKS_INVALID',
        (u) => invalid(u, 'no usable signing keys for RS256 (1 key in the set)'),
      ],
      [
        'oversized',
        (s) => void (s.mode = { kind: 'oversized', bytes: 2_000_000 }),
        'ERR_JWKS_INVALID',
        (u) => invalid(u, 'larger than 524288 bytes'),
      ],
    ];

    it.each(outages)(
      '%s: known kids keep working, an unknown kid is refused naming the outage',
      async (_name, breakIt, code, cause) => {
        const store = makeStore({ timeoutMs: code === 'ERR_JWKS_TIMEOUT' ? TIMEOUT : OPTIONS.timeoutMs });
        await store.prefetch();
        await breakIt(server);
        clock.advance(COOLDOWN);
        const uri = server.url;

        expect(store.getKey(A.kid)).not.toBeInstanceOf(Promise);
        const first = await rejection(store.getKey('new-kid'));
        expect(first.code).toBe('ERR_KID_UNKNOWN');
        expect(first.detail).toBe(
          `No key for kid "new-kid" in the JWKS at ${uri}; refreshing the key set failed: ${cause(uri)}`,
        );
        const second = await rejection(store.getKey('other-kid'));
        expect(second.detail).toBe(
          `No key for kid "other-kid" in the JWKS at ${uri}; refreshing the key set failed: ${cause(uri)}; next refresh allowed in 1 s`,
        );
        expect(store.getKey(A.kid)).not.toBeInstanceOf(Promise);

        expect(events.at(-1)).toEqual({
          type: 'jwks-refresh-failed',
          jwksUri: uri,
          code,
          message: cause(uri),
          servingStale: true,
          durationMs: expect.any(Number),
        });
        expect(store.describe()).toMatchObject({
          status: 'fresh',
          kids: [A.kid, B.kid],
          lastError: { code, message: cause(uri) },
          fetches: { started: 2, succeeded: 1, failed: 1 },
        });
      },
    );

    it('past maxAgeMs, known kids are served stale while refreshes fail, and the IdP is tried once per cooldown only', async () => {
      const store = makeStore({ maxAgeMs: 100, cooldownMs: 100 });
      await store.prefetch();
      await server.stop();
      clock.advance(100);
      // A request every 5 ms for 300 ms; a refresh started behind one ends before the next.
      for (let i = 0; i < 60; i++) {
        expect(store.getKey(A.kid)).not.toBeInstanceOf(Promise);
        if (store.describe().refreshing) await refreshEnded(store);
        clock.advance(5);
      }
      // At 100, 200 and 300 ms: each attempt a cooldown after the previous one.
      expect(store.describe().fetches.started - 1).toBe(3);
      expect(store.describe()).toMatchObject({ status: 'stale', lastError: { code: 'ERR_JWKS_UNREACHABLE' } });
      expect(events.filter((event) => event.type === 'jwks-refresh-failed')).toContainEqual(
        expect.objectContaining({ servingStale: true, message: unreachable(server.url, 'ECONNREFUSED') }),
      );
    });

    it('stops serving the last good set after maxAgeMs + staleIfErrorMs, refusing with the cause; recovers when the IdP does', async () => {
      const store = makeStore({ maxAgeMs: 100, staleIfErrorMs: 200, cooldownMs: 50 });
      await store.prefetch();
      server.mode = { kind: 'status', status: 503 };
      clock.advance(150);
      expect(store.getKey(A.kid)).not.toBeInstanceOf(Promise);
      await refreshEnded(store);
      clock.advance(200);

      const error = await rejection(store.getKey(A.kid));
      expect(error.code).toBe('ERR_JWKS_INVALID');
      expect(error.detail).toBe(invalid(server.url, 'HTTP 503'));
      expect(store.describe().status).toBe('expired');
      expect(events.at(-1)).toMatchObject({ type: 'jwks-refresh-failed', servingStale: false });
      const atOnce = store.getKey(A.kid);
      expect(await settlesAtOnce(atOnce)).toBe(true);
      expect((await rejection(atOnce)).detail).toBe(invalid(server.url, 'HTTP 503'));

      server.mode = { kind: 'ok' };
      clock.advance(50);
      sameKey(await store.getKey(A.kid), A);
      expect(store.describe()).toMatchObject({ status: 'fresh', lastError: undefined });
    });

    it('the stale-if-error window ends exactly at maxAgeMs + staleIfErrorMs: from then on every kid is refused with the outage', async () => {
      const store = makeStore({ maxAgeMs: 2_000, staleIfErrorMs: 1_000, cooldownMs: 1_500 });
      await store.prefetch();
      await server.stop();
      clock.advance(2_000);
      expect(store.getKey(A.kid)).not.toBeInstanceOf(Promise);
      await refreshEnded(store); // failed at 2 000 ms: the next attempt is allowed at 3 500 ms, past the window's end

      clock.advance(999);
      expect(store.getKey(A.kid)).not.toBeInstanceOf(Promise);
      expect(store.describe()).toMatchObject({ status: 'stale', refreshing: false });

      clock.advance(1);
      const known = store.getKey(A.kid);
      const unknown = store.getKey('new-kid');
      expect(await settlesAtOnce(Promise.allSettled([known, unknown]))).toBe(true);
      for (const error of [await rejection(known), await rejection(unknown)]) {
        expect(error.code).toBe('ERR_JWKS_UNREACHABLE');
        expect(error.detail).toBe(unreachable(server.url, 'ECONNREFUSED'));
      }
      expect(store.describe()).toMatchObject({
        status: 'expired',
        kids: [A.kid, B.kid],
        fetches: { started: 2, succeeded: 1, failed: 1 },
      });
    });
  });

  describe('no good key set at all', () => {
    it('IdP down from the start: refused with the cause, fast; no new attempt before the cooldown; recovers after', async () => {
      await server.stop();
      const store = makeStore();
      const watch = watchLateness();
      const started = performance.now();
      const first = await rejection(store.getKey(A.kid));
      const firstMs = performance.now() - started;
      const lateMs = watch.stop();
      expect(first.code).toBe('ERR_JWKS_UNREACHABLE');
      expect(first.detail).toBe(unreachable(server.url, 'ECONNREFUSED'));
      expect(firstMs).toBeLessThan(TIMEOUT + lateMs);

      const burst = Array.from({ length: 100 }, () => store.getKey(A.kid));
      expect(await settlesAtOnce(Promise.allSettled(burst))).toBe(true);
      const rest = await Promise.all(burst.map(rejection));
      expect(new Set(rest.map((error) => error.detail))).toEqual(new Set([unreachable(server.url, 'ECONNREFUSED')]));
      expect(store.describe().fetches.started).toBe(1);
      expect(events).toEqual([
        {
          type: 'jwks-refresh-failed',
          jwksUri: server.url,
          code: 'ERR_JWKS_UNREACHABLE',
          message: first.detail,
          servingStale: false,
          durationMs: expect.any(Number),
        },
      ]);

      const warmUp = await rejection(store.prefetch());
      expect(warmUp.detail).toBe(first.detail);

      await server.start();
      clock.advance(COOLDOWN - 1);
      expect((await rejection(store.getKey(A.kid))).detail).toBe(first.detail);
      expect(store.describe().fetches.started).toBe(2);
      clock.advance(1);
      sameKey(await store.getKey(A.kid), A);
      console.info(
        `[figures] IdP down (connection refused) from the start: first request refused after ${firstMs.toFixed(1)} ms`,
      );
    });

    it('IdP hanging from the start: concurrent requests share one attempt and are refused with ERR_JWKS_TIMEOUT at timeoutMs', async () => {
      server.mode = { kind: 'hang' };
      const store = makeStore({ timeoutMs: TIMEOUT });
      const watch = watchLateness();
      const started = performance.now();
      const errors = await Promise.all(Array.from({ length: 50 }, () => rejection(store.getKey(A.kid))));
      const elapsed = performance.now() - started;
      const lateMs = watch.stop();
      expect(server.requests).toBe(1);
      for (const error of errors) {
        expect(error.code).toBe('ERR_JWKS_TIMEOUT');
        expect(error.detail).toBe(timedOut(server.url));
      }
      expect(elapsed).toBeGreaterThanOrEqual(TIMEOUT - 5);
      expect(elapsed).toBeLessThan(TIMEOUT + 700 + lateMs);
      const next = store.getKey(A.kid);
      expect(await settlesAtOnce(next)).toBe(true);
      expect((await rejection(next)).code).toBe('ERR_JWKS_TIMEOUT');
      expect(server.requests).toBe(1);
      console.info(
        `[figures] IdP hanging, timeoutMs ${TIMEOUT}: 50 concurrent requests refused after ${elapsed.toFixed(1)} ms, 1 fetch; the next one at once`,
      );
    });

    it('garbage from the start is ERR_JWKS_INVALID naming what was wrong', async () => {
      server.mode = { kind: 'body', body: '<!doctype html><title>Maintenance</title>', contentType: 'text/html' };
      const error = await rejection(makeStore().getKey(A.kid));
      expect(error.code).toBe('ERR_JWKS_INVALID');
      expect(error.detail).toBe(invalid(server.url, 'not JSON (content-type "text/html")'));
    });
  });

  it('malformed individual keys are skipped and counted; the rest of the set loads', async () => {
    server.jwks = {
      keys: [
        A.jwk,
        { kty: 'RSA', kid: 'broken', n: '!!', e: 'AQAB' },
        null,
        { kty: 'oct', kid: 'hmac', k: 'c2VjcmV0' },
        { ...B.jwk, use: 'enc' },
        B.jwk,
      ],
    };
    const store = makeStore();
    await store.prefetch();
    expect(store.describe()).toMatchObject({ kids: [A.kid, B.kid], skippedKeys: 4 });
    expect(events).toEqual([
      { type: 'jwks-refreshed', jwksUri: server.url, kids: [A.kid, B.kid], skipped: 4, durationMs: expect.any(Number) },
    ]);
  });

  describe('close()', () => {
    it('aborts an in-flight fetch at once, leaves no timer, reports nothing, and fetches no more', async () => {
      server.mode = { kind: 'hang' };
      const store = makeStore({ timeoutMs: 10_000 });
      const baseline = timeouts();
      const pending = rejection(store.prefetch());
      await server.received(1);
      const watch = watchLateness();
      const started = performance.now();
      store.close();
      const error = await pending;
      expect(performance.now() - started).toBeLessThan(100 + watch.stop());
      expect(error.code).toBe('ERR_JWKS_UNREACHABLE');
      expect(error.detail).toBe(unreachable(server.url, 'key store closed'));
      expect(timeouts()).toBeLessThanOrEqual(baseline);

      expect((await rejection(store.getKey('any'))).detail).toBe(unreachable(server.url, 'key store closed'));
      expect((await rejection(store.prefetch())).detail).toBe(unreachable(server.url, 'key store closed'));
      expect(server.requests).toBe(1);
      expect(events).toEqual([]);
      expect(store.describe()).toMatchObject({ closed: true, refreshing: false });
    });

    it('during a discovery refresh, also ends the key set fetch that the last discovered URL would start', async () => {
      const issuerServer = await startJwksServer();
      try {
        const issuer = new URL(issuerServer.url).origin;
        issuerServer.mode = { kind: 'body', body: JSON.stringify({ issuer, jwks_uri: server.url }) };
        const store = makeStore({ jwksUri: { discoverFrom: issuer }, timeoutMs: 10_000 });
        await store.prefetch();
        // Both the discovered URL and the keys are stale, still servable: an unknown kid waits for the refresh.
        clock.advance(OPTIONS.maxAgeMs);
        issuerServer.mode = { kind: 'hang' };
        server.mode = { kind: 'hang' };
        const pending = rejection(store.getKey('unknown'));
        await issuerServer.received(2);
        const watch = watchLateness();
        const started = performance.now();
        store.close();
        const error = await pending;
        expect(performance.now() - started).toBeLessThan(100 + watch.stop());
        expect(error.detail).toMatch(/refreshing the key set failed: .* key store closed$/);
        expect(server.requests).toBe(1);
      } finally {
        await issuerServer.close();
      }
    });

    it('keeps answering fresh known keys, which needs no timer or socket', async () => {
      const store = makeStore();
      await store.prefetch();
      store.close();
      sameKey(store.getKey(A.kid) as KeyObject, A);
    });
  });

  // The proxy is read from the environment, as the hook reads it; the IdP is never reached, so its name is made up.
  describe('behind an egress proxy that stalls (HTTPS_PROXY)', () => {
    const ISSUER = 'https://idp.example';
    const JWKS_URI = `${ISSUER}/.well-known/jwks.json`;
    const DOCUMENT = `${ISSUER}/.well-known/openid-configuration`;
    const sources = [
      [
        'the JWKS URL',
        JWKS_URI,
        `JWKS request to ${JWKS_URI} timed out after ${TIMEOUT} ms`,
        unreachable(JWKS_URI, 'key store closed'),
      ],
      [
        'discovery',
        { discoverFrom: ISSUER },
        `The discovery document of issuer "${ISSUER}" (${DOCUMENT}) did not answer within ${TIMEOUT} ms`,
        `The discovery document of issuer "${ISSUER}" (${DOCUMENT}) is unreachable: key store closed`,
      ],
    ] as const;
    const modes: ReadonlyArray<readonly [string, ConnectMode]> = [
      ['never answers CONNECT', { kind: 'silent' }],
      ['answers 200 and never starts TLS', { kind: 'no-tls' }],
    ];

    let proxy: ProxyServer;
    beforeAll(async () => {
      proxy = await startProxyServer();
    });
    afterAll(() => proxy.close());
    beforeEach(() => {
      vi.stubEnv('HTTPS_PROXY', proxy.url);
    });
    afterEach(() => {
      vi.unstubAllEnvs();
    });

    function sockets(): number {
      return process.getActiveResourcesInfo().filter((name) => name === 'TCPSocketWrap' || name === 'TLSWrap').length;
    }

    describe.each(sources)('%s', (source, jwksUri, timedOutDetail, closedDetail) => {
      it.each(modes)(
        'a proxy that %s: every waiting request is refused with ERR_JWKS_TIMEOUT at timeoutMs, over one CONNECT',
        async (modeName, mode) => {
          proxy.connectMode = mode;
          const tunnels = proxy.tunnels.length;
          const store = makeStore({ jwksUri, timeoutMs: TIMEOUT });
          const watch = watchLateness();
          const started = performance.now();
          const errors = await Promise.all(Array.from({ length: 50 }, () => rejection(store.getKey(A.kid))));
          const elapsed = performance.now() - started;
          const lateMs = watch.stop();
          for (const error of errors) expect(error).toMatchObject({ code: 'ERR_JWKS_TIMEOUT', detail: timedOutDetail });
          expect(elapsed).toBeGreaterThanOrEqual(TIMEOUT - 5);
          expect(elapsed).toBeLessThan(TIMEOUT + 700 + lateMs);
          // One CONNECT for all 50; none only when this process ran so late that the deadline's timer came before the
          // proxy (in this process) read the CONNECT.
          const connects = proxy.tunnels.length - tunnels;
          expect(connects).toBe(connects === 0 && lateMs >= TIMEOUT / 2 ? 0 : 1);
          await proxy.idle();
          console.info(
            `[figures] ${source}, proxy that ${modeName}, timeoutMs ${TIMEOUT}: 50 waiting requests refused after ${elapsed.toFixed(1)} ms, 1 CONNECT`,
          );
        },
      );

      it.each(modes)(
        'close() while the proxy %s: every waiting request settles at once, no socket or timer is left',
        async (modeName, mode) => {
          proxy.connectMode = mode;
          const baseline = { timers: timeouts(), sockets: sockets() };
          const store = makeStore({ jwksUri, timeoutMs: 10_000 });
          const pending = Promise.all(Array.from({ length: 20 }, () => rejection(store.getKey(A.kid))));
          await proxy.connected(proxy.tunnels.length + 1);
          const watch = watchLateness();
          const started = performance.now();
          store.close();
          const errors = await pending;
          const settledMs = performance.now() - started;
          expect(settledMs).toBeLessThan(100 + watch.stop());
          for (const error of errors)
            expect(error).toMatchObject({ code: 'ERR_JWKS_UNREACHABLE', detail: closedDetail });
          expect(timeouts()).toBeLessThanOrEqual(baseline.timers);
          await proxy.idle();
          expect(sockets()).toBeLessThanOrEqual(baseline.sockets);
          expect(store.describe()).toMatchObject({ closed: true, refreshing: false });
          console.info(
            `[figures] ${source}, close() while the proxy ${modeName}: 20 waiting requests settled after ${settledMs.toFixed(1)} ms`,
          );
        },
      );
    });
  });
});
