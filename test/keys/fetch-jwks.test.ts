import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DualAuthError } from '../../src/errors';
import { fetchJwks, type FetchJwksOptions } from '../../src/keys/fetch-jwks';
import { startJwksServer, type JwksServer } from '../support/jwks-server';
import { generateKeyPair, jwks, type TestKeyPair } from '../support/keys';

const LIMITS: FetchJwksOptions = { timeoutMs: 300, maxResponseBytes: 524_288 };

let server: JwksServer;
let key: TestKeyPair;
beforeAll(async () => {
  key = generateKeyPair('RS256', { kid: 'k1' });
  server = await startJwksServer(jwks(key));
});
afterAll(() => server.close());
beforeEach(() => {
  server.mode = { kind: 'ok' };
});

/** Runs the fetch and returns its failure with how long it took. */
async function failureOf(options: FetchJwksOptions = LIMITS): Promise<{ error: DualAuthError; ms: number }> {
  const started = performance.now();
  const error = await fetchJwks(server.url, options).then(
    () => expect.fail('the fetch should have failed'),
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(DualAuthError);
  return { error: error as DualAuthError, ms: performance.now() - started };
}

function timeouts(): number {
  return process.getActiveResourcesInfo().filter((name) => name === 'Timeout').length;
}

describe('fetchJwks', () => {
  it('returns the key set document', async () => {
    expect(await fetchJwks(server.url, LIMITS)).toEqual(jwks(key));
  });

  it('waits for a slow answer that is within the deadline', async () => {
    server.mode = { kind: 'slow', delayMs: 100 };
    expect(await fetchJwks(server.url, LIMITS)).toEqual(jwks(key));
  });

  describe('garbage answers are ERR_JWKS_INVALID, naming what was wrong', () => {
    it.each([
      ['HTTP 503', { kind: 'status', status: 503, body: 'upstream down' }, 'HTTP 503'],
      ['HTTP 404', { kind: 'status', status: 404 }, 'HTTP 404'],
      ['a redirect', { kind: 'status', status: 302, headers: { location: 'https://attacker.example/jwks' } }, 'HTTP 302 (redirects are not followed: configure the final URL)'],
      ['an HTML login page', { kind: 'body', body: '<html><body>Sign in</body></html>', contentType: 'text/html; charset=utf-8' }, 'not JSON (content-type "text/html; charset=utf-8")'],
      ['non-JSON labelled JSON', { kind: 'body', body: '{"keys": [', contentType: 'application/json' }, 'not JSON (content-type "application/json")'],
      ['JSON without keys', { kind: 'body', body: '{"issuer":"https://idp.example"}' }, 'not a JWKS (no "keys" array)'],
      ['keys that is not an array', { kind: 'body', body: '{"keys":{"kid":"k1"}}' }, 'not a JWKS (no "keys" array)'],
      ['JSON null', { kind: 'body', body: 'null' }, 'not a JWKS (no "keys" array)'],
      ['an empty body', { kind: 'body', body: '' }, 'not JSON (content-type "application/json")'],
      ['a body over the limit, with Content-Length', { kind: 'body', body: JSON.stringify({ keys: [], pad: 'x'.repeat(600_000) }) }, 'larger than 524288 bytes'],
      ['a body over the limit, streamed', { kind: 'oversized', bytes: 20_000_000 }, 'larger than 524288 bytes'],
    ] as const)('%s', async (_name, mode, reason) => {
      server.mode = mode;
      const before = server.requests;
      const { error } = await failureOf();
      expect(error.code).toBe('ERR_JWKS_INVALID');
      expect(error.path).toBe('key-set');
      expect(error.detail).toBe(`JWKS response from ${server.url} is invalid: ${reason}`);
      expect(server.requests - before).toBe(1);
    });
  });

  it('a connection reset is ERR_JWKS_UNREACHABLE', async () => {
    server.mode = { kind: 'reset' };
    const { error } = await failureOf();
    expect(error.code).toBe('ERR_JWKS_UNREACHABLE');
    expect(error.detail).toBe(`JWKS URL ${server.url} unreachable: ECONNRESET`);
  });

  it('a closed port is ERR_JWKS_UNREACHABLE', async () => {
    await server.stop();
    try {
      const { error, ms } = await failureOf();
      expect(error.code).toBe('ERR_JWKS_UNREACHABLE');
      expect(error.detail).toBe(`JWKS URL ${server.url} unreachable: ECONNREFUSED`);
      expect(ms).toBeLessThan(LIMITS.timeoutMs);
    } finally {
      await server.start();
    }
  });

  it('a server that never answers is ERR_JWKS_TIMEOUT at the deadline, and leaves no timer behind', async () => {
    server.mode = { kind: 'hang' };
    const before = timeouts();
    const { error, ms } = await failureOf();
    expect(error.code).toBe('ERR_JWKS_TIMEOUT');
    expect(error.detail).toBe(`JWKS request to ${server.url} timed out after 300 ms`);
    expect(ms).toBeGreaterThanOrEqual(295);
    expect(ms).toBeLessThan(1_000);
    expect(timeouts()).toBeLessThanOrEqual(before);
  });

  it('the deadline covers the body: a server that trickles bytes (never idle) still times out', async () => {
    server.mode = { kind: 'drip', intervalMs: 10 };
    const { error, ms } = await failureOf();
    expect(error.code).toBe('ERR_JWKS_TIMEOUT');
    expect(ms).toBeLessThan(1_000);
  });

  it('aborting ends the request at once', async () => {
    server.mode = { kind: 'hang' };
    const abort = new AbortController();
    const pending = failureOf({ ...LIMITS, timeoutMs: 10_000, signal: abort.signal });
    setTimeout(() => abort.abort(), 50);
    const { error, ms } = await pending;
    expect(error.code).toBe('ERR_JWKS_UNREACHABLE');
    expect(error.detail).toBe(`JWKS URL ${server.url} unreachable: key store closed`);
    expect(ms).toBeLessThan(500);
  });
});
