import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { diagnose } from '../../src/doctor';
import { randomSecret } from '../support/claims';
import { cubeJsIn, gatewayIn, NODE_LINE_CUBE_1, RECOMMENDED_CUBE_JS } from '../support/cube';
import { startJwksServer, type JwksServer } from '../support/jwks-server';
import { generateKeyPair, jwks } from '../support/keys';

const SECRET = randomSecret();
let server: JwksServer;
/** A directory where `@cubejs-backend/api-gateway` resolves, like a Cube project; and one where it does not. */
let cubeProject: string;
let elsewhere: string;

beforeAll(async () => {
  server = await startJwksServer(jwks(generateKeyPair('RS256', { kid: 'k1' })));
  cubeProject = mkdtempSync(join(tmpdir(), 'diagnose-cube-'));
  gatewayIn(cubeProject, 'module.exports = {};\n');
  cubeJsIn(cubeProject, RECOMMENDED_CUBE_JS);
  elsewhere = mkdtempSync(join(tmpdir(), 'diagnose-empty-'));
});
afterAll(async () => {
  await server.close();
  rmSync(cubeProject, { recursive: true, force: true });
  rmSync(elsewhere, { recursive: true, force: true });
});

describe('diagnose', () => {
  it('checks a sound environment in one order, each line ok, and is ok', async () => {
    const env = {
      CUBEJS_API_SECRET: SECRET,
      CUBEJS_JWK_URL: server.url,
      CUBEJS_JWT_AUDIENCE: 'cube-api',
      CUBEJS_JWT_ISSUER: 'https://idp.example/',
    };
    const diagnosis = await diagnose(env, cubeProject);
    expect(diagnosis.checks.map(({ id, status }) => `${id} ${status}`)).toEqual([
      'configuration ok',
      'api-secret ok',
      'origin ok',
      'jwks-url ok',
      'jwks-keys ok',
      'audience ok',
      'issuer ok',
      'authorization ok',
      'cube-gateway ok',
      `node ${NODE_LINE_CUBE_1}`,
      'cube-js ok',
      'logger ok',
    ]);
    expect(diagnosis.ok).toBe(true);
  });

  it('is ok with warnings, and not ok once a check fails', async () => {
    const warned = await diagnose({ CUBEJS_API_SECRET: SECRET, CUBEJS_JWK_URL: server.url }, elsewhere);
    expect(warned.checks.filter(({ status }) => status === 'warn').map(({ id }) => id)).toEqual([
      'audience',
      'issuer',
      'cube-gateway',
      'cube-js',
    ]);
    expect(warned.ok).toBe(true);
    const failed = await diagnose(
      { CUBEJS_API_SECRET: SECRET, CUBEJS_JWK_URL: 'http://127.0.0.1:9/jwks.json' },
      cubeProject,
    );
    expect(failed.checks.find(({ id }) => id === 'jwks-keys')).toMatchObject({
      status: 'fail',
      message: expect.stringContaining('unreachable'),
    });
    expect(failed.ok).toBe(false);
  });

  it('never throws for a configuration that cannot work: it fails the configuration, and leaves out the checks that need a valid one', async () => {
    const diagnosis = await diagnose(
      { CUBEJS_API_SECRET: SECRET, CUBEJS_JWT_ALGS: 'HS256', CUBEJS_JWK_URL: server.url },
      cubeProject,
    );
    expect(diagnosis.checks.map(({ id, status }) => `${id} ${status}`)).toEqual([
      'configuration fail',
      'api-secret ok',
      'cube-gateway ok',
      `node ${NODE_LINE_CUBE_1}`,
      // cube.js takes the ready-made checkAuth, which stops Cube for the same reason.
      'cube-js fail',
    ]);
    expect(diagnosis.checks[0]?.message).toMatch(/^cube-dual-auth: CUBEJS_JWT_ALGS contains "HS256"/);
    expect(diagnosis.checks.at(-1)?.message).toMatch(
      /cube\.js throws while it loads, so Cube will not start: cube-dual-auth: CUBEJS_JWT_ALGS contains "HS256"/,
    );
    expect(diagnosis.ok).toBe(false);
  });

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

  it('with a weak API secret alone, runs every check all the same, so that one run shows all there is to fix', async () => {
    const diagnosis = await diagnose({ CUBEJS_API_SECRET: 'too-short-0123', CUBEJS_JWK_URL: server.url }, cubeProject);
    expect(diagnosis.checks.map(({ id, status }) => `${id} ${status}`)).toEqual([
      'configuration fail',
      'api-secret fail',
      'origin ok',
      'jwks-url ok',
      'jwks-keys ok',
      'audience warn',
      'issuer warn',
      'authorization ok',
      'cube-gateway ok',
      `node ${NODE_LINE_CUBE_1}`,
      'cube-js fail',
    ]);
    expect(diagnosis.checks[0]?.message).toBe(
      'the checkAuth hook accepts every variable but the API secret, which is too weak: Cube will not start (see api-secret)',
    );
  });

  it('checks several identity providers one at a time, in the configured order, each line naming its issuer', async () => {
    const providers = [
      { issuer: 'https://b.example/', jwksUri: server.url, audience: 'b-api' },
      { issuer: 'https://a.example/', jwksUri: server.url },
    ];
    const diagnosis = await diagnose(
      { CUBEJS_API_SECRET: SECRET, CUBE_DUAL_AUTH_PROVIDERS: JSON.stringify(providers) },
      cubeProject,
    );
    const named = diagnosis.checks.filter((check) => check.issuer !== undefined);
    expect(named.map(({ id, status, issuer }) => `${issuer} ${id} ${status}`)).toEqual([
      'https://b.example/ jwks-url ok',
      'https://b.example/ jwks-keys ok',
      'https://b.example/ audience ok',
      'https://a.example/ jwks-url ok',
      'https://a.example/ jwks-keys ok',
      'https://a.example/ audience warn',
    ]);
    expect(named[0]?.message).toBe(`identity provider "https://b.example/": JWKS URL ${server.url}`);
    // The issuer of each provider is checked by its routing: no line of its own.
    expect(diagnosis.checks.map(({ id }) => id)).not.toContain('issuer');
  });
});

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

describe('diagnose: metrics', () => {
  const metricsOf = async (env: NodeJS.ProcessEnv) =>
    (await diagnose({ CUBEJS_API_SECRET: SECRET, ...env }, cubeProject)).checks.find(({ id }) => id === 'metrics');

  it('says nothing of them while they are off, the default', async () => {
    expect(await metricsOf({})).toBeUndefined();
    expect(await metricsOf({ CUBE_DUAL_AUTH_METRICS: 'false' })).toBeUndefined();
  });

  it('says where GET /metrics is served, or that they are recorded without a listener', async () => {
    expect(await metricsOf({ CUBE_DUAL_AUTH_METRICS_PORT: '9464' })).toEqual({
      id: 'metrics',
      status: 'ok',
      message:
        "GET /metrics on 127.0.0.1:9464 (CUBE_DUAL_AUTH_METRICS_PORT, CUBE_DUAL_AUTH_METRICS_HOST), a listener of its own beside Cube's API",
    });
    expect(
      (await metricsOf({ CUBE_DUAL_AUTH_METRICS_PORT: '9464', CUBE_DUAL_AUTH_METRICS_HOST: '::1' }))?.message,
    ).toContain('GET /metrics on [::1]:9464 ');
    expect(await metricsOf({ CUBE_DUAL_AUTH_METRICS: 'true' })).toMatchObject({
      status: 'ok',
      message: expect.stringMatching(/^recorded without a listener \(CUBE_DUAL_AUTH_METRICS=true\)/),
    });
  });

  it("fails a metrics port that is Cube's own API port (PORT, 4000 unless set)", async () => {
    expect(await metricsOf({ CUBE_DUAL_AUTH_METRICS_PORT: '4000' })).toMatchObject({
      status: 'fail',
      message: "CUBE_DUAL_AUTH_METRICS_PORT is 4000, Cube's own API port (PORT): give the metrics a port of their own",
    });
    expect(await metricsOf({ CUBE_DUAL_AUTH_METRICS_PORT: '8080', PORT: '8080' })).toMatchObject({ status: 'fail' });
    expect(await metricsOf({ CUBE_DUAL_AUTH_METRICS_PORT: '4000', PORT: '8080' })).toMatchObject({ status: 'ok' });
  });
});

describe('diagnose: the refresh worker', () => {
  const TENANT = { CUBEJS_API_SECRET: SECRET, CUBE_DUAL_AUTH_TENANT_CLAIM: 'tenant' };
  const refreshOf = async (env: NodeJS.ProcessEnv) =>
    (await diagnose(env, cubeProject)).checks.find(({ id }) => id === 'refresh-worker');
  const CONTEXTS =
    "every context that scheduledRefreshContexts in cube.js returns needs a securityContext with tenant and groups: contextToAppId and contextToOrchestratorId refuse one without (Cube's default is one empty context), and with contextToOrchestratorId Cube stops at its first refresh";

  it('says nothing without a tenant configured, where the worker does not run, or with NODE_ENV unset (the image may set it)', async () => {
    expect(await refreshOf({ CUBEJS_API_SECRET: SECRET, CUBEJS_REFRESH_WORKER: 'true' })).toBeUndefined();
    expect(await refreshOf({ ...TENANT, NODE_ENV: 'production' })).toBeUndefined();
    expect(await refreshOf(TENANT)).toBeUndefined();
    expect(await refreshOf({ ...TENANT, CUBEJS_REFRESH_WORKER: 'false' })).toBeUndefined();
    expect(
      await refreshOf({ ...TENANT, CUBEJS_REFRESH_WORKER: '0', CUBEJS_SCHEDULED_REFRESH: 'true' }),
    ).toBeUndefined();
  });

  it('says what its contexts need where it runs, as Cube decides: the first variable set, else NODE_ENV', async () => {
    expect(await refreshOf({ ...TENANT, CUBEJS_REFRESH_WORKER: 'true', NODE_ENV: 'production' })).toEqual({
      id: 'refresh-worker',
      status: 'ok',
      message: `Cube's refresh worker runs here (CUBEJS_REFRESH_WORKER): ${CONTEXTS}`,
    });
    expect(await refreshOf({ ...TENANT, CUBEJS_SCHEDULED_REFRESH_TIMER: '60', NODE_ENV: 'production' })).toMatchObject({
      status: 'ok',
      message: expect.stringContaining('(CUBEJS_SCHEDULED_REFRESH_TIMER)'),
    });
  });

  it('warns where it runs only because NODE_ENV is set to something other than production', async () => {
    expect(await refreshOf({ ...TENANT, NODE_ENV: 'development' })).toEqual({
      id: 'refresh-worker',
      status: 'warn',
      message: `Cube's refresh worker runs here because NODE_ENV is not production: ${CONTEXTS}; set CUBEJS_REFRESH_WORKER=false where this instance builds no pre-aggregations`,
    });
    expect((await refreshOf({ ...TENANT, NODE_ENV: 'test' }))?.status).toBe('warn');
  });
});

describe('diagnose: what cube.js gives Cube', () => {
  const projects: string[] = [];
  afterAll(() => {
    for (const dir of projects) rmSync(dir, { recursive: true, force: true });
  });
  /** A Cube 1.7.43 project with this cube.js. */
  const projectWith = (source: string): string => {
    const dir = mkdtempSync(join(tmpdir(), 'diagnose-cube-js-'));
    projects.push(dir);
    gatewayIn(dir, 'module.exports = {};\n');
    cubeJsIn(dir, source);
    return dir;
  };
  const env = { CUBEJS_API_SECRET: SECRET };
  const lines = async (vars: NodeJS.ProcessEnv, cwd: string) =>
    (await diagnose({ ...vars, CUBEJS_JWK_URL: server.url }, cwd)).checks.filter(({ id }) =>
      ['authorization', 'cube-options', 'cube-js', 'logger'].includes(id),
    );

  it('warns, with authorization on Cube 1.x, of no contextToGroups where the model is not found, saying it rests on the model', async () => {
    const checks = await lines({ ...env, CUBE_DUAL_AUTH_TENANT_CLAIM: 'tenant' }, cubeProject);
    expect(checks.map(({ id, status }) => `${id} ${status}`)).toEqual([
      'authorization ok',
      'cube-options warn',
      'cube-js ok',
      'logger ok',
    ]);
    expect(checks[1]?.message).toMatch(
      /^cube\.js exports no contextToGroups: this depends on the data model, which doctor did not read \(there is no model directory .*\): if its access policies name groups, Cube 1\.7\.43 matches access policies .*; check the model's files, or what a token sees with "cube-dual-auth access"$/,
    );
  });

  it('reads the model where Cube does, and the environment of .env says where', async () => {
    const dir = projectWith(RECOMMENDED_CUBE_JS);
    mkdirSync(join(dir, 'models', 'cubes'), { recursive: true });
    writeFileSync(
      join(dir, 'models', 'cubes', 'orders.yml'),
      'cubes:\n  - name: orders\n    access_policy:\n      - group: analyst\n',
    );
    writeFileSync(join(dir, '.env'), 'CUBEJS_SCHEMA_PATH=models\n');
    const [, options] = await lines({ ...env, CUBE_DUAL_AUTH_GROUPS_CLAIM: 'roles' }, dir);
    expect(options).toEqual({
      id: 'cube-options',
      status: 'warn',
      message: expect.stringMatching(
        /^cube\.js exports no contextToGroups, and models\/cubes\/orders\.yml has access policies by group: /,
      ) as string,
    });
  });

  it("is ok with the package's options, and says nothing of them with authorization off", async () => {
    const dir = projectWith(
      "const { checkAuth, logger, contextToGroups, contextToAppId } = require('cube-dual-auth');\n" +
        'module.exports = { checkAuth, logger, contextToGroups, contextToAppId };\n',
    );
    const on = await lines({ ...env, CUBE_DUAL_AUTH_TENANT_CLAIM: 'tenant' }, dir);
    expect(on.find(({ id }) => id === 'cube-options')).toEqual({
      id: 'cube-options',
      status: 'ok',
      message: 'cube.js exports contextToGroups (Cube 1.7.43); exports contextToAppId (a tenant claim is configured)',
    });
    expect(on.find(({ id }) => id === 'cube-js')?.message).toBe(
      `${join(dir, 'cube.js')} exports checkAuth (cube-dual-auth's), logger (cube-dual-auth's), contextToGroups (cube-dual-auth's), contextToAppId (cube-dual-auth's)`,
    );
    expect((await lines(env, dir)).map(({ id }) => id)).not.toContain('cube-options');
  });

  it('warns when cube.js exports no logger: Cube then logs tokens', async () => {
    const dir = projectWith("module.exports = { checkAuth: require('cube-dual-auth').checkAuth };\n");
    const diagnosis = await diagnose({ ...env, CUBEJS_JWK_URL: server.url }, dir);
    expect(diagnosis.checks.find(({ id }) => id === 'logger')).toMatchObject({
      status: 'warn',
      message: expect.stringContaining("Cube's default logger then writes whole tokens into its log"),
    });
    expect(diagnosis.ok).toBe(true);
  });

  it('fails a cube.js without checkAuth, and one that does not load in time', async () => {
    const none = await diagnose({ ...env, CUBEJS_JWK_URL: server.url }, projectWith('module.exports = {};\n'));
    expect(none.checks.find(({ id }) => id === 'cube-js')?.status).toBe('fail');
    expect(none.ok).toBe(false);
    const slow = await diagnose({ ...env, CUBEJS_JWK_URL: server.url }, projectWith('for (;;) {}\n'), {
      cubeJsTimeoutMs: 2000,
    });
    expect(slow.checks.find(({ id }) => id === 'cube-js')).toMatchObject({
      status: 'fail',
      message: expect.stringContaining('did not finish loading within 2000 ms'),
    });
  });
});
