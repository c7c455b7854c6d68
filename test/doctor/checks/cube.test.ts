import { execFile } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { diagnose } from '../../../src/doctor';
import { cubeJsChecks, gatewayCheck } from '../../../src/doctor/checks/cube';
import { GATEWAY, OWN_DIRECTORY } from '../../../src/host-cube';
import { CLI, jsonOf, runBin } from '../../support/cli';
import { randomSecret } from '../../support/claims';
import { cubeJsIn, gatewayIn, RECOMMENDED_CUBE_JS } from '../../support/cube';
import { diagnoseFixture } from '../../support/diagnose';
import type { JwksServer } from '../../support/jwks-server';

const SECRET = randomSecret();
let server: JwksServer;
let cubeProject: string;
const fixture = diagnoseFixture();
beforeAll(() => ({ server, cubeProject } = fixture));

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

describe('gatewayCheck', () => {
  it('says where the gateway resolves from, with its version: rejections become HTTP 403', () => {
    expect(gatewayCheck(cubeProject)).toEqual({
      id: 'cube-gateway',
      status: 'ok',
      message: `${GATEWAY} 1.7.43 resolves from ${cubeProject}: rejections become HTTP 403`,
    });
  });

  it('warns where it resolves from nowhere the hook looks: rejections would become HTTP 500', () => {
    const empty = mkdtempSync(join(tmpdir(), 'gateway-none-'));
    try {
      expect(gatewayCheck(empty)).toEqual({
        id: 'cube-gateway',
        status: 'warn',
        message: `${GATEWAY} does not resolve from ${empty}, nor from cube-dual-auth's own directory (${OWN_DIRECTORY}): run doctor in the Cube project; if cube-dual-auth is not installed next to Cube, rejections become HTTP 500 instead of 403`,
      });
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  });
});

describe('cubeJsChecks', () => {
  it('gives the cube-js line, and the logger line only when cube.js was read', () => {
    const file = join(cubeProject, 'cube.js');
    const read = cubeJsChecks({
      kind: 'loaded',
      file,
      exports: [
        { name: 'checkAuth', function: true, fromPackage: true },
        { name: 'logger', function: true, fromPackage: true },
      ],
    });
    expect(read).toEqual([
      {
        id: 'cube-js',
        status: 'ok',
        message: `${file} exports checkAuth (cube-dual-auth's), logger (cube-dual-auth's)`,
      },
      { id: 'logger', status: 'ok', message: "cube-dual-auth's logger: tokens are masked in Cube's log" },
    ]);
    expect(cubeJsChecks({ kind: 'missing', file }).map(({ id, status }) => `${id} ${status}`)).toEqual([
      'cube-js warn',
    ]);
  });
});

describe('gatewayCheck, with cube-dual-auth installed in a Cube project and run from elsewhere', () => {
  /**
   * doctor's cube-gateway check finds Cube's gateway as the hook does (src/host-cube.ts). Here cube-dual-auth is
   * installed in a Cube project's node_modules (a copy of the built package) and run from another directory, from
   * which only the package's own directory leads to Cube: the hook then throws Cube's class, and Cube answers 403.
   */
  const root = join(__dirname, '..', '..', '..');
  const SECRET = randomSecret(32);
  let project: string;
  let elsewhere: string;
  let installed: string;

  beforeAll(() => {
    project = mkdtempSync(join(tmpdir(), 'cube-project-'));
    elsewhere = mkdtempSync(join(tmpdir(), 'elsewhere-'));
    const modules = join(project, 'node_modules');
    const gateway = join(modules, '@cubejs-backend', 'api-gateway');
    mkdirSync(gateway, { recursive: true });
    writeFileSync(
      join(gateway, 'package.json'),
      JSON.stringify({ name: '@cubejs-backend/api-gateway', version: '1.7.43', main: 'index.js' }),
    );
    // The shape of Cube's class: (status, type, message).
    writeFileSync(
      join(gateway, 'index.js'),
      'class CubejsHandlerError extends Error { constructor(status, type, message) { super(message); this.status = status; this.type = type; } }\nmodule.exports = { CubejsHandlerError };\n',
    );
    installed = join(modules, 'cube-dual-auth');
    cpSync(dirname(dirname(CLI)), join(installed, 'dist'), { recursive: true });
    cpSync(join(root, 'package.json'), join(installed, 'package.json'));
    // The package's dependencies, where npm would have put them.
    for (const dependency of ['jsonwebtoken', 'jwks-rsa'])
      symlinkSync(join(root, 'node_modules', dependency), join(modules, dependency));
  });
  afterAll(() => {
    rmSync(project, { recursive: true, force: true });
    rmSync(elsewhere, { recursive: true, force: true });
  });

  it("doctor, run outside the Cube project, finds Cube from its own directory as the hook does, which answers with Cube's class", async () => {
    const result = await runBin(['doctor', '--json'], {
      bin: join(installed, 'dist', 'cli', 'main.js'),
      cwd: elsewhere,
      env: { CUBEJS_API_SECRET: SECRET },
    });
    const gatewayCheck = jsonOf<{ checks: { id: string; status: string; message: string }[] }>(result).checks.find(
      (c) => c.id === 'cube-gateway',
    );
    expect(gatewayCheck).toEqual({
      id: 'cube-gateway',
      status: 'ok',
      message: `@cubejs-backend/api-gateway 1.7.43 resolves from cube-dual-auth's own directory (${join(installed, 'dist')}), not from ${elsewhere}: rejections become HTTP 403`,
    });

    const hook = `
      const { createCheckAuth } = require(${JSON.stringify(installed)});
      const { CubejsHandlerError } = require(${JSON.stringify(join(project, 'node_modules', '@cubejs-backend', 'api-gateway'))});
      createCheckAuth({ apiSecret: process.env.SECRET })({ headers: {} }, undefined).catch((error) => console.log(error instanceof CubejsHandlerError, error.status));`;
    const { stdout } = await promisify(execFile)(process.execPath, ['-e', hook], {
      cwd: elsewhere,
      env: { PATH: process.env.PATH ?? '', SECRET },
    });
    expect(stdout).toBe('true 403\n');
  });
});
