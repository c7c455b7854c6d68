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
    expect(() => root.checkAuth).toThrow('cube-dual-auth: CUBEJS_JWK_URL must be an http(s) URL');
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
