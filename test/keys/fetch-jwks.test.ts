import { createServer } from 'node:https';
import { checkServerIdentity } from 'node:tls';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DualAuthError } from '../../src/errors';
import { fetchJwks, type FetchJwksOptions } from '../../src/keys/fetch-jwks';
import { startJwksServer, type JwksServer } from '../support/jwks-server';
import { generateKeyPair, jwks, type TestKeyPair } from '../support/keys';
import { startProxyServer, type ProxyServer } from '../support/proxy-server';
import { loopbackCertificate, runInFreshNode } from '../support/tls';
import { watchLateness } from '../support/lateness';

/** A deadline no busy machine reaches for a server that answers (docs/development.md#timing-dependent-tests). */
const LIMITS: FetchJwksOptions = { timeoutMs: 10_000, maxResponseBytes: 524_288 };
/** The deadline the tests of a server or proxy that never answers wait for. */
const DEADLINE: FetchJwksOptions = { ...LIMITS, timeoutMs: 300 };

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
async function failureOf(
  options: FetchJwksOptions = LIMITS,
): Promise<{ error: DualAuthError; ms: number; lateMs: number }> {
  const watch = watchLateness();
  const started = performance.now();
  const error = await fetchJwks(server.url, options).then(
    () => expect.fail('the fetch should have failed'),
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(DualAuthError);
  return { error: error as DualAuthError, ms: performance.now() - started, lateMs: watch.stop() };
}

function timeouts(): number {
  return process.getActiveResourcesInfo().filter((name) => name === 'Timeout').length;
}

describe('fetchJwks', () => {
  it('returns the key set document', async () => {
    expect(await fetchJwks(server.url, LIMITS)).toEqual({ document: jwks(key), maxAgeMs: undefined });
  });

  it('waits for a slow answer that is within the deadline', async () => {
    server.mode = { kind: 'slow', delayMs: 100 };
    expect((await fetchJwks(server.url, LIMITS)).document).toEqual(jwks(key));
  });

  describe('garbage answers are ERR_JWKS_INVALID, naming what was wrong', () => {
    it.each([
      ['HTTP 503', { kind: 'status', status: 503, body: 'upstream down' }, 'HTTP 503'],
      ['HTTP 404', { kind: 'status', status: 404 }, 'HTTP 404'],
      [
        'a redirect',
        { kind: 'status', status: 302, headers: { location: 'https://attacker.example/jwks' } },
        'HTTP 302 (redirects are not followed: configure the final URL)',
      ],
      [
        'an HTML login page',
        { kind: 'body', body: '<html><body>Sign in</body></html>', contentType: 'text/html; charset=utf-8' },
        'not JSON (content-type "text/html; charset=utf-8")',
      ],
      [
        'non-JSON labelled JSON',
        { kind: 'body', body: '{"keys": [', contentType: 'application/json' },
        'not JSON (content-type "application/json")',
      ],
      ['JSON without keys', { kind: 'body', body: '{"issuer":"https://idp.example"}' }, 'not a JWKS (no "keys" array)'],
      [
        'keys nested 100,000 deep',
        { kind: 'body', body: `{"keys":${'['.repeat(100_000)}${']'.repeat(100_000)}}` },
        'refused: it nests deeper than 64 levels (the limit)',
      ],
      ['keys that is not an array', { kind: 'body', body: '{"keys":{"kid":"k1"}}' }, 'not a JWKS (no "keys" array)'],
      ['JSON null', { kind: 'body', body: 'null' }, 'not a JWKS (no "keys" array)'],
      ['an empty body', { kind: 'body', body: '' }, 'not JSON (content-type "application/json")'],
      [
        'a body over the limit, with Content-Length',
        { kind: 'body', body: JSON.stringify({ keys: [], pad: 'x'.repeat(600_000) }) },
        'larger than 524288 bytes',
      ],
      ['a body over the limit, streamed', { kind: 'oversized', bytes: 2_000_000 }, 'larger than 524288 bytes'],
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
      const { error, ms, lateMs } = await failureOf(DEADLINE);
      expect(error.code).toBe('ERR_JWKS_UNREACHABLE');
      expect(error.detail).toBe(`JWKS URL ${server.url} unreachable: ECONNREFUSED`);
      expect(ms).toBeLessThan(DEADLINE.timeoutMs + lateMs);
    } finally {
      await server.start();
    }
  });

  it('a server that never answers is ERR_JWKS_TIMEOUT at the deadline, and leaves no timer behind', async () => {
    server.mode = { kind: 'hang' };
    const before = timeouts();
    const { error, ms, lateMs } = await failureOf(DEADLINE);
    expect(error.code).toBe('ERR_JWKS_TIMEOUT');
    expect(error.detail).toBe(`JWKS request to ${server.url} timed out after 300 ms`);
    expect(ms).toBeGreaterThanOrEqual(295);
    expect(ms).toBeLessThan(1_000 + lateMs);
    expect(timeouts()).toBeLessThanOrEqual(before);
  });

  it('the deadline covers the body: a server that trickles bytes (never idle) still times out', async () => {
    server.mode = { kind: 'drip', intervalMs: 10 };
    const { error, ms, lateMs } = await failureOf(DEADLINE);
    expect(error.code).toBe('ERR_JWKS_TIMEOUT');
    expect(ms).toBeLessThan(1_000 + lateMs);
  });

  it('aborting ends the request at once', async () => {
    server.mode = { kind: 'hang' };
    const abort = new AbortController();
    const before = server.requests;
    const pending = failureOf({ ...LIMITS, timeoutMs: 10_000, signal: abort.signal });
    // Aborted once the request is under way, so the abort ends a request and does not race its start.
    await server.received(before + 1);
    abort.abort();
    const { error, ms, lateMs } = await pending;
    expect(error.code).toBe('ERR_JWKS_UNREACHABLE');
    expect(error.detail).toBe(`JWKS URL ${server.url} unreachable: key store closed`);
    expect(ms).toBeLessThan(500 + lateMs);
  });
});

describe("fetchJwks: the answer's Cache-Control", () => {
  it.each([
    ['public, max-age=300', 300_000],
    ['max-age="60", must-revalidate', 60_000],
    ['no-store', 0],
    ['private, no-cache', 0],
    ['public', undefined],
  ])('%s gives a lifetime of %s ms', async (cacheControl, maxAgeMs) => {
    server.mode = {
      kind: 'status',
      status: 200,
      body: JSON.stringify(jwks(key)),
      headers: { 'content-type': 'application/json', 'cache-control': cacheControl },
    };
    expect(await fetchJwks(server.url, LIMITS)).toEqual({ document: jwks(key), maxAgeMs });
  });
});

describe('fetchJwks through the proxy the environment names', () => {
  let proxy: ProxyServer;
  beforeAll(async () => {
    proxy = await startProxyServer();
  });
  afterAll(() => proxy.close());

  it('sends an http JWKS request through HTTP_PROXY', async () => {
    const before = proxy.forwarded.length;
    const answer = await fetchJwks(server.url, { ...LIMITS, env: { HTTP_PROXY: proxy.url } });
    expect(answer.document).toEqual(jwks(key));
    expect(proxy.forwarded.slice(before)).toEqual([server.url]);
  });

  it('connects directly to a host NO_PROXY lists', async () => {
    const before = proxy.forwarded.length;
    const requests = server.requests;
    await fetchJwks(server.url, { ...LIMITS, env: { http_proxy: proxy.url, no_proxy: 'idp.example, 127.0.0.1' } });
    expect(proxy.forwarded.length - before).toBe(0);
    expect(server.requests - requests).toBe(1);
  });

  it('connects directly to an IPv6 literal that NO_PROXY names without brackets, as curl writes it', async () => {
    const v6 = await startJwksServer(jwks(key), '::1');
    try {
      const before = proxy.forwarded.length;
      const answer = await fetchJwks(v6.url, {
        ...LIMITS,
        env: { HTTP_PROXY: proxy.url, NO_PROXY: 'idp.example,::1' },
      });
      expect(answer.document).toEqual(jwks(key));
      expect(proxy.forwarded.length - before).toBe(0);
      expect(v6.requests).toBe(1);
    } finally {
      await v6.close();
    }
  });

  it('reports an unreachable proxy as the JWKS URL being unreachable, with the cause', async () => {
    const { error } = await failureOf({ ...LIMITS, env: { HTTP_PROXY: 'http://127.0.0.1:9' } });
    expect(error).toMatchObject({
      code: 'ERR_JWKS_UNREACHABLE',
      detail: `JWKS URL ${server.url} unreachable: ECONNREFUSED`,
    });
  });

  // An https JWKS goes through a CONNECT tunnel with TLS verified end to end. The certificate is made for this run and
  // trusted through NODE_EXTRA_CA_CERTS, which Node reads at start, so the fetch runs in a child process (the build).
  describe('https through HTTPS_PROXY (CONNECT)', () => {
    let tls: { url: string; caFile: string; close: () => Promise<void> };
    beforeAll(async () => {
      tls = await startHttpsJwksServer(jwks(key));
    });
    afterAll(() => tls.close());

    it('tunnels to the JWKS and verifies its certificate', async () => {
      const before = proxy.tunnels.length;
      const answer = await fetchInChild(tls.url, { HTTPS_PROXY: proxy.url, NODE_EXTRA_CA_CERTS: tls.caFile });
      expect(answer).toEqual({ document: jwks(key), maxAgeMs: 120_000 });
      expect(proxy.tunnels.slice(before)).toEqual([new URL(tls.url).host]);
    });

    it('tunnels to an IPv6 literal and verifies the certificate against that address, as Node checks one', async () => {
      const v6 = await startHttpsJwksServer(jwks(key), '::1');
      try {
        const before = proxy.tunnels.length;
        const answer = await fetchInChild(v6.url, { HTTPS_PROXY: proxy.url, NODE_EXTRA_CA_CERTS: v6.caFile });
        // Node 22.23 matches no IPv6 address of a certificate (its own https fails alike); 20 and 24 match this one.
        const nodeRefuses = checkServerIdentity('::1', {
          subjectaltname: 'IP Address:0:0:0:0:0:0:0:1',
          subject: {},
        } as never);
        expect(answer).toEqual(
          nodeRefuses === undefined
            ? { document: jwks(key), maxAgeMs: 120_000 }
            : { code: 'ERR_JWKS_UNREACHABLE', detail: `JWKS URL ${v6.url} unreachable: ERR_TLS_CERT_ALTNAME_INVALID` },
        );
        expect(proxy.tunnels.slice(before)).toEqual([new URL(v6.url).host]);
      } finally {
        await v6.close();
      }
    });

    it('refuses a certificate it does not trust, through the tunnel too', async () => {
      const answer = await fetchInChild(tls.url, { HTTPS_PROXY: proxy.url });
      expect(answer).toMatchObject({
        code: 'ERR_JWKS_UNREACHABLE',
        detail: expect.stringMatching(
          /unreachable: (DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT_IN_CHAIN|UNABLE_TO_VERIFY_LEAF_SIGNATURE)$/,
        ),
      });
    });

    // These fetches never get as far as the certificate, so they run here: the deadline must end them first.
    describe('the deadline covers the proxy and the TLS handshake through it', () => {
      afterEach(() => {
        proxy.connectMode = { kind: 'tunnel' };
      });

      it.each([
        ['accepts CONNECT and never answers', { kind: 'silent' }],
        ['answers 200 and never starts TLS', { kind: 'no-tls' }],
        ['answers CONNECT only after the deadline', { kind: 'slow', delayMs: 1_500 }],
      ] as const)(
        'a proxy that %s: ERR_JWKS_TIMEOUT at the deadline, the connection closed, no timer left',
        async (_name, mode) => {
          proxy.connectMode = mode;
          const before = timeouts();
          const watch = watchLateness();
          const started = performance.now();
          const error = await fetchJwks(tls.url, { ...DEADLINE, env: { HTTPS_PROXY: proxy.url } }).then(
            () => expect.fail('the fetch should have failed'),
            (e: unknown) => e as DualAuthError,
          );
          const ms = performance.now() - started;
          const lateMs = watch.stop();
          expect(error).toMatchObject({
            code: 'ERR_JWKS_TIMEOUT',
            detail: `JWKS request to ${tls.url} timed out after 300 ms`,
          });
          expect(ms).toBeGreaterThanOrEqual(295);
          expect(ms).toBeLessThan(1_000 + lateMs);
          await proxy.idle();
          expect(timeouts()).toBeLessThanOrEqual(before);
        },
      );

      it('aborting during a CONNECT the proxy never answers ends it at once and closes the connection', async () => {
        proxy.connectMode = { kind: 'silent' };
        const abort = new AbortController();
        const tunnels = proxy.tunnels.length;
        const pending = fetchJwks(tls.url, {
          ...LIMITS,
          timeoutMs: 10_000,
          signal: abort.signal,
          env: { HTTPS_PROXY: proxy.url },
        }).then(
          () => expect.fail('the fetch should have failed'),
          (e: unknown) => e as DualAuthError,
        );
        await proxy.connected(tunnels + 1);
        const watch = watchLateness();
        const started = performance.now();
        abort.abort();
        expect(await pending).toMatchObject({
          code: 'ERR_JWKS_UNREACHABLE',
          detail: `JWKS URL ${tls.url} unreachable: key store closed`,
        });
        expect(performance.now() - started).toBeLessThan(100 + watch.stop());
        await proxy.idle();
      });
    });
  });
});

/** A JWKS over https on a loopback address, with a self-signed certificate for that address made for this run. */
async function startHttpsJwksServer(
  document: object,
  host: '127.0.0.1' | '::1' = '127.0.0.1',
): Promise<{ url: string; caFile: string; close: () => Promise<void> }> {
  const certificate = await loopbackCertificate(host);
  const server = createServer({ key: certificate.key, cert: certificate.cert }, (_request, response) => {
    response
      .writeHead(200, { 'content-type': 'application/json', 'cache-control': 'max-age=120' })
      .end(JSON.stringify(document));
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `https://${host === '::1' ? '[::1]' : host}:${port}/jwks`,
    caFile: certificate.caFile,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
        certificate.remove();
      }),
  };
}

/** fetchJwks of the build (dist/, made by `npm test`) in a fresh Node with this environment: the answer or the failure. */
async function fetchInChild(url: string, env: Record<string, string>): Promise<unknown> {
  const script = `require('./dist/keys/fetch-jwks.js').fetchJwks(${JSON.stringify(url)}, { timeoutMs: 5000, maxResponseBytes: 524288 })
    .then((answer) => console.log(JSON.stringify(answer)), (error) => console.log(JSON.stringify({ code: error.code, detail: error.detail })));`;
  return JSON.parse(await runInFreshNode(script, env));
}
