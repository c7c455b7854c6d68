import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { diagnose } from '../../../src/doctor';
import { randomSecret } from '../../support/claims';
import { cubeJsIn, gatewayIn } from '../../support/cube';
import { diagnoseFixture } from '../../support/diagnose';
import type { JwksServer } from '../../support/jwks-server';

const SECRET = randomSecret();
const KEY_SECRETS = [randomSecret(), randomSecret()];
let server: JwksServer;
let cubeProject: string;
let elsewhere: string;
const fixture = diagnoseFixture();
beforeAll(() => ({ server, cubeProject, elsewhere } = fixture));

describe('diagnose: the SQL API login', () => {
  /** A Cube project whose cube.js gives Cube the package's checkSqlAuth. */
  let sqlProject: string;
  beforeAll(() => {
    sqlProject = mkdtempSync(join(tmpdir(), 'diagnose-sql-'));
    gatewayIn(sqlProject, 'module.exports = {};\n');
    cubeJsIn(
      sqlProject,
      "const { checkAuth, checkSqlAuth, logger } = require('cube-dual-auth');\nmodule.exports = { checkAuth, checkSqlAuth, logger };\n",
    );
  });
  afterAll(() => rmSync(sqlProject, { recursive: true, force: true }));
  const sqlOf = async (env: NodeJS.ProcessEnv, cwd = sqlProject) =>
    (await diagnose(env, cwd)).checks.find(({ id }) => id === 'sql-api');

  it('says nothing of it when the environment neither turns the SQL API on nor configures its login', async () => {
    expect(
      await sqlOf({ CUBEJS_API_SECRET: SECRET, CUBEJS_JWK_URL: server.url, CUBEJS_PG_SQL_PORT: 'false' }),
    ).toBeUndefined();
  });

  it('reports who a token signs in as, the static login and the super user, never the password', async () => {
    const password = randomSecret(16);
    const env = {
      CUBEJS_JWK_URL: server.url,
      CUBEJS_PG_SQL_PORT: '15432',
      CUBEJS_SQL_USER: 'cube',
      CUBEJS_SQL_PASSWORD: password,
      CUBEJS_SQL_SUPER_USER: 'cube',
    };
    const check = await sqlOf(env);
    expect(check).toEqual({
      id: 'sql-api',
      status: 'ok',
      message: `SQL API on CUBEJS_PG_SQL_PORT: checkSqlAuth in cube.js is cube-dual-auth's; an identity-provider token as the password, the user name must be the token's claim "sub" (CUBE_DUAL_AUTH_SQL_USER_CLAIM); static login "cube" with CUBEJS_SQL_PASSWORD (never printed); CUBEJS_SQL_SUPER_USER "cube" may ask to switch users; Cube Cloud's DAX API (NTLM, Kerberos) is not supported: its users sign in with a SQL key or a token as the password; a BI session lives until its token expires, checked every 300 s (CUBESQL_AUTH_EXPIRE_SECS, Cube's default)`,
    });
    expect(check?.message).not.toContain(password);
    expect((await sqlOf({ CUBEJS_JWK_URL: server.url, CUBE_DUAL_AUTH_SQL_USER_CLAIM: '*' }))?.message).toBe(
      "SQL API: checkSqlAuth in cube.js is cube-dual-auth's; an identity-provider token as the password, any user name (CUBE_DUAL_AUTH_SQL_USER_CLAIM=*), a session re-authenticated only while one subject signs in under its name; no static login; no CUBEJS_SQL_SUPER_USER: a user stays itself; Cube Cloud's DAX API (NTLM, Kerberos) is not supported: its users sign in with a SQL key or a token as the password; a BI session lives until its token expires, checked every 300 s (CUBESQL_AUTH_EXPIRE_SECS, Cube's default)",
    );
  });

  it('warns that under "*" the superuser signs in only by its own sub', async () => {
    const env = { CUBEJS_JWK_URL: server.url, CUBE_DUAL_AUTH_SQL_USER_CLAIM: '*', CUBEJS_SQL_SUPER_USER: 'admin' };
    expect(await sqlOf(env)).toMatchObject({
      status: 'warn',
      message: expect.stringContaining(
        'CUBEJS_SQL_SUPER_USER "admin" may ask to switch users, and signs in only with a token or SQL key whose own "sub" names it;',
      ) as string,
    });
  });

  it('says how long a BI session lives: until its token expires or is too old, checked every CUBESQL_AUTH_EXPIRE_SECS', async () => {
    const base = { CUBEJS_JWK_URL: server.url, CUBEJS_PG_SQL_PORT: '15432' };
    expect(
      (await sqlOf({ ...base, CUBESQL_AUTH_EXPIRE_SECS: '60', CUBE_DUAL_AUTH_MAX_TOKEN_AGE: '3600' }))?.message,
    ).toMatch(
      /; a BI session lives until its token expires or is 3600 s old \(CUBE_DUAL_AUTH_MAX_TOKEN_AGE\), checked every 60 s \(CUBESQL_AUTH_EXPIRE_SECS\)$/,
    );
    expect((await sqlOf({ ...base, CUBESQL_AUTH_EXPIRE_SECS: '5m\u001b[31m' }))?.message).toMatch(
      /; a BI session lives until its token expires; CUBESQL_AUTH_EXPIRE_SECS is not a whole number of seconds$/,
    );
  });

  it('warns of a static login given half, and of token logins with no identity provider to verify them', async () => {
    const half = await sqlOf({ CUBEJS_JWK_URL: server.url, CUBEJS_SQL_USER: 'cube' });
    expect(half).toMatchObject({
      status: 'warn',
      message: expect.stringContaining(
        'no static login: CUBEJS_SQL_PASSWORD is not set, only CUBEJS_SQL_USER',
      ) as string,
    });
    const noProvider = await sqlOf({ CUBEJS_API_SECRET: SECRET, CUBEJS_PG_SQL_PORT: '15432' });
    expect(noProvider).toMatchObject({
      status: 'warn',
      message: expect.stringContaining(
        'no identity provider is configured (CUBEJS_JWK_URL, CUBE_DUAL_AUTH_PROVIDERS), so every token login is refused',
      ) as string,
    });
  });

  it('fails while the SQL API is on and cube.js exports no checkSqlAuth; warns while only its login is configured', async () => {
    const env = { CUBEJS_JWK_URL: server.url, CUBEJS_PG_SQL_PORT: '15432' };
    expect(await sqlOf(env, cubeProject)).toMatchObject({
      status: 'fail',
      message: expect.stringMatching(
        /^SQL API on CUBEJS_PG_SQL_PORT: cube\.js exports no checkSqlAuth function: Cube's SQL API then takes only its own static login/,
      ) as string,
    });
    expect((await sqlOf({ CUBEJS_JWK_URL: server.url, CUBEJS_SQL_USER: 'cube' }, cubeProject))?.status).toBe('warn');
  });

  it('is not ok when cube.js could not be read: nothing was checked', async () => {
    const check = await sqlOf({ CUBEJS_JWK_URL: server.url, CUBEJS_PG_SQL_PORT: '15432' }, elsewhere);
    expect(check).toMatchObject({
      status: 'warn',
      message: expect.stringMatching(
        /^SQL API on CUBEJS_PG_SQL_PORT: checkSqlAuth not checked \(cube\.js was not read/,
      ),
    });
  });

  it('warns on a Cube before 1.3.13, which passes no req.protocol: every re-authentication is refused', async () => {
    const cube13 = mkdtempSync(join(tmpdir(), 'diagnose-cube-13-'));
    try {
      gatewayIn(cube13, 'module.exports = {};\n', { name: '@cubejs-backend/api-gateway', version: '1.3.12' });
      const check = await sqlOf({ CUBEJS_JWK_URL: server.url, CUBEJS_PG_SQL_PORT: '15432' }, cube13);
      expect(check?.status).toBe('warn');
      expect(check?.message).toMatch(
        /; Cube 1\.3\.12 passes no req\.protocol or req\.method to checkSqlAuth \(Cube 1\.3\.13 and later do\), so every re-authentication is refused and a BI session ends at its first one, CUBESQL_AUTH_EXPIRE_SECS after its login: upgrade Cube$/,
      );
    } finally {
      rmSync(cube13, { recursive: true, force: true });
    }
  });

  it('fails on a Cube that passes no password to checkSqlAuth (0.33), naming the version it needs', async () => {
    const cube033 = mkdtempSync(join(tmpdir(), 'diagnose-cube-033-'));
    try {
      gatewayIn(cube033, 'module.exports = {};\n', { name: '@cubejs-backend/api-gateway', version: '0.33.65' });
      expect(await sqlOf({ CUBEJS_JWK_URL: server.url, CUBEJS_PG_SQL_PORT: '15432' }, cube033)).toEqual({
        id: 'sql-api',
        status: 'fail',
        message:
          'Cube 0.33.65 passes no password to checkSqlAuth: every SQL login is refused; it needs Cube 0.34.27 or later',
      });
    } finally {
      rmSync(cube033, { recursive: true, force: true });
    }
  });
});

// The SQL keys' line is its own check, `sql-key`.
let base: Record<string, string>;
beforeAll(() => {
  base = { CUBEJS_API_SECRET: SECRET, CUBEJS_JWK_URL: server.url };
});

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
