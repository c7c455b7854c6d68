/** The verify report of one token, as `verify` prints it and `access` reads it, from the hook the environment makes. */
import { describe, expect, it } from 'vitest';
import { DEFAULTS } from '../../src/config/options';
import { verifyToken } from '../../src/cli/verify-report';
import { randomSecret, timed } from '../support/claims';
import { signToken } from '../support/tokens';

const SECRET = randomSecret(32);
const env = { CUBEJS_API_SECRET: SECRET };
const serviceToken = (payload: Record<string, unknown> = {}, secret = SECRET): string =>
  signToken(timed(payload), { alg: 'HS256', key: secret });

describe('verifyToken', () => {
  it("sends the configured origin for '', and reports the shared-secret path, the secret's variable and the dates", async () => {
    const token = serviceToken({ tenant: 'acme' });
    const { report, severalProviders } = await verifyToken({ token, origin: '' }, env);
    expect(severalProviders).toBe(false);
    expect(report).toMatchObject({
      accepted: true,
      requestOrigin: DEFAULTS.origin,
      path: 'shared-secret',
      key: { source: 'api-secret', secrets: 1, variables: ['CUBEJS_API_SECRET'] },
      authorization: null,
      securityContext: { tenant: 'acme' },
      error: null,
    });
    expect(report.token).not.toContain(token.split('.')[2]);
    expect(report.times.exp?.iso).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  });

  it('sends no Request-Origin for undefined: the key-set path, refused with its code and fix', async () => {
    const { report } = await verifyToken({ token: serviceToken(), origin: undefined }, env);
    expect(report).toMatchObject({ accepted: false, requestOrigin: null, path: 'key-set', securityContext: null });
    expect(report.error?.code).toBe('ERR_JWKS_NOT_CONFIGURED');
    expect(report.error?.hint).toMatch(/^Set CUBEJS_JWK_URL to the identity provider's JWKS URL/);
  });

  it('reports the tenant and groups the hook gave when authorization is on, none for a refused token', async () => {
    const authorizing = { ...env, CUBE_DUAL_AUTH_TENANT_CLAIM: 'tenant', CUBE_DUAL_AUTH_SERVICE_GROUPS: 'embeddable' };
    const accepted = await verifyToken({ token: serviceToken({ tenant: 'beta' }), origin: '' }, authorizing);
    expect(accepted.report.authorization).toEqual({ tenant: 'beta', groups: ['embeddable'] });
    const refused = await verifyToken(
      { token: serviceToken({ tenant: 'beta' }, randomSecret(32)), origin: '' },
      authorizing,
    );
    expect(refused.report).toMatchObject({
      accepted: false,
      authorization: null,
      error: { code: 'ERR_SIGNATURE_INVALID' },
    });
  });

  it('reports a configuration error as the verdict instead of throwing it', async () => {
    const { report } = await verifyToken(
      { token: serviceToken(), origin: '' },
      { ...env, CUBEJS_JWT_ALGS: 'RS256,HS256' },
    );
    expect(report).toMatchObject({ accepted: false, path: null, header: null, key: null, times: {} });
    expect(report.error?.code).toBe('ERR_CONFIG_INVALID');
    expect(report.error?.message).toMatch(/CUBEJS_JWT_ALGS contains "HS256"/);
  });
});
