// The metrics of a real hook (createCheckAuth with `metrics: true`), read as Prometheus reads them from the
// package's `metrics`: what a mix of requests and a key-set fetch records, and that values a caller chooses (a `kid`,
// an `iss`) never become labels, so random tokens add no series.
import { execFileSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCheckAuth, metrics, type CheckAuth } from '../../src';
import { randomSecret } from '../support/claims';
import { generateKeyPair, jwks } from '../support/keys';
import { startJwksServer, type JwksServer } from '../support/jwks-server';
import { base64url, signToken } from '../support/tokens';
import { withEnv } from '../support/cube';

const ISSUER = 'https://idp.example/';
const key = generateKeyPair('RS256');
const secret = randomSecret();
let server: JwksServer;
let checkAuth: CheckAuth;

/** The value of one series in the exposition text, or undefined when the series is absent. */
function valueOf(text: string, series: string): number | undefined {
  const line = text.split('\n').find((candidate) => candidate.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

/** The series of the exposition text: every line that is not a comment. */
function seriesOf(text: string): string[] {
  return text
    .split('\n')
    .filter((line) => line !== '' && !line.startsWith('#'))
    .map((line) => line.slice(0, line.lastIndexOf(' ')));
}

const now = () => Math.floor(Date.now() / 1000);
const serviceToken = () => signToken({ tenant: 'acme', iat: now(), exp: now() + 60 }, { alg: 'HS256', key: secret });
const idpToken = () => signToken({ iss: ISSUER, sub: 'u', iat: now(), exp: now() + 60 }, { key });
/** A key-set token with the caller's choice of `kid` and `iss`, refused before any signature is checked. */
const forged = (kid: string, iss: string) =>
  `${base64url(JSON.stringify({ alg: 'RS256', kid }))}.${base64url(JSON.stringify({ iss }))}.c2ln`;
const service = { headers: { 'request-origin': 'embeddable' } };
const settle = (promise: Promise<unknown>) =>
  promise.then(
    () => 'accepted',
    () => 'refused',
  );

beforeAll(async () => {
  server = await startJwksServer(jwks(key));
  checkAuth = createCheckAuth({
    apiSecret: secret,
    providers: [{ issuer: ISSUER, jwksUri: server.url }],
    metrics: true,
  });
});

afterAll(async () => {
  checkAuth?.close();
  await server?.close();
});

describe('metrics of a hook', () => {
  it('count requests by path and outcome, refusals by code, cache lookups, and the key set fetched for them', async () => {
    const before = await metrics.text();
    const token = serviceToken();
    expect(await settle(checkAuth(service, token))).toBe('accepted');
    expect(await settle(checkAuth(service, token))).toBe('accepted');
    expect(await settle(checkAuth({}, await idpToken()))).toBe('accepted');
    expect(await settle(checkAuth(service, signToken({ tenant: 'acme' }, { alg: 'HS256', key: randomSecret() })))).toBe(
      'refused',
    );
    expect(await settle(checkAuth({}, undefined))).toBe('refused');

    const text = await metrics.text();
    const grew = (series: string) => (valueOf(text, series) ?? 0) - (valueOf(before, series) ?? 0);
    expect(grew('cube_dual_auth_requests_total{path="shared-secret",outcome="accepted"}')).toBe(2);
    expect(grew('cube_dual_auth_requests_total{path="key-set",outcome="accepted"}')).toBe(1);
    expect(grew('cube_dual_auth_requests_total{path="shared-secret",outcome="refused"}')).toBe(1);
    expect(grew('cube_dual_auth_requests_total{path="none",outcome="refused"}')).toBe(1);
    expect(grew('cube_dual_auth_refusals_total{path="shared-secret",code="ERR_SIGNATURE_INVALID"}')).toBe(1);
    expect(grew('cube_dual_auth_refusals_total{path="none",code="ERR_TOKEN_MISSING"}')).toBe(1);
    expect(grew('cube_dual_auth_token_cache_lookups_total{path="shared-secret",result="hit"}')).toBe(1);
    expect(grew('cube_dual_auth_token_cache_lookups_total{path="shared-secret",result="miss"}')).toBe(2);
    expect(grew('cube_dual_auth_verification_duration_seconds_count{path="shared-secret"}')).toBe(3);
    expect(grew(`cube_dual_auth_key_set_fetches_total{issuer="${ISSUER}",outcome="ok"}`)).toBe(1);
    expect(valueOf(text, `cube_dual_auth_key_set_keys{issuer="${ISSUER}"}`)).toBe(1);
    expect(valueOf(text, `cube_dual_auth_key_set_serving_stale{issuer="${ISSUER}"}`)).toBe(0);
    expect(valueOf(text, `cube_dual_auth_key_set_age_seconds{issuer="${ISSUER}"}`)).toBeGreaterThanOrEqual(0);
  });

  it('never shows a token, the secret or key material', async () => {
    const text = await metrics.text();
    expect(text).not.toContain(secret);
    expect(text).not.toContain(key.kid);
    expect(text).not.toMatch(/eyJ/);
  });

  it("gain no series from 10,000 tokens of random kid and iss: labels are only the operator's paths, codes and issuers", async () => {
    // One of each kind first, so that every series these refusals can touch exists. A label taken from a token would
    // add a series at its first token; 10,000 also pass any cap a label set could have below that.
    await settle(checkAuth({}, forged('warm-up', ISSUER)));
    await settle(checkAuth({}, forged('warm-up', 'https://warm-up.example/')));
    const before = seriesOf(await metrics.text());
    for (let i = 0; i < 5_000; i++) {
      await settle(checkAuth({}, forged(`kid-${i}-${Math.random()}`, ISSUER)));
      await settle(checkAuth({}, forged(`kid-${i}`, `https://${Math.random().toString(36).slice(2)}.example/`)));
    }
    const after = await metrics.text();
    expect(seriesOf(after)).toEqual(before);
    expect(after).not.toMatch(/kid-|random|warm-up/);
  }, 120_000);
});

describe('metrics off', () => {
  it('is the default: a hook without them loads no prom-client, no OpenTelemetry and no HTTP server', async () => {
    // This file's own hook turned them on, so the question is asked in a fresh process.
    const script = `
      const { createCheckAuth } = require('./dist/index.js');
      const hook = createCheckAuth({ apiSecret: ${JSON.stringify(secret)} });
      hook(null, 'x').catch(() => {}).then(() => {
        const loaded = Object.keys(require.cache).filter((file) => /node_modules[\\\\/](prom-client|@opentelemetry)/.test(file));
        // Node's HTTP server and child processes are the metrics listener's alone.
        const builtins = process.moduleLoadList.filter((name) => /^NativeModule (_http_server|child_process)$/.test(name));
        process.stdout.write(JSON.stringify([...loaded, ...builtins]));
      });`;
    expect(JSON.parse(execFileSync(process.execPath, ['-e', script], { encoding: 'utf8' }))).toEqual([]);
  });

  it('reads CUBE_DUAL_AUTH_METRICS, and refuses a value that is not true or false naming it', async () => {
    await withEnv({ CUBEJS_API_SECRET: secret, CUBE_DUAL_AUTH_METRICS: 'maybe' }, async () => {
      const root = await import('../../src');
      expect(() => root.checkAuth).toThrow(/CUBE_DUAL_AUTH_METRICS must be true or false/);
    });
  });
});
