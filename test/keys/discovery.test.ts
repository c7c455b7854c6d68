import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { discover, discoveryUrls, IssuerDiscovery } from '../../src/keys/discovery';
import type { DiscoveryEvent } from '../../src/events';
import { createClock, type FakeClock } from '../support/clock';
import { startIssuerServer, type IssuerServer } from '../support/issuer-server';
import { rejectionOf as failureOf } from '../support/requests';

const LIMITS = { timeoutMs: 2_000, maxResponseBytes: 524_288 };
const OPENID = '/.well-known/openid-configuration';

let server: IssuerServer;
const started: IssuerServer[] = [];
afterEach(async () => {
  for (const each of started.splice(0)) await each.close();
});

async function serve(options?: Parameters<typeof startIssuerServer>[0]): Promise<IssuerServer> {
  const issuer = await startIssuerServer(options);
  started.push(issuer);
  return issuer;
}

describe('discoveryUrls', () => {
  it.each([
    [
      'https://idp.example',
      'https://idp.example/.well-known/openid-configuration',
      'https://idp.example/.well-known/oauth-authorization-server',
    ],
    [
      'https://idp.example/',
      'https://idp.example/.well-known/openid-configuration',
      'https://idp.example/.well-known/oauth-authorization-server',
    ],
    [
      'https://idp.example/tenant',
      'https://idp.example/tenant/.well-known/openid-configuration',
      'https://idp.example/.well-known/oauth-authorization-server/tenant',
    ],
    [
      'https://idp.example/tenant/',
      'https://idp.example/tenant/.well-known/openid-configuration',
      'https://idp.example/.well-known/oauth-authorization-server/tenant',
    ],
  ])(
    '%s: OpenID configuration without a doubled slash, then RFC 8414 metadata before the path',
    (issuer, openid, oauth) => {
      expect(discoveryUrls(issuer)).toEqual([openid, oauth]);
    },
  );
});

describe('discover', () => {
  it("reads jwks_uri from the issuer's OpenID configuration, asking nothing else", async () => {
    server = await serve();
    expect(await discover(server.issuer, LIMITS)).toEqual({
      jwksUri: server.jwksUrl,
      documentUrl: `${server.issuer}${OPENID}`,
      maxAgeMs: undefined,
    });
    expect(server.requested).toEqual([OPENID]);
  });

  it('falls back to RFC 8414 metadata (inserted before the path) when the OpenID configuration answers 404', async () => {
    server = await serve({ path: '/tenant', metadata: 'oauth' });
    const found = await discover(server.issuer, LIMITS);
    expect(found).toMatchObject({
      jwksUri: server.jwksUrl,
      documentUrl: `${server.origin}/.well-known/oauth-authorization-server/tenant`,
    });
    expect(server.requested).toEqual([`/tenant${OPENID}`, '/.well-known/oauth-authorization-server/tenant']);
  });

  it('keeps the Cache-Control lifetime of the document', async () => {
    server = await serve();
    server.answers.set(OPENID, {
      json: { issuer: server.issuer, jwks_uri: server.jwksUrl },
      headers: { 'cache-control': 'public, max-age=120' },
    });
    expect((await discover(server.issuer, LIMITS)).maxAgeMs).toBe(120_000);
  });

  it('refuses when neither document exists, naming both', async () => {
    server = await serve({ metadata: 'none' });
    const error = await failureOf(discover(server.issuer, LIMITS));
    expect(error).toMatchObject({
      code: 'ERR_JWKS_INVALID',
      message: "The identity provider's key set answered something unusable",
    });
    expect(error.detail).toBe(
      `The discovery document of issuer "${server.issuer}" (${server.origin}/.well-known/oauth-authorization-server) is unusable: HTTP 404; ` +
        `${server.issuer}${OPENID} answered HTTP 404 too: the issuer publishes no discovery document, so set its JWKS URL`,
    );
  });

  it('does not fall back on another failure than 404', async () => {
    server = await serve();
    server.answers.set(OPENID, { status: 503 });
    expect((await failureOf(discover(server.issuer, LIMITS))).detail).toMatch(/is unusable: HTTP 503$/);
    expect(server.requested).toEqual([OPENID]);
  });

  it('does not follow a redirect', async () => {
    server = await serve();
    server.answers.set(OPENID, { status: 302, headers: { location: 'http://127.0.0.1:1/elsewhere' } });
    expect((await failureOf(discover(server.issuer, LIMITS))).detail).toMatch(/HTTP 302 \(redirects are not followed/);
  });

  it('refuses a document naming another issuer, even one differing by a trailing slash', async () => {
    server = await serve();
    server.answers.set(OPENID, { json: { issuer: 'https://attacker.example', jwks_uri: server.jwksUrl } });
    expect((await failureOf(discover(server.issuer, LIMITS))).detail).toMatch(
      /its "issuer" is "https:\/\/attacker.example", not exactly the configured "http:\/\/127.0.0.1:\d+"$/,
    );
    server.answers.set(OPENID, { json: { issuer: server.issuer, jwks_uri: server.jwksUrl } });
    const slashed = await failureOf(discover(`${server.issuer}/`, LIMITS));
    expect(slashed.detail).toMatch(
      /its "issuer" is "http:\/\/127.0.0.1:\d+", not exactly the configured "http:\/\/127.0.0.1:\d+\/"$/,
    );
  });

  it.each([
    ['without an issuer', (s: IssuerServer) => ({ jwks_uri: s.jwksUrl }), /its "issuer" is missing/],
    ['without jwks_uri', (s: IssuerServer) => ({ issuer: s.issuer }), /it has no "jwks_uri"$/],
    [
      'with a file: jwks_uri',
      (s: IssuerServer) => ({ issuer: s.issuer, jwks_uri: 'file:///etc/passwd' }),
      /its "jwks_uri" "file:\/\/\/etc\/passwd" must be an http\(s\) URL$/,
    ],
    [
      'with credentials in jwks_uri',
      (s: IssuerServer) => ({ issuer: s.issuer, jwks_uri: 'https://user:pw@idp.example/jwks' }),
      /must not carry credentials$/,
    ],
    [
      'with a jwks_uri that is not text',
      (s: IssuerServer) => ({ issuer: s.issuer, jwks_uri: 42 }),
      /its "jwks_uri" "42" must be a non-empty string$/,
    ],
    ['that is an array', () => [], /is unusable: not a JSON object$/],
  ])('refuses a document %s', async (_, document, detail) => {
    server = await serve();
    server.answers.set(OPENID, { json: document(server) });
    const error = await failureOf(discover(server.issuer, LIMITS));
    expect(error.code).toBe('ERR_JWKS_INVALID');
    expect(error.detail).toMatch(detail);
  });

  it('refuses an answer that is not JSON, naming its content type', async () => {
    server = await serve();
    server.answers.set(OPENID, { body: '<html>Sign in</html>', contentType: 'text/html' });
    expect((await failureOf(discover(server.issuer, LIMITS))).detail).toMatch(
      /is unusable: not JSON \(content-type "text\/html"\)$/,
    );
  });

  it('refuses a document nested past the depth limit, naming the limit', async () => {
    server = await serve();
    server.answers.set(OPENID, {
      body: `{"issuer":${'['.repeat(50_000)}${']'.repeat(50_000)}}`,
      contentType: 'application/json',
    });
    expect((await failureOf(discover(server.issuer, LIMITS))).detail).toMatch(
      /is unusable: refused: it nests deeper than 64 levels \(the limit\)$/,
    );
  });

  it('gives up on a document that never comes, within the deadline', async () => {
    server = await serve();
    server.answers.set(OPENID, { hang: true });
    const error = await failureOf(discover(server.issuer, { ...LIMITS, timeoutMs: 200 }));
    expect(error).toMatchObject({
      code: 'ERR_JWKS_TIMEOUT',
      message: "The identity provider's key set did not answer in time",
    });
    expect(error.detail).toBe(
      `The discovery document of issuer "${server.issuer}" (${server.issuer}${OPENID}) did not answer within 200 ms`,
    );
  });

  it('says the issuer is unreachable when nothing listens', async () => {
    server = await serve();
    const { issuer } = server;
    await server.close();
    const error = await failureOf(discover(issuer, LIMITS));
    expect(error).toMatchObject({ code: 'ERR_JWKS_UNREACHABLE' });
    expect(error.detail).toMatch(/is unreachable: ECONNREFUSED$/);
  });
});

describe('IssuerDiscovery on a frozen clock', () => {
  const RULES = { maxAgeMs: 60_000, staleIfErrorMs: 30_000, cooldownMs: 5_000 };
  let clock: FakeClock;
  beforeEach(async () => {
    clock = createClock();
    server = await serve();
  });
  const asked = () => server.requested.filter((path) => path === OPENID).length;

  it('asks once while fresh, and again once maxAgeMs has passed', async () => {
    const discovery = new IssuerDiscovery(server.issuer, { ...RULES, clock: clock.now });
    expect(await discovery.jwksUri(LIMITS)).toBe(server.jwksUrl);
    clock.advance(59_999);
    expect(await discovery.jwksUri(LIMITS)).toBe(server.jwksUrl);
    expect(asked()).toBe(1);
    clock.advance(1);
    await discovery.jwksUri(LIMITS);
    expect(asked()).toBe(2);
  });

  it("honours the document's shorter max-age, but never below the cooldown", async () => {
    server.answers.set(OPENID, {
      json: { issuer: server.issuer, jwks_uri: server.jwksUrl },
      headers: { 'cache-control': 'max-age=1' },
    });
    const discovery = new IssuerDiscovery(server.issuer, { ...RULES, clock: clock.now });
    await discovery.jwksUri(LIMITS);
    clock.advance(4_999);
    await discovery.jwksUri(LIMITS);
    expect(asked()).toBe(1);
    clock.advance(1);
    await discovery.jwksUri(LIMITS);
    expect(asked()).toBe(2);
  });

  it('keeps serving the last JWKS URL while discovery fails, for staleIfErrorMs, then fails', async () => {
    const discovery = new IssuerDiscovery(server.issuer, { ...RULES, clock: clock.now });
    await discovery.jwksUri(LIMITS);
    server.answers.set(OPENID, { status: 500 });
    clock.advance(60_000);
    expect(await discovery.jwksUri(LIMITS)).toBe(server.jwksUrl);
    expect(discovery.describe()).toMatchObject({
      status: 'stale',
      jwksUri: server.jwksUrl,
      lastError: { code: 'ERR_JWKS_INVALID', message: expect.stringMatching(/HTTP 500$/) },
    });
    clock.advance(30_000);
    expect((await failureOf(discovery.jwksUri(LIMITS))).detail).toMatch(/HTTP 500$/);
    expect(discovery.describe().status).toBe('expired');
  });

  it('reports every document it asked, found or failed, with the time by its clock, and nothing while fresh', async () => {
    const events: DiscoveryEvent[] = [];
    const discovery = new IssuerDiscovery(server.issuer, {
      ...RULES,
      clock: clock.now,
      report: (event) => events.push(event),
    });
    await discovery.jwksUri(LIMITS);
    await discovery.jwksUri(LIMITS);
    server.answers.set(OPENID, { status: 500 });
    clock.advance(60_000);
    await discovery.jwksUri(LIMITS);
    expect(events).toEqual([
      { type: 'discovery', issuer: server.issuer, jwksUri: server.jwksUrl, durationMs: 0 },
      { type: 'discovery', issuer: server.issuer, code: 'ERR_JWKS_INVALID', durationMs: 0 },
    ]);
  });

  it('moves to the JWKS URL a new document names', async () => {
    const discovery = new IssuerDiscovery(server.issuer, { ...RULES, clock: clock.now });
    await discovery.jwksUri(LIMITS);
    server.answers.set(OPENID, { json: { issuer: server.issuer, jwks_uri: `${server.issuer}/keys-2` } });
    clock.advance(60_000);
    expect(await discovery.jwksUri(LIMITS)).toBe(`${server.issuer}/keys-2`);
    expect(discovery.describe()).toMatchObject({
      status: 'fresh',
      lastError: undefined,
      documentUrl: `${server.issuer}${OPENID}`,
    });
  });
});
