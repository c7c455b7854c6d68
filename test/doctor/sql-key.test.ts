import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { diagnose } from '../../src/doctor';
import { randomSecret } from '../support/claims';
import { startJwksServer, type JwksServer } from '../support/jwks-server';
import { generateKeyPair, jwks } from '../support/keys';

// Kept apart from index.test.ts: the SQL keys' line is its own check, `sql-key`.
const SECRET = randomSecret();
const KEY_SECRETS = [randomSecret(), randomSecret()];
let server: JwksServer;
let base: Record<string, string>;

beforeAll(async () => {
  server = await startJwksServer(jwks(generateKeyPair('RS256', { kid: 'k1' })));
  base = { CUBEJS_API_SECRET: SECRET, CUBEJS_JWK_URL: server.url };
});
afterAll(() => server.close());

const sqlKeyLine = async (env: Record<string, string>) =>
  (await diagnose({ ...base, ...env }, process.cwd())).checks.find(({ id }) => id === 'sql-key');

describe('doctor: the SQL keys set-up', () => {
  it('is left out while no SQL key variable is set', async () => {
    expect(await sqlKeyLine({})).toBeUndefined();
  });

  it('reports the secrets in force, the maximum age and the revoked ids as counts, never as values', async () => {
    const revoked = ['key-id-1', 'key-id-2', 'key-id-3'];
    const line = await sqlKeyLine({
      CUBE_DUAL_AUTH_SQL_KEY_SECRETS: KEY_SECRETS.join(','),
      CUBE_DUAL_AUTH_SQL_KEY_MAX_AGE: '30d',
      CUBE_DUAL_AUTH_SQL_KEYS_REVOKED: revoked.join(','),
    });
    expect(line).toEqual({
      id: 'sql-key',
      status: 'ok',
      message:
        'SQL keys (cube-dual-auth sql-key): 2 secrets in CUBE_DUAL_AUTH_SQL_KEY_SECRETS (the first signs, all verify), each with at least 32 bytes of key material and none an API secret; keys live at most 30d (CUBE_DUAL_AUTH_SQL_KEY_MAX_AGE); 3 revoked key ids (CUBE_DUAL_AUTH_SQL_KEYS_REVOKED)',
    });
    for (const value of [...KEY_SECRETS, ...revoked]) expect(line?.message).not.toContain(value);
  });

  it('warns when keys are revoked or limited but no secret verifies any', async () => {
    expect(await sqlKeyLine({ CUBE_DUAL_AUTH_SQL_KEYS_REVOKED: 'key-id-1' })).toEqual({
      id: 'sql-key',
      status: 'warn',
      message:
        'SQL keys: CUBE_DUAL_AUTH_SQL_KEY_SECRETS is not set, so every SQL key is refused and "cube-dual-auth sql-key" mints none; keys live at most 90d (CUBE_DUAL_AUTH_SQL_KEY_MAX_AGE); 1 revoked key id (CUBE_DUAL_AUTH_SQL_KEYS_REVOKED)',
    });
  });

  it('fails the configuration on a key secret that is an API secret, naming the variable and not the secret', async () => {
    const diagnosis = await diagnose({ ...base, CUBE_DUAL_AUTH_SQL_KEY_SECRETS: SECRET }, process.cwd());
    expect(diagnosis.ok).toBe(false);
    const configuration = diagnosis.checks.find(({ id }) => id === 'configuration');
    expect(configuration).toMatchObject({
      status: 'fail',
      message: expect.stringContaining(
        'CUBE_DUAL_AUTH_SQL_KEY_SECRETS is also an API secret (CUBEJS_API_SECRET)',
      ) as string,
    });
    expect(JSON.stringify(diagnosis)).not.toContain(SECRET);
  });
});
