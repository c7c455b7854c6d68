import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { diagnose } from '../../../src/doctor';
import { configurationCheck } from '../../../src/doctor/checks/configuration';
import { randomSecret } from '../../support/claims';
import { diagnoseFixture } from '../../support/diagnose';
import type { JwksServer } from '../../support/jwks-server';

const SECRET = randomSecret();
let server: JwksServer;
let cubeProject: string;
const fixture = diagnoseFixture();
beforeAll(() => ({ server, cubeProject } = fixture));

describe('configurationCheck', () => {
  it('names the bad file of the secrets directory, not the API secret, when only sql-keys-revoked is bad', () => {
    const dir = mkdtempSync(join(tmpdir(), 'cda-config-'));
    try {
      writeFileSync(join(dir, 'sql-keys-revoked'), 'user alice before yesterday\n');
      const { check } = configurationCheck({ CUBEJS_API_SECRET: SECRET, CUBE_DUAL_AUTH_SECRETS_DIR: dir });
      expect(check.status).toBe('fail');
      expect(check.message).toContain(`${join(dir, 'sql-keys-revoked')} line 1 revokes the keys of user "alice"`);
      expect(check.message).not.toMatch(/API secret|api-secret/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('is ok, with the options resolved, when the hook accepts the environment', () => {
    const { check, options, resolved } = configurationCheck({ CUBEJS_API_SECRET: SECRET });
    expect(check).toEqual({
      id: 'configuration',
      status: 'ok',
      message: 'the checkAuth hook accepts this environment',
    });
    expect(options?.apiSecret).toEqual([SECRET]);
    expect(resolved?.identityProviders).toEqual([]);
  });

  it("fails with the hook's own message, and resolves nothing, when a variable is invalid", () => {
    const { check, resolved } = configurationCheck({ CUBEJS_API_SECRET: SECRET, CUBEJS_JWT_ALGS: 'HS256' });
    expect(check.status).toBe('fail');
    expect(check.message).toMatch(/^cube-dual-auth: CUBEJS_JWT_ALGS contains "HS256"/);
    expect(resolved).toBeUndefined();
  });

  it('fails pointing at api-secret when the API secret alone is too weak, and resolves the rest all the same', () => {
    const { check, resolved } = configurationCheck({ CUBEJS_API_SECRET: 'too-short-0123' });
    expect(check).toEqual({
      id: 'configuration',
      status: 'fail',
      message:
        'the checkAuth hook accepts every variable but the API secret, which is too weak: Cube will not start (see api-secret)',
    });
    expect(resolved).toBeDefined();
  });

  it('resolves nothing when a weak secret is allowed and something else is wrong', () => {
    const env = { CUBEJS_API_SECRET: 'x', CUBE_DUAL_AUTH_ALLOW_WEAK_SECRET: 'true', CUBEJS_JWT_ALGS: 'HS256' };
    const { check, resolved } = configurationCheck(env);
    expect(check.message).toMatch(/^cube-dual-auth: CUBEJS_JWT_ALGS contains "HS256"/);
    expect(resolved).toBeUndefined();
  });
});

describe('diagnose: the configuration line', () => {
  it('fails a revocation list that would revoke nothing (ids separated by ";"), naming the variable', async () => {
    const diagnosis = await diagnose(
      { CUBEJS_API_SECRET: SECRET, CUBEJS_JWK_URL: server.url, CUBE_DUAL_AUTH_SQL_KEYS_REVOKED: 'a-1;b-2' },
      cubeProject,
    );
    expect(diagnosis.checks[0]).toEqual({
      id: 'configuration',
      status: 'fail',
      message:
        'cube-dual-auth: CUBE_DUAL_AUTH_SQL_KEYS_REVOKED holds "a-1;b-2", which is no SQL key id: separate ids with commas, spaces or newlines',
    });
    expect(diagnosis.ok).toBe(false);
  });
});
