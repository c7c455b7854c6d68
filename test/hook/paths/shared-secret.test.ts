import { describe, expect, it } from 'vitest';
import { createCheckAuth, DualAuthError } from '../../../src';
import { createNamedCheckAuth } from '../../../src/hook/check-auth';
import { ENV_NAMES } from '../../../src/config/options';
import { optionsFromEnv } from '../../../src/config/env';
import { randomSecret, timed, type TimedOptions } from '../../support/claims';
import { generateKeyPair } from '../../support/keys';
import { signToken } from '../../support/tokens';
import { contextOf, rejectionOf, serviceRequest } from '../../support/requests';

const secret = randomSecret();
const checkAuth = createCheckAuth({ apiSecret: secret, tokenCacheSize: 0, detailedErrors: true });
const hs = (payload: Record<string, unknown>, options: TimedOptions = {}) =>
  signToken(timed(payload, options), { alg: 'HS256', key: secret });

describe('shared-secret path', () => {
  it('accepts an HS256 token signed with the API secret and sets its payload as the security context', async () => {
    expect(await contextOf(checkAuth, serviceRequest(), hs({ tenant: 'acme' }))).toMatchObject({ tenant: 'acme' });
  });

  it('accepts a token signed with any of the configured secrets (rotation)', async () => {
    const [current, previous] = [randomSecret(), randomSecret()];
    const rotating = createCheckAuth({ apiSecret: [current, previous] });
    const old = signToken({ tenant: 'acme' }, { alg: 'HS256', key: previous });
    expect(await contextOf(rotating, serviceRequest(), old)).toMatchObject({ tenant: 'acme' });
  });

  it('refuses a token signed with another secret', async () => {
    const error = await rejectionOf(checkAuth(serviceRequest(), signToken({}, { alg: 'HS256', key: randomSecret() })));
    expect(error).toMatchObject({ status: 403, code: 'ERR_SIGNATURE_INVALID', path: 'shared-secret' });
    expect(error.message).toBe('Invalid signature: the token is not signed with the API secret');
  });

  it('refuses, under a maximum token age, a token issued at 0 (jsonwebtoken alone reads that iat as now)', async () => {
    const aged = createCheckAuth({ apiSecret: secret, maxTokenAge: 600, tokenCacheSize: 0 });
    const error = await rejectionOf(
      aged(
        serviceRequest(),
        signToken({ tenant: 'acme', iat: 0, exp: Math.floor(Date.now() / 1000) + 300 }, { alg: 'HS256', key: secret }),
      ),
    );
    expect(error).toMatchObject({ status: 403, code: 'ERR_TOKEN_TOO_OLD', path: 'shared-secret' });
  });

  it('reports an expired token as expired, not as a bad signature, with any of the secrets', async () => {
    const rotating = createCheckAuth({ apiSecret: [randomSecret(), secret] });
    const expired = hs({}, { expiresIn: -3600 });
    const error = await rejectionOf(rotating(serviceRequest(), expired));
    expect(error.code).toBe('ERR_TOKEN_EXPIRED');
    expect(error.message).toMatch(/^Token expired at \d{4}-\d\d-\d\dT/);
  });

  it('refuses an RS256 token even with a valid signature (no asymmetric tokens on this path)', async () => {
    const error = await rejectionOf(
      checkAuth(serviceRequest(), signToken(timed({}), { key: generateKeyPair('RS256') })),
    );
    expect(error.code).toBe('ERR_ALG_NOT_ALLOWED');
    expect(error.message).toBe(
      'Algorithm "RS256" is not accepted on the shared-secret path (HS256 only): a request with "Request-Origin: embeddable" must carry a token signed with the API secret',
    );
  });

  it.each(['none', 'HS384', 'HS512'])('refuses alg %s', async (alg) => {
    const token = signToken(timed({ tenant: 'acme' }), { alg, key: secret });
    const error = await rejectionOf(checkAuth(serviceRequest(), token));
    expect(error.code).toBe('ERR_ALG_NOT_ALLOWED');
  });

  it('says the path is not configured when there is no API secret', async () => {
    const keySetOnly = createCheckAuth({ jwksUri: 'http://127.0.0.1:9/jwks.json', detailedErrors: true });
    const error = await rejectionOf(keySetOnly(serviceRequest(), hs({})));
    expect(error.code).toBe('ERR_SHARED_SECRET_NOT_CONFIGURED');
    expect(error.message).toMatch(/option "apiSecret" is not set/);
    keySetOnly.close();
    const fromEnv = createNamedCheckAuth(
      optionsFromEnv({ CUBEJS_JWK_URL: 'http://127.0.0.1:9/jwks.json', CUBE_DUAL_AUTH_DETAILED_ERRORS: 'true' }),
      { names: ENV_NAMES },
    );
    expect((await rejectionOf(fromEnv(serviceRequest(), hs({})))).message).toMatch(/CUBEJS_API_SECRET is not set/);
    fromEnv.close();
  });

  it('never echoes the token or the secret in a message', async () => {
    const tokens = [hs({}, { expiresIn: -10 }), signToken({}, { alg: 'HS256', key: randomSecret() }), `${hs({})}x`];
    for (const token of tokens) {
      const error = await rejectionOf(checkAuth(serviceRequest(), token));
      expect(error).toBeInstanceOf(DualAuthError);
      expect(error.message).not.toContain(token.split('.')[2]);
      expect(error.message).not.toContain(secret);
    }
  });
});
