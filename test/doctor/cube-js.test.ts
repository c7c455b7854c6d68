import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  cubeJsFinding,
  loggerFinding,
  readCubeJs,
  sqlAuthFinding,
  type CubeJsExport,
  type CubeJsReading,
} from '../../src/doctor/cube-js';
import { randomSecret } from '../support/claims';
import { cubeJsIn, RECOMMENDED_CUBE_JS } from '../support/cube';
import { signToken } from '../support/tokens';

const SECRET = randomSecret(32);
const ENV = { CUBEJS_API_SECRET: SECRET };
const projects: string[] = [];

/** A fresh Cube project directory with this `cube.js` (none when undefined). */
function project(source?: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'cube-js-'));
  projects.push(dir);
  if (source !== undefined) cubeJsIn(dir, source);
  return dir;
}

afterEach(() => {
  for (const dir of projects.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const read = (cwd: string, env: NodeJS.ProcessEnv = ENV, timeoutMs = 10_000): Promise<CubeJsReading> =>
  readCubeJs({ cwd, env, timeoutMs });

describe('readCubeJs: cube.js read in a child process, as Cube loads it', () => {
  it('lists the exports, their kinds, and which are the very values of cube-dual-auth', async () => {
    const dir = project(
      "const { checkAuth, logger } = require('cube-dual-auth');\n" +
        'module.exports = { checkAuth, logger, contextToGroups: () => [], http: { cors: {} } };\n',
    );
    expect(await read(dir)).toEqual({
      kind: 'loaded',
      file: join(dir, 'cube.js'),
      exports: [
        { name: 'checkAuth', function: true, fromPackage: true },
        { name: 'logger', function: true, fromPackage: true },
        // The package exports a contextToGroups too, but this is another function.
        { name: 'contextToGroups', function: true, fromPackage: false },
        { name: 'http', function: false },
      ],
    });
  });

  it('reads an empty configuration, and a transpiled one (exports.default of an __esModule)', async () => {
    expect(await read(project('module.exports = {};\n'))).toMatchObject({ kind: 'loaded', exports: [] });
    const transpiled = project(
      'Object.defineProperty(exports, "__esModule", { value: true });\nexports.default = { checkAuth() {} };\n',
    );
    expect(await read(transpiled)).toMatchObject({
      kind: 'loaded',
      exports: [{ name: 'checkAuth', function: true }],
    });
  });

  it("reads an ES module cube.js (a project of type module), judging the package's exports alike", async () => {
    const dir = project("import { checkAuth, logger } from 'cube-dual-auth';\nexport default { checkAuth, logger };\n");
    writeFileSync(join(dir, 'package.json'), '{"type":"module"}');
    expect(await read(dir)).toMatchObject({
      kind: 'loaded',
      exports: [
        { name: 'checkAuth', function: true, fromPackage: true },
        { name: 'logger', function: true, fromPackage: true },
      ],
    });
  });

  it('says when there is no cube.js', async () => {
    const dir = project();
    expect(await read(dir)).toEqual({ kind: 'missing', file: join(dir, 'cube.js') });
  });

  it('reports a cube.js that throws, by its message, with tokens and secret values masked', async () => {
    const token = signToken({ sub: 'u' }, { alg: 'HS256', key: SECRET });
    const dir = project(
      `throw new Error('bad config: ' + process.env.CUBEJS_API_SECRET + ' ${token} ' + process.env.CUBEJS_DB_PASS);\n`,
    );
    const reading = await read(dir, { ...ENV, CUBEJS_DB_PASS: 'db-pass-8842' });
    expect(reading).toEqual({
      kind: 'threw',
      file: join(dir, 'cube.js'),
      message: 'bad config: [secret] [token] [secret]',
    });
  });

  it('reports the configuration error of a ready-made checkAuth that cannot start', async () => {
    const reading = await read(project(RECOMMENDED_CUBE_JS), { CUBEJS_JWK_URL: 'ftp://idp.example/jwks' });
    expect(reading).toMatchObject({ kind: 'threw', message: expect.stringContaining('CUBEJS_JWK_URL must be') });
  });

  it('stops a cube.js that hangs past the deadline, and no process is left', async () => {
    const pidFile = join(tmpdir(), `cube-js-pid-${process.pid}-${Date.now()}`);
    const dir = project(`require('fs').writeFileSync(${JSON.stringify(pidFile)}, String(process.pid));\nfor (;;) {}\n`);
    try {
      expect(await read(dir, ENV, 3000)).toEqual({ kind: 'timed-out', file: join(dir, 'cube.js'), timeoutMs: 3000 });
      const pid = Number(readFileSync(pidFile, 'utf8'));
      expect(() => process.kill(pid, 0)).toThrow(expect.objectContaining({ code: 'ESRCH' }));
    } finally {
      rmSync(pidFile, { force: true });
    }
  });

  it('reports a cube.js that ends the process while it loads', async () => {
    expect(await read(project('process.exit(3);\n'))).toMatchObject({
      kind: 'no-answer',
      reason: 'the process loading it ended (exit code 3) before cube.js was read',
    });
  });

  it("runs it without the metrics port, which the running Cube's hook holds", async () => {
    const dir = project(
      "if (process.env.CUBE_DUAL_AUTH_METRICS_PORT) throw new Error('port');\nmodule.exports = { seen: () => 1 };\n",
    );
    expect(await read(dir, { ...ENV, CUBE_DUAL_AUTH_METRICS_PORT: '9464' })).toMatchObject({ kind: 'loaded' });
  });

  it('shows nothing that cube.js prints', async () => {
    const dir = project('console.log(\'{"kind":"loaded","exports":[]}\'); module.exports = { checkAuth() {} };\n');
    expect(await read(dir)).toMatchObject({ exports: [{ name: 'checkAuth' }] });
  });
});

const FILE = '/srv/cube/cube.js';
const loaded = (...exports: CubeJsExport[]): CubeJsReading => ({ kind: 'loaded', file: FILE, exports });
const own = (name: string): CubeJsExport => ({ name, function: true, fromPackage: true });
const theirs = (name: string): CubeJsExport => ({ name, function: true, fromPackage: false });

describe('cubeJsFinding', () => {
  it('is ok for a cube.js with the package checkAuth, listing the exports', () => {
    expect(cubeJsFinding(loaded(own('checkAuth'), own('logger'), { name: 'dbType', function: false }))).toEqual({
      status: 'ok',
      message: "/srv/cube/cube.js exports checkAuth (cube-dual-auth's), logger (cube-dual-auth's), dbType",
    });
  });

  it('says what the lines describe when checkAuth is its own function', () => {
    expect(cubeJsFinding(loaded(theirs('checkAuth')))).toMatchObject({
      status: 'ok',
      message: expect.stringContaining("its checkAuth is not cube-dual-auth's ready-made one"),
    });
  });

  it('fails without a checkAuth function', () => {
    expect(cubeJsFinding(loaded({ name: 'checkAuth', function: false }))).toEqual({
      status: 'fail',
      message:
        "/srv/cube/cube.js exports checkAuth: no checkAuth function, so Cube verifies tokens with its own JWT check, not cube-dual-auth's",
    });
    expect(cubeJsFinding(loaded()).message).toMatch(/^\/srv\/cube\/cube\.js exports nothing: no checkAuth/);
  });

  it('warns when there is none, fails when it throws, hangs or ends the process', () => {
    expect(cubeJsFinding({ kind: 'missing', file: FILE })).toMatchObject({
      status: 'warn',
      message: expect.stringMatching(/^no \/srv\/cube\/cube\.js: .* run doctor in the Cube project directory/),
    });
    expect(cubeJsFinding({ kind: 'threw', file: FILE, message: 'boom' })).toEqual({
      status: 'fail',
      message: '/srv/cube/cube.js throws while it loads, so Cube will not start: boom',
    });
    expect(cubeJsFinding({ kind: 'timed-out', file: FILE, timeoutMs: 10_000 })).toMatchObject({
      status: 'fail',
      message: expect.stringContaining('did not finish loading within 10000 ms'),
    });
    expect(cubeJsFinding({ kind: 'no-answer', file: FILE, reason: 'why' })).toEqual({
      status: 'fail',
      message: '/srv/cube/cube.js could not be read: why',
    });
  });

  it('lists at most 12 names', () => {
    const many = Array.from({ length: 15 }, (_, i) => theirs(`option${i}`));
    expect(cubeJsFinding(loaded(own('checkAuth'), ...many)).message).toMatch(/option10 and 4 more$/);
  });
});

describe('loggerFinding', () => {
  it("is ok for the package's logger, and warns without it or with another", () => {
    expect(loggerFinding(loaded(own('logger')))).toEqual({
      status: 'ok',
      message: "cube-dual-auth's logger: tokens are masked in Cube's log",
    });
    expect(loggerFinding(loaded(own('checkAuth')))).toMatchObject({
      status: 'warn',
      message: expect.stringMatching(
        /^cube\.js exports no logger function: Cube's default logger then writes whole tokens/,
      ),
    });
    expect(loggerFinding(loaded(theirs('logger')))).toMatchObject({
      status: 'warn',
      message: expect.stringContaining("a logger of its own, not cube-dual-auth's"),
    });
  });

  it('says nothing when cube.js was not read', () => {
    expect(loggerFinding({ kind: 'missing', file: FILE })).toBeUndefined();
  });
});

describe('sqlAuthFinding', () => {
  it('fails without checkSqlAuth while the SQL API is on, warns while only its login is configured', () => {
    expect(sqlAuthFinding(loaded(own('checkAuth')), true)).toMatchObject({
      status: 'fail',
      message: expect.stringMatching(/^cube\.js exports no checkSqlAuth function: Cube's SQL API then takes only/),
    });
    expect(sqlAuthFinding(loaded(own('checkAuth')), false).status).toBe('warn');
  });

  it("is ok with the package's checkSqlAuth or one of cube.js's own, saying which", () => {
    expect(sqlAuthFinding(loaded(own('checkSqlAuth')), true)).toEqual({
      status: 'ok',
      message: "checkSqlAuth in cube.js is cube-dual-auth's",
    });
    expect(sqlAuthFinding(loaded(theirs('checkSqlAuth')), true).message).toContain('is its own');
  });

  it('cannot be ok when cube.js was not read', () => {
    expect(sqlAuthFinding({ kind: 'timed-out', file: FILE, timeoutMs: 1 }, true)).toEqual({
      status: 'warn',
      message: 'checkSqlAuth not checked (cube.js was not read, see cube-js)',
    });
  });
});
