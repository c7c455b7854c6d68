import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createCheckAuth, type AuthEvent, type CheckAuth, type DualAuthOptions } from '../../src';
import { createNamedCheckAuth } from '../../src/hook/check-auth';
import { ENV_NAMES } from '../../src/config/option-table';
import { optionsFromEnv } from '../../src/config/env';
import { startIdentityProvider, type RunningIdentityProvider } from '../../scripts/lib/identity-provider.mjs';
import { randomSecret, timed } from '../support/claims';
import { startIssuerServer, type IssuerServer } from '../support/issuer-server';
import { generateKeyPair, jwks } from '../support/keys';
import { appRequest, contextOf, rejectionOf } from '../support/requests';
import { signToken } from '../support/tokens';

const NAMESPACE = 'https://globex.example/claims';
const OPENID = '/.well-known/openid-configuration';
/** The Cube API as each identity provider names it (resource indicators are absolute URIs). */
const AUD_A = 'https://cube.acme.example';
const AUD_B = 'https://cube.workforce.example';

/** Two real OpenID providers: the company's customer-facing IdP (A) and its workforce IdP (B), each with its own keys. */
let A: RunningIdentityProvider;
let B: RunningIdentityProvider;
const instances: CheckAuth[] = [];
const servers: IssuerServer[] = [];

beforeAll(async () => {
  [A, B] = await Promise.all([
    startIdentityProvider({
      audience: AUD_A,
      apps: [{ clientId: 'storefront', claims: { tenant: 'acme', region: 'eu' } }],
    }),
    startIdentityProvider({
      audience: AUD_B,
      claimsNamespace: NAMESPACE,
      apps: [{ clientId: 'backoffice', claims: { tenant: 'globex' } }],
    }),
  ]);
});
afterEach(async () => {
  for (const checkAuth of instances.splice(0)) checkAuth.close();
  for (const server of servers.splice(0)) await server.close();
});
afterAll(async () => {
  await Promise.all([A.close(), B.close()]);
});

function make(options: Partial<DualAuthOptions> = {}): CheckAuth {
  const checkAuth = createCheckAuth({ apiSecret: randomSecret(), tokenCacheSize: 0, detailedErrors: true, ...options });
  instances.push(checkAuth);
  return checkAuth;
}

/** A, inheriting the top-level audience; B with its own audience and claims namespace. */
function twoProviders(options: Partial<DualAuthOptions> = {}): CheckAuth {
  return make({
    audience: AUD_A,
    providers: [{ issuer: A.issuer }, { issuer: B.issuer, audience: AUD_B, claimsNamespace: NAMESPACE }],
    ...options,
  });
}

async function serve(options?: Parameters<typeof startIssuerServer>[0]): Promise<IssuerServer> {
  const server = await startIssuerServer(options);
  servers.push(server);
  return server;
}

function recorder(): { events: AuthEvent[]; onEvent: (event: AuthEvent) => void } {
  const events: AuthEvent[] = [];
  return { events, onEvent: (event) => events.push(event) };
}

describe('several identity providers', () => {
  it('accepts a token of each provider, each with its own settings and security context', async () => {
    const checkAuth = twoProviders();
    expect(await contextOf(checkAuth, appRequest(), await A.issueToken('storefront'))).toMatchObject({
      tenant: 'acme',
      region: 'eu',
      iss: A.issuer,
    });
    const fromB = await contextOf(checkAuth, appRequest(), await B.issueToken('backoffice'));
    expect(fromB).toEqual({ tenant: 'globex' });
  });

  it("refuses a token signed by provider A's key that names issuer B: only B's keys are looked in", async () => {
    const checkAuth = twoProviders();
    const forged = A.signClaims({ iss: B.issuer, aud: AUD_B, [NAMESPACE]: { tenant: 'globex' } });
    const error = await rejectionOf(checkAuth(appRequest(), forged));
    expect(error).toMatchObject({ code: 'ERR_KID_UNKNOWN', status: 403 });
    expect(error.message).toContain(`in the JWKS at ${B.issuer}/jwks`);
  });

  it('never lets a kid of one provider verify a token naming another, even when both publish that kid', async () => {
    const [C, D] = await Promise.all([serve({ path: '/c' }), serve({ path: '/d' })]);
    const keyOfC = generateKeyPair('RS256', { kid: 'shared' });
    C.jwks = jwks(keyOfC);
    D.jwks = jwks(generateKeyPair('RS256', { kid: 'shared' }));
    const checkAuth = make({ providers: [{ issuer: C.issuer }, { issuer: D.issuer }] });
    expect(
      await contextOf(checkAuth, appRequest(), signToken(timed({ iss: C.issuer, tenant: 'c' }), { key: keyOfC })),
    ).toMatchObject({ tenant: 'c' });
    const error = await rejectionOf(
      checkAuth(appRequest(), signToken(timed({ iss: D.issuer, tenant: 'c' }), { key: keyOfC })),
    );
    expect(error.code).toBe('ERR_SIGNATURE_INVALID');
  });

  it.each([
    [
      'an issuer that is not configured',
      { iss: 'https://attacker.example' },
      'Token issuer "https://attacker.example" is not an identity provider of this deployment',
    ],
    ['no iss', {}, 'Token has no "iss" claim: this deployment chooses the identity provider by it'],
    [
      'an iss that is not a string',
      { iss: ['x'] },
      'Token issuer "[\\"x\\"]" is not an identity provider of this deployment',
    ],
  ])('refuses a token with %s: ERR_ISSUER_UNKNOWN, 403', async (_, claims, message) => {
    const checkAuth = twoProviders({ detailedErrors: false });
    const error = await rejectionOf(checkAuth(appRequest(), A.signClaims(claims)));
    expect(error).toMatchObject({ code: 'ERR_ISSUER_UNKNOWN', status: 403, message });
  });

  it("fetches nothing from where a token's iss points", async () => {
    const attacker = await serve();
    attacker.jwks = jwks(generateKeyPair('RS256', { kid: 'k' }));
    const checkAuth = twoProviders();
    const token = signToken(timed({ iss: attacker.issuer }), { key: generateKeyPair('RS256', { kid: 'k' }) });
    expect((await rejectionOf(checkAuth(appRequest(), token))).code).toBe('ERR_ISSUER_UNKNOWN');
    expect(attacker.requested).toEqual([]);
  });

  it('names the configured issuers in the detail for the operator, never in the public message', async () => {
    const detailed = await rejectionOf(twoProviders()(appRequest(), A.signClaims({ iss: 'https://x.example' })));
    expect(detailed.message).toBe(
      `Token issuer "https://x.example" is not an identity provider of this deployment; configured issuers: "${A.issuer}", "${B.issuer}" (option "providers")`,
    );
    const terse = await rejectionOf(
      twoProviders({ detailedErrors: false })(appRequest(), A.signClaims({ iss: 'https://x.example' })),
    );
    expect(terse.message).not.toContain(A.issuer);
  });

  it("verifies a routed token with that provider's audience, inherited or its own", async () => {
    const checkAuth = twoProviders({ audience: 'another-api' });
    expect((await rejectionOf(checkAuth(appRequest(), await A.issueToken('storefront')))).code).toBe(
      'ERR_AUDIENCE_MISMATCH',
    );
    expect(await contextOf(checkAuth, appRequest(), await B.issueToken('backoffice'))).toEqual({ tenant: 'globex' });
  });

  it('refuses an algorithm the chosen provider does not accept, even when another provider does', async () => {
    const checkAuth = make({
      providers: [
        { issuer: A.issuer, algorithms: ['ES256'] },
        { issuer: B.issuer, audience: AUD_B },
      ],
    });
    const error = await rejectionOf(checkAuth(appRequest(), await A.issueToken('storefront')));
    expect(error).toMatchObject({ code: 'ERR_ALG_NOT_ALLOWED' });
    expect(error.message).toBe(
      `Algorithm "RS256" is not accepted on the key-set path from issuer "${A.issuer}" (ES256 only)`,
    );
  });

  it('keeps serving one provider while the other is down', async () => {
    const C = await startIdentityProvider({ audience: AUD_A, apps: [{ clientId: 'c', claims: { tenant: 'c' } }] });
    const tokenOfC = await C.issueToken('c');
    await C.close();
    const { events, onEvent } = recorder();
    const checkAuth = make({ audience: AUD_A, providers: [{ issuer: A.issuer }, { issuer: C.issuer }], onEvent });
    const refused = await rejectionOf(checkAuth(appRequest(), tokenOfC));
    expect(refused).toMatchObject({ code: 'ERR_JWKS_UNREACHABLE' });
    expect(await contextOf(checkAuth, appRequest(), await A.issueToken('storefront'))).toMatchObject({
      tenant: 'acme',
    });
    expect(events).toContainEqual(
      expect.objectContaining({ type: 'jwks-refresh-failed', issuer: C.issuer, code: 'ERR_JWKS_UNREACHABLE' }),
    );
    expect(events).toContainEqual(expect.objectContaining({ type: 'jwks-refreshed', issuer: A.issuer }));
  });

  it('prefetch() loads every provider, and reports a failure only after all have settled', async () => {
    const down = await serve();
    await down.close();
    const { events, onEvent } = recorder();
    const checkAuth = make({
      audience: AUD_A,
      providers: [{ issuer: A.issuer }, { issuer: down.issuer }, { issuer: B.issuer }],
      onEvent,
    });
    await expect(checkAuth.prefetch()).rejects.toMatchObject({ code: 'ERR_JWKS_UNREACHABLE' });
    const loaded = events
      .filter((event) => event.type === 'jwks-refreshed')
      .map((event) => event.type === 'jwks-refreshed' && event.issuer);
    expect(loaded.sort()).toEqual([A.issuer, B.issuer].sort());
    // Loaded by prefetch: answering the first token fetches nothing more.
    const token = await A.issueToken('storefront');
    await contextOf(checkAuth, appRequest(), token);
    expect(events.filter((event) => event.type === 'jwks-refreshed')).toHaveLength(2);
  });

  it('carries the issuer in accepted and rejected events', async () => {
    const { events, onEvent } = recorder();
    const checkAuth = twoProviders({ onEvent });
    await contextOf(checkAuth, appRequest(), await A.issueToken('storefront'));
    await rejectionOf(checkAuth(appRequest(), A.signClaims({ iss: B.issuer })));
    expect(events).toContainEqual(
      expect.objectContaining({ type: 'accepted', path: 'key-set', issuer: A.issuer, kid: A.kid }),
    );
    expect(events).toContainEqual(
      expect.objectContaining({ type: 'rejected', code: 'ERR_KID_UNKNOWN', issuer: B.issuer }),
    );
  });

  it('explain() names the provider chosen, why, and where its keys come from', async () => {
    const checkAuth = twoProviders();
    const verdict = await checkAuth.explain(appRequest(), await B.issueToken('backoffice'));
    expect(verdict).toMatchObject({
      accepted: true,
      provider: {
        issuer: B.issuer,
        jwksUri: `${B.issuer}/jwks`,
        reason: 'its "iss" is the issuer of a configured identity provider (option "providers")',
      },
      jwksUri: `${B.issuer}/jwks`,
    });
    const unknown = await checkAuth.explain(appRequest(), A.signClaims({ iss: 'https://x.example' }));
    expect(unknown).toMatchObject({ accepted: false, error: { code: 'ERR_ISSUER_UNKNOWN' } });
    expect(unknown.provider).toBeUndefined();
  });

  it('reads CUBE_DUAL_AUTH_PROVIDERS as the same array, naming variables in messages', async () => {
    const env = {
      CUBE_DUAL_AUTH_PROVIDERS: JSON.stringify([
        { issuer: A.issuer, audience: AUD_A },
        { issuer: B.issuer, audience: AUD_B, claimsNamespace: NAMESPACE },
      ]),
      CUBE_DUAL_AUTH_TOKEN_CACHE_SIZE: '0',
      CUBE_DUAL_AUTH_DETAILED_ERRORS: 'true',
    };
    const checkAuth = createNamedCheckAuth(optionsFromEnv(env), { names: ENV_NAMES });
    instances.push(checkAuth);
    expect(await contextOf(checkAuth, appRequest(), await B.issueToken('backoffice'))).toEqual({ tenant: 'globex' });
    expect((await rejectionOf(checkAuth(appRequest(), A.signClaims({})))).message).toMatch(
      /\(CUBE_DUAL_AUTH_PROVIDERS\)$/,
    );
  });
});

describe('discovery of the JWKS URL from the issuer', () => {
  it('with CUBEJS_JWT_ISSUER alone, verifies with the keys the issuer publishes', async () => {
    const env = { CUBEJS_JWT_ISSUER: A.issuer, CUBEJS_JWT_AUDIENCE: AUD_A, CUBE_DUAL_AUTH_TOKEN_CACHE_SIZE: '0' };
    const checkAuth = createNamedCheckAuth(optionsFromEnv(env), { names: ENV_NAMES });
    instances.push(checkAuth);
    expect(await contextOf(checkAuth, appRequest(), await A.issueToken('storefront'))).toMatchObject({
      tenant: 'acme',
    });
    const verdict = await checkAuth.explain(appRequest(), await A.issueToken('storefront'));
    expect(verdict.provider).toEqual({
      issuer: A.issuer,
      jwksUri: `${A.issuer}/jwks`,
      reason: 'the one identity provider, discovered from CUBEJS_JWT_ISSUER',
    });
    // The issuer is still checked: a token signed with A's key that names another issuer is refused.
    expect((await rejectionOf(checkAuth(appRequest(), A.signClaims({ iss: B.issuer, aud: AUD_A })))).code).toBe(
      'ERR_ISSUER_MISMATCH',
    );
  });

  it('uses an RFC 8414-only server', async () => {
    const server = await serve({ path: '/tenant', metadata: 'oauth' });
    const key = generateKeyPair('RS256', { kid: 'k1' });
    server.jwks = jwks(key);
    const checkAuth = make({ issuer: server.issuer });
    expect(
      await contextOf(checkAuth, appRequest(), signToken(timed({ iss: server.issuer, tenant: 't' }), { key })),
    ).toMatchObject({ tenant: 't' });
    expect(server.requested).toEqual([
      `/tenant${OPENID}`,
      '/.well-known/oauth-authorization-server/tenant',
      '/tenant/jwks',
    ]);
  });

  it('discovers nothing when CUBEJS_JWK_URL is set: it wins', async () => {
    const server = await serve();
    const key = generateKeyPair('RS256', { kid: 'k1' });
    server.jwks = jwks(key);
    const checkAuth = make({ issuer: server.issuer, jwksUri: server.jwksUrl });
    await contextOf(checkAuth, appRequest(), signToken(timed({ iss: server.issuer }), { key }));
    expect(server.requested).toEqual(['/jwks']);
  });

  it.each([
    [
      'answers 404 (and has no RFC 8414 metadata)',
      { status: 404 },
      'ERR_JWKS_INVALID',
      /answered HTTP 404 too: the issuer publishes no discovery document/,
    ],
    [
      'names another issuer',
      { json: { issuer: 'https://other.example', jwks_uri: 'http://127.0.0.1:1/jwks' } },
      'ERR_JWKS_INVALID',
      /its "issuer" is "https:\/\/other.example", not exactly the configured/,
    ],
    ['has no jwks_uri', { json: {} }, 'ERR_JWKS_INVALID', /its "issuer" is missing/],
    [
      'is not JSON',
      { body: 'Service Unavailable', contentType: 'text/plain' },
      'ERR_JWKS_INVALID',
      /not JSON \(content-type "text\/plain"\)/,
    ],
    ['hangs', { hang: true as const }, 'ERR_JWKS_TIMEOUT', /did not answer within 300 ms/],
  ])('refuses with a 403 when the discovery document %s', async (_, answer, code, detail) => {
    const server = await serve();
    server.answers.set(OPENID, answer);
    const { events, onEvent } = recorder();
    const checkAuth = make({ issuer: server.issuer, jwksTimeoutMs: 300, detailedErrors: false, onEvent });
    const token = signToken(timed({ iss: server.issuer }), { key: generateKeyPair('RS256', { kid: 'k1' }) });
    const error = await rejectionOf(checkAuth(appRequest(), token));
    expect(error).toMatchObject({ code, status: 403 });
    // The caller learns the kind of failure, not the identity provider's address.
    expect(error.message).not.toContain('127.0.0.1');
    const failed = events.find((event) => event.type === 'jwks-refresh-failed');
    expect(failed).toMatchObject({ issuer: server.issuer, code, jwksUri: `${server.issuer}${OPENID}` });
    expect(failed?.type === 'jwks-refresh-failed' && failed.message).toMatch(detail);
  });

  it('refuses a document without jwks_uri, naming it', async () => {
    const server = await serve();
    server.answers.set(OPENID, { json: { issuer: server.issuer } });
    const verdict = await make({ issuer: server.issuer }).explain(
      appRequest(),
      signToken(timed({ iss: server.issuer }), { key: generateKeyPair('RS256', { kid: 'k1' }) }),
    );
    expect(verdict.error).toEqual({
      code: 'ERR_JWKS_INVALID',
      message: `The discovery document of issuer "${server.issuer}" (${server.issuer}${OPENID}) is unusable: it has no "jwks_uri"`,
    });
  });
});
