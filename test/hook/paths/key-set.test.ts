import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createCheckAuth, type CheckAuth, type DualAuthOptions } from '../../../src';
import { createNamedCheckAuth } from '../../../src/hook/check-auth';
import { ENV_NAMES } from '../../../src/config/options';
import { optionsFromEnv } from '../../../src/config/env';
import { randomSecret, timed } from '../../support/claims';
import { generateKeyPair, jwks } from '../../support/keys';
import { startJwksServer, type JwksServer } from '../../support/jwks-server';
import { appRequest, contextOf, rejectionOf, serviceRequest } from '../../support/requests';
import { signToken } from '../../support/tokens';

const idpKey = generateKeyPair('RS256');
const secondKey = generateKeyPair('RS256');
const ecKey = generateKeyPair('ES256');
const stranger = generateKeyPair('RS256', { kid: idpKey.kid });
const secret = randomSecret();

let server: JwksServer;
const instances: CheckAuth[] = [];

function make(options: Partial<DualAuthOptions> = {}): CheckAuth {
  const checkAuth = createCheckAuth({
    apiSecret: secret,
    jwksUri: server.url,
    tokenCacheSize: 0,
    detailedErrors: true,
    ...options,
  });
  instances.push(checkAuth);
  return checkAuth;
}

const rs = (payload: Record<string, unknown> = {}, key = idpKey, header = {}) =>
  signToken(timed(payload), { key, header });

beforeAll(async () => {
  server = await startJwksServer(jwks(idpKey, secondKey, ecKey));
});
afterEach(() => instances.splice(0).forEach((checkAuth) => checkAuth.close()));
afterAll(() => server.close());

describe('key-set path', () => {
  it('accepts an RS256 token signed by the key of its kid and sets its payload as the security context', async () => {
    expect(await contextOf(make(), appRequest(), rs({ sub: 'user-1', tenant: 'acme' }, secondKey))).toMatchObject({
      sub: 'user-1',
      tenant: 'acme',
    });
  });

  it('accepts ES256 when configured, and refuses it when not', async () => {
    expect(await contextOf(make({ algorithms: ['RS256', 'ES256'] }), appRequest(), rs({ ok: 1 }, ecKey))).toMatchObject(
      { ok: 1 },
    );
    const error = await rejectionOf(make()(appRequest(), rs({}, ecKey)));
    expect(error.message).toBe('Algorithm "ES256" is not accepted on the key-set path (RS256 only)');
  });

  it('shares one JWKS fetch among concurrent requests on a cold start', async () => {
    const before = server.requests;
    const checkAuth = make();
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) => contextOf(checkAuth, appRequest(), rs({ i }))),
    );
    expect(results.map((r) => (r as { i: number }).i)).toEqual(Array.from({ length: 50 }, (_, i) => i));
    expect(server.requests - before).toBe(1);
  });

  it('refuses a token whose kid is not in the JWKS, naming the kid', async () => {
    const unknown = generateKeyPair('RS256', { kid: 'not-in-the-set' });
    const error = await rejectionOf(make()(appRequest(), rs({}, unknown)));
    expect(error).toMatchObject({ status: 403, code: 'ERR_KID_UNKNOWN', path: 'key-set' });
    expect(error.message).toMatch(
      /^No key for kid "not-in-the-set" in the JWKS at http:\/\/127\.0\.0\.1:\d+\/\.well-known\/jwks\.json/,
    );
  });

  it('refuses a token without kid', async () => {
    const error = await rejectionOf(
      make()(appRequest(), signToken(timed({}), { alg: 'RS256', key: idpKey.privateKey })),
    );
    expect(error).toMatchObject({
      code: 'ERR_KID_MISSING',
      message: 'Token header has no "kid": the key-set path needs it to choose a key from the JWKS',
    });
  });

  it("refuses a stranger's key that claims a known kid", async () => {
    const error = await rejectionOf(make()(appRequest(), rs({}, stranger)));
    expect(error).toMatchObject({
      code: 'ERR_SIGNATURE_INVALID',
      message: `Invalid signature: the token is not signed by key "${idpKey.kid}" of the JWKS`,
    });
  });

  it('refuses a key of the wrong type for the algorithm', async () => {
    const lying = signToken(timed({}), { alg: 'RS256', key: ecKey.privateKey, kid: ecKey.kid });
    const error = await rejectionOf(make({ algorithms: ['RS256', 'ES256'] })(appRequest(), lying));
    expect(error).toMatchObject({
      code: 'ERR_ALG_NOT_ALLOWED',
      message: `Key "${ecKey.kid}" of the JWKS cannot verify RS256 tokens`,
    });
  });

  it('refuses alg "none" with a kid', async () => {
    const unsigned = signToken(timed({ admin: true }), { alg: 'none', kid: idpKey.kid });
    const error = await rejectionOf(make()(appRequest(), unsigned));
    expect(error).toMatchObject({
      code: 'ERR_ALG_NOT_ALLOWED',
      message: 'Unsigned tokens (alg "none") are never accepted',
    });
  });

  it('refuses HS256 signed with the public key of a known kid (algorithm confusion)', async () => {
    const pem = idpKey.publicKey.export({ format: 'pem', type: 'spki' }).toString();
    const confused = signToken(timed({ admin: true }), { alg: 'HS256', key: pem, kid: idpKey.kid });
    const onKeySet = await rejectionOf(make()(appRequest(), confused));
    expect(onKeySet.code).toBe('ERR_ALG_NOT_ALLOWED');
    const onSharedSecret = await rejectionOf(make()(serviceRequest(), confused));
    expect(onSharedSecret.code).toBe('ERR_SIGNATURE_INVALID');
  });

  it('refuses an RS256 token sent with the origin header (wrong path)', async () => {
    const error = await rejectionOf(make()(serviceRequest(), rs()));
    expect(error).toMatchObject({ code: 'ERR_ALG_NOT_ALLOWED', path: 'shared-secret' });
  });

  it('refuses an RSA key shorter than 2048 bits', async () => {
    const weak = generateKeyPair('RS256', { modulusLength: 1024 });
    const weakServer = await startJwksServer(jwks(weak));
    const checkAuth = make({ jwksUri: weakServer.url });
    const error = await rejectionOf(checkAuth(appRequest(), rs({}, weak)));
    expect(['ERR_ALG_NOT_ALLOWED', 'ERR_JWKS_INVALID', 'ERR_KID_UNKNOWN']).toContain(error.code);
    await weakServer.close();
  });

  describe('never follows keys named by the token', () => {
    let attacker: Server;
    let attackerRequests = 0;
    let attackerUrl: string;
    const forger = generateKeyPair('RS256', { kid: 'attacker-kid' });

    beforeAll(async () => {
      attacker = createServer((_, res) => {
        attackerRequests++;
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify(jwks(forger)));
      });
      await new Promise<void>((resolve) => attacker.listen(0, '127.0.0.1', resolve));
      attackerUrl = `http://127.0.0.1:${(attacker.address() as AddressInfo).port}/jwks.json`;
    });
    afterAll(() => new Promise<void>((resolve) => attacker.close(() => resolve())));

    it.each([
      ['jku', () => ({ jku: attackerUrl })],
      ['x5u', () => ({ x5u: attackerUrl })],
      ['jwk', () => ({ jwk: forger.jwk })],
      ['x5c', () => ({ x5c: ['MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA'] })],
    ])('ignores %s in the header', async (_, header) => {
      const error = await rejectionOf(make()(appRequest(), rs({ admin: true }, forger, header())));
      expect(error.code).toBe('ERR_KID_UNKNOWN');
      expect(attackerRequests).toBe(0);
    });

    it('ignores jku even when the kid is known: the configured key decides', async () => {
      const token = signToken(timed({}), { key: forger.privateKey, kid: idpKey.kid, header: { jku: attackerUrl } });
      expect((await rejectionOf(make()(appRequest(), token))).code).toBe('ERR_SIGNATURE_INVALID');
      expect(attackerRequests).toBe(0);
    });
  });

  describe('claims', () => {
    it('checks audience, issuer and subject when configured', async () => {
      const checkAuth = make({ audience: ['cube-api', 'other'], issuer: 'https://idp.example/', subject: 'svc' });
      const good = { aud: ['x', 'cube-api'], iss: 'https://idp.example/', sub: 'svc' };
      expect(await contextOf(checkAuth, appRequest(), rs(good))).toMatchObject(good);
      const audience = await rejectionOf(checkAuth(appRequest(), rs({ ...good, aud: 'wrong' })));
      expect(audience).toMatchObject({
        code: 'ERR_AUDIENCE_MISMATCH',
        message: 'Audience mismatch: expected "cube-api" or "other", the token has "wrong"',
      });
      const issuer = await rejectionOf(checkAuth(appRequest(), rs({ ...good, iss: undefined })));
      expect(issuer).toMatchObject({
        code: 'ERR_ISSUER_MISMATCH',
        message: 'Issuer mismatch: expected "https://idp.example/", the token has none',
      });
      const subject = await rejectionOf(checkAuth(appRequest(), rs({ ...good, sub: 'someone' })));
      expect(subject.code).toBe('ERR_SUBJECT_MISMATCH');
    });

    it('reports an expired key-set token as expired', async () => {
      const expired = signToken(timed({}, { expiresIn: -60 }), { key: idpKey });
      expect((await rejectionOf(make()(appRequest(), expired))).code).toBe('ERR_TOKEN_EXPIRED');
    });

    it('does not apply the key-set audience to service tokens', async () => {
      const checkAuth = make({ audience: 'cube-api' });
      const serviceToken = signToken(timed({ tenant: 'acme' }), { alg: 'HS256', key: secret });
      expect(await contextOf(checkAuth, serviceRequest(), serviceToken)).toMatchObject({ tenant: 'acme' });
    });

    it.each(['__proto__', 'constructor', 'toString'])(
      'never takes an inherited property as the claims namespace (%s)',
      async (claimsNamespace) => {
        const checkAuth = make({ claimsNamespace });
        const error = await rejectionOf(checkAuth(appRequest(), rs({ tenant: 'acme' })));
        expect(error.code).toBe('ERR_SECURITY_CONTEXT_INVALID');
        const own = JSON.parse(`{"${claimsNamespace}": {"tenant": "acme"}}`) as Record<string, unknown>;
        expect(await contextOf(checkAuth, appRequest(), rs(own))).toEqual({ tenant: 'acme' });
      },
    );

    it("answers to the namespace's name too, so Cube's SECURITY_CONTEXT (which applies the namespace again) gets the same context", async () => {
      const ns = 'https://cube.example/';
      const checkAuth = make({ claimsNamespace: ns, tokenCacheSize: 10 });
      const token = rs({ [ns]: { tenant: 'acme' } });
      for (const cached of [false, true]) {
        const context = (await contextOf(checkAuth, appRequest(), token)) as Record<string, unknown>;
        // What Cube's gateway does with CUBEJS_JWT_CLAIMS_NAMESPACE (createSecurityContextExtractor).
        const forModel = ns in context ? context[ns] : {};
        expect(forModel, cached ? 'cached' : 'fresh').toBe(context);
        expect(JSON.stringify(context)).toBe('{"tenant":"acme"}');
        expect(Object.keys(context)).toEqual(['tenant']);
      }
    });

    it('takes the security context from the claims namespace on the key-set path', async () => {
      const checkAuth = make({ claimsNamespace: 'https://cube.example/' });
      expect(await contextOf(checkAuth, appRequest(), rs({ 'https://cube.example/': { tenant: 'acme' } }))).toEqual({
        tenant: 'acme',
      });
      const missing = await rejectionOf(checkAuth(appRequest(), rs({ tenant: 'acme' })));
      expect(missing).toMatchObject({
        code: 'ERR_SECURITY_CONTEXT_INVALID',
        message:
          'Claim "https://cube.example/" (option "claimsNamespace") is missing from the token or is not an object',
      });
      const fromEnv = createNamedCheckAuth(
        optionsFromEnv({
          CUBEJS_JWK_URL: server.url,
          CUBEJS_JWT_CLAIMS_NAMESPACE: 'https://cube.example/',
          CUBE_DUAL_AUTH_DETAILED_ERRORS: 'true',
        }),
        { names: ENV_NAMES },
      );
      instances.push(fromEnv);
      expect((await rejectionOf(fromEnv(appRequest(), rs({ tenant: 'acme' })))).message).toBe(
        'Claim "https://cube.example/" (CUBEJS_JWT_CLAIMS_NAMESPACE) is missing from the token or is not an object',
      );
    });
  });

  it('stops answering cached tokens of a key that rotation removed, once the key set is refreshed', async () => {
    const rotating = await startJwksServer(jwks(idpKey));
    const checkAuth = make({ jwksUri: rotating.url, tokenCacheSize: 100, jwksCooldownMs: 0 });
    const oldToken = rs({ tenant: 'acme' });
    await checkAuth(appRequest(), oldToken);
    rotating.jwks = jwks(secondKey);
    await checkAuth(appRequest(), rs({}, secondKey));
    const error = await rejectionOf(checkAuth(appRequest(), oldToken));
    expect(error).toMatchObject({ code: 'ERR_KID_UNKNOWN' });
    await rotating.close();
  });

  it('forgets cached tokens of a key replaced under the same kid, judged by the key itself', async () => {
    const replacement = generateKeyPair('RS256', { kid: idpKey.kid });
    const rotating = await startJwksServer(jwks(idpKey));
    const checkAuth = make({ jwksUri: rotating.url, tokenCacheSize: 100 });
    const oldToken = rs({ tenant: 'acme' });
    await checkAuth(appRequest(), oldToken);
    rotating.jwks = jwks(replacement);
    await checkAuth.prefetch();
    expect(await rejectionOf(checkAuth(appRequest(), oldToken))).toMatchObject({ code: 'ERR_SIGNATURE_INVALID' });
    expect(await contextOf(checkAuth, appRequest(), rs({ tenant: 'acme' }, replacement))).toMatchObject({
      tenant: 'acme',
    });
    await rotating.close();
  });

  describe('one key, one algorithm', () => {
    it('a JWK that names its algorithm verifies tokens of that algorithm only', async () => {
      const bound = await startJwksServer(jwks({ ...idpKey.jwk, alg: 'RS256' }));
      const checkAuth = make({ jwksUri: bound.url, algorithms: ['RS256', 'PS256'] });
      expect(await contextOf(checkAuth, appRequest(), rs({ ok: 1 }))).toMatchObject({ ok: 1 });
      const ps256 = signToken(timed({}), { key: idpKey.privateKey, kid: idpKey.kid, alg: 'PS256' });
      const error = await rejectionOf(checkAuth(appRequest(), ps256));
      expect(error).toMatchObject({
        code: 'ERR_ALG_NOT_ALLOWED',
        message: `Key "${idpKey.kid}" of the JWKS is for "RS256" only, not PS256`,
      });
      await bound.close();
    });

    it.each([
      ['use "enc"', { use: 'enc' }],
      ['key_ops without "verify"', { key_ops: ['encrypt', 'wrapKey'] }],
      ['key_ops that is not a list', { key_ops: 'verify' }],
    ])('a JWK with %s is never used', async (_, members) => {
      const restricted = await startJwksServer(jwks({ ...idpKey.jwk, use: undefined, ...members }, secondKey));
      const checkAuth = make({ jwksUri: restricted.url });
      expect((await rejectionOf(checkAuth(appRequest(), rs()))).code).toBe('ERR_KID_UNKNOWN');
      expect(await contextOf(checkAuth, appRequest(), rs({}, secondKey))).toBeDefined();
      await restricted.close();
    });

    it('a JWK with key_ops including "verify" is used', async () => {
      const allowed = await startJwksServer(jwks({ ...idpKey.jwk, key_ops: ['verify'] }));
      expect(await contextOf(make({ jwksUri: allowed.url }), appRequest(), rs({ ok: 1 }))).toMatchObject({ ok: 1 });
      await allowed.close();
    });
  });

  it('reports the key used in explain', async () => {
    const verdict = await make().explain(appRequest(), rs({}, secondKey));
    expect(verdict).toMatchObject({ accepted: true, path: 'key-set', kid: secondKey.kid, jwksUri: server.url });
  });

  it('never puts the token or key material into a message', async () => {
    const tokens = [
      rs({}, stranger),
      rs({}, generateKeyPair('RS256')),
      signToken(timed({}), { alg: 'HS256', key: secret, kid: idpKey.kid }),
    ];
    for (const token of tokens) {
      const error = await rejectionOf(make()(appRequest(), token));
      expect(error.message).not.toContain(token.split('.')[2]);
      expect(error.message).not.toContain(token.split('.')[1]);
      expect(error.message).not.toContain(String(idpKey.jwk.n).slice(0, 20));
    }
  });
});
