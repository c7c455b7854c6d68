import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configurationCheck } from '../../../src/doctor/checks/configuration';
import { audienceCheck, issuerCheck, jwksUrlCheck, providerChecks } from '../../../src/doctor/checks/key-set';
import { startIssuerServer, type IssuerServer } from '../../support/issuer-server';
import { startJwksServer, type JwksServer } from '../../support/jwks-server';
import { generateKeyPair, jwks } from '../../support/keys';

const KEYS = Array.from({ length: 7 }, (_, i) => generateKeyPair('RS256', { kid: `k${i}` }));
let server: JwksServer;
let issuer: IssuerServer;
beforeAll(async () => {
  server = await startJwksServer(jwks(...KEYS));
  issuer = await startIssuerServer();
  issuer.jwks = jwks(KEYS[0]!);
});
afterAll(async () => {
  await server.close();
  await issuer.close();
});

/** The checks of each identity provider `env` configures, as diagnose asks them. */
async function checksOf(env: NodeJS.ProcessEnv) {
  const resolved = configurationCheck(env).resolved!;
  const lines = [];
  for (const provider of resolved.identityProviders)
    lines.push(...(await providerChecks(resolved, provider, resolved.providers !== undefined)));
  return lines.map((line) => ({ ...line, message: line.message.replace(/answered in \d+ ms/, 'answered in N ms') }));
}

describe('jwksUrlCheck', () => {
  it('warns when no JWKS URL is set, and when one is plain http to another machine', () => {
    expect(jwksUrlCheck(undefined)).toEqual({
      id: 'jwks-url',
      status: 'warn',
      message:
        'CUBEJS_JWK_URL is not set (nor CUBE_DUAL_AUTH_PROVIDERS, nor one issuer URL in CUBEJS_JWT_ISSUER to discover it from): the key-set path refuses every identity-provider token',
    });
    expect(jwksUrlCheck('http://idp.example/jwks')).toEqual({
      id: 'jwks-url',
      status: 'warn',
      message:
        'CUBEJS_JWK_URL http://idp.example/jwks is plain http: whoever sits on the network path can swap the keys and forge tokens; use https',
    });
  });

  it('is ok over https, and over plain http on this machine', () => {
    expect(jwksUrlCheck('https://idp.example/jwks')).toEqual({
      id: 'jwks-url',
      status: 'ok',
      message: 'CUBEJS_JWK_URL is https://idp.example/jwks',
    });
    expect(jwksUrlCheck('http://127.0.0.1:9/jwks').status).toBe('ok');
  });
});

describe('audienceCheck and issuerCheck', () => {
  it('warn when the claim is not checked, and list the values checked otherwise', () => {
    expect(audienceCheck(undefined, (message) => message)).toEqual({
      id: 'audience',
      status: 'warn',
      message:
        'CUBEJS_JWT_AUDIENCE is not set: tokens the identity provider issued for any other application are accepted too',
    });
    expect(audienceCheck(['a', 'b'], (message) => `p: ${message}`)).toEqual({
      id: 'audience',
      status: 'ok',
      message: 'p: CUBEJS_JWT_AUDIENCE: "a" or "b"',
    });
    expect(issuerCheck(undefined)).toEqual({
      id: 'issuer',
      status: 'warn',
      message: 'CUBEJS_JWT_ISSUER is not set: tokens are not checked for who issued them',
    });
    expect(issuerCheck(['https://idp.example/'])).toEqual({
      id: 'issuer',
      status: 'ok',
      message: 'CUBEJS_JWT_ISSUER: "https://idp.example/"',
    });
  });
});

describe('providerChecks', () => {
  it('lists the signing keys the JWKS answers with, five kids shown', async () => {
    expect(await checksOf({ CUBEJS_JWK_URL: server.url, CUBEJS_JWT_AUDIENCE: 'api' })).toEqual([
      { id: 'jwks-url', status: 'ok', message: `CUBEJS_JWK_URL is ${server.url}` },
      {
        id: 'jwks-keys',
        status: 'ok',
        message: '7 signing keys for RS256: "k0", "k1", "k2", "k3", "k4" and 2 more, answered in N ms',
      },
      { id: 'audience', status: 'ok', message: 'CUBEJS_JWT_AUDIENCE: "api"' },
    ]);
  });

  it('fails the keys of a JWKS that cannot be fetched, with the key store reason', async () => {
    const [, keys] = await checksOf({ CUBEJS_JWK_URL: 'http://127.0.0.1:9/jwks' });
    expect(keys).toMatchObject({ id: 'jwks-keys', status: 'fail', message: expect.stringContaining('unreachable') });
  });

  it("says where discovery found an issuer's JWKS URL, each line carrying the issuer", async () => {
    expect(await checksOf({ CUBEJS_JWT_ISSUER: issuer.issuer })).toEqual([
      {
        id: 'discovery',
        status: 'ok',
        issuer: issuer.issuer,
        message: `issuer "${issuer.issuer}" names jwks_uri ${issuer.jwksUrl} in ${issuer.issuer}/.well-known/openid-configuration`,
      },
      {
        id: 'jwks-keys',
        status: 'ok',
        issuer: issuer.issuer,
        message: '1 signing key for RS256: "k0", answered in N ms',
      },
      {
        id: 'audience',
        status: 'warn',
        message:
          'CUBEJS_JWT_AUDIENCE is not set: tokens the identity provider issued for any other application are accepted too',
      },
    ]);
  });

  it('fails discovery that finds no JWKS URL, and checks no keys then', async () => {
    const lines = await checksOf({ CUBEJS_JWT_ISSUER: 'http://127.0.0.1:9/' });
    expect(lines.map(({ id, status }) => `${id} ${status}`)).toEqual(['discovery fail', 'audience warn']);
    expect(lines[0]?.message).toMatch(
      /^The discovery document of issuer "http:\/\/127\.0\.0\.1:9\/" .* is unreachable/,
    );
  });

  it('names the identity provider on each of its lines when there are several', async () => {
    const providers = [
      { issuer: 'https://a.example/', jwksUri: server.url, audience: 'a-api' },
      { issuer: 'https://b.example/', jwksUri: 'http://idp.example/jwks' },
    ];
    const lines = await checksOf({
      CUBE_DUAL_AUTH_PROVIDERS: JSON.stringify(providers),
      CUBE_DUAL_AUTH_JWKS_TIMEOUT_MS: '300',
    });
    expect(lines.filter(({ id }) => id === 'jwks-url')).toEqual([
      {
        id: 'jwks-url',
        status: 'ok',
        issuer: 'https://a.example/',
        message: `identity provider "https://a.example/": JWKS URL ${server.url}`,
      },
      {
        id: 'jwks-url',
        status: 'warn',
        issuer: 'https://b.example/',
        message: 'identity provider "https://b.example/": JWKS URL http://idp.example/jwks is plain http: use https',
      },
    ]);
    expect(lines.find(({ id }) => id === 'audience')).toEqual({
      id: 'audience',
      status: 'ok',
      issuer: 'https://a.example/',
      message: 'identity provider "https://a.example/": CUBEJS_JWT_AUDIENCE: "a-api"',
    });
  });
});
