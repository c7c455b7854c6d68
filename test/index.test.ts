import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import * as root from '../src';
import { DualAuthConfigError } from '../src/errors';
import { randomSecret } from './support/claims';

/** The environment as this test sets it: none of the shell's Cube or cube-dual-auth variables. */
beforeEach(() => {
  for (const name of Object.keys(process.env)) if (/^(CUBEJS_|CUBE_DUAL_AUTH_)/.test(name)) vi.stubEnv(name, '');
});
afterEach(() => {
  vi.unstubAllEnvs();
});

describe("the package root's checkAuth", () => {
  it('is checked when it is read, not when the package is imported: a configuration that cannot work throws, naming the variable', () => {
    vi.stubEnv('CUBEJS_JWK_URL', 'ftp://idp.example/jwks');
    expect(() => root.checkAuth).toThrow(DualAuthConfigError);
    expect(() => root.checkAuth).toThrow(
      'cube-dual-auth: CUBEJS_JWK_URL must be an http(s) URL, not "ftp://idp.example/jwks"',
    );
  });

  it('is the one ready-made hook once the environment configures a path', () => {
    vi.stubEnv('CUBEJS_API_SECRET', randomSecret());
    const { checkAuth } = root;
    try {
      expect(typeof checkAuth).toBe('function');
      expect(root.checkAuth).toBe(checkAuth);
    } finally {
      checkAuth.close();
    }
  });
});

describe("the package root's Cube options, configured from the environment as checkAuth is", () => {
  const context = (securityContext: unknown) => ({ securityContext });

  it('read the tenant and groups the ready-made hook puts in the security context', () => {
    vi.stubEnv('CUBEJS_API_SECRET', randomSecret());
    vi.stubEnv('CUBE_DUAL_AUTH_TENANT_CLAIM', 'org');
    try {
      const acme = context({ tenant: 'acme', groups: ['analyst'] });
      expect(root.contextToGroups(acme)).toEqual(['analyst']);
      expect(root.contextToAppId(acme)).toBe('CUBE_APP_acme');
      expect(root.contextToOrchestratorId(acme)).toBe('CUBE_APP_acme');
      expect(root.tenantFilter({ orders: 'orders.tenant' })({ measures: ['orders.count'] }, acme).filters).toEqual([
        { member: 'orders.tenant', operator: 'equals', values: ['acme'] },
      ]);
      expect(() => root.contextToAppId(context({}))).toThrow(
        expect.objectContaining({ status: 403, code: 'ERR_FORBIDDEN' }),
      );
    } finally {
      root.checkAuth.close();
    }
  });

  it('are plain functions, the same ones whatever the environment: listing or importing the root checks nothing', () => {
    const { contextToGroups, tenantFilter } = root;
    vi.stubEnv('CUBEJS_API_SECRET', randomSecret());
    expect(root.contextToGroups).toBe(contextToGroups);
    expect(root.tenantFilter).toBe(tenantFilter);
  });

  it('without a tenant claim: tenantFilter stops cube.js at load; a context function refuses with 403 ERR_CONFIG_INVALID, printed once', () => {
    vi.stubEnv('CUBEJS_API_SECRET', randomSecret());
    vi.stubEnv('CUBE_DUAL_AUTH_SERVICE_GROUPS', 'embeddable');
    const printed = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    try {
      expect(() => root.tenantFilter({ orders: 'orders.tenant' })).toThrow(
        new DualAuthConfigError(
          'tenantFilter',
          'reads what the hook puts in the security context, which needs a tenant claim (CUBE_DUAL_AUTH_TENANT_CLAIM): set it',
        ),
      );
      for (let i = 0; i < 2; i++) {
        expect(() => root.contextToAppId(context({ tenant: 'acme' }))).toThrow(
          expect.objectContaining({
            status: 403,
            code: 'ERR_CONFIG_INVALID',
            message: 'Authorization is misconfigured on this deployment; see the Cube server log',
          }),
        );
      }
      expect(printed.mock.calls).toEqual([
        [
          'cube-dual-auth: contextToAppId reads what the hook puts in the security context, which needs a tenant claim (CUBE_DUAL_AUTH_TENANT_CLAIM): set it',
        ],
      ]);
      expect(root.contextToGroups(context({ groups: ['embeddable'] }))).toEqual(['embeddable']);
    } finally {
      printed.mockRestore();
      root.checkAuth.close();
    }
  });
});
