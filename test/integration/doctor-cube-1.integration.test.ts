// doctor in a real Cube 1.7.43 project (the example's cube.js, installed as a user installs the package, from
// `npm pack`): it reads what that cube.js exports through Cube's own packages, finds Cube's line, and judges the
// SQL API login by what cube.js really exports (build first).
import { join } from 'node:path';
import { beforeAll, expect, it } from 'vitest';
import { ensureCube } from '../../scripts/ensure-cube.mjs';
import { cubeLine } from '../../scripts/lib/cube-lines.mjs';
import { jsonOf, runBin } from '../support/cli';
import { randomSecret } from '../support/claims';

const INSTALL_TIMEOUT_MS = 15 * 60_000;
const line = cubeLine('1');
const SECRET = randomSecret(32);

interface DoctorJson {
  ok: boolean;
  checks: { id: string; status: string; message: string }[];
}

beforeAll(async () => {
  await ensureCube({ line: '1' });
}, INSTALL_TIMEOUT_MS);

it('reads the example cube.js of Cube 1.7.43 through its real packages, and judges the login and options by it', async () => {
  const env = {
    CUBEJS_API_SECRET: SECRET,
    // A JWKS nobody serves: the key line fails, which is not what this test looks at.
    CUBEJS_JWK_URL: 'http://127.0.0.1:9/jwks.json',
    CUBE_DUAL_AUTH_TENANT_CLAIM: 'tenant',
    CUBEJS_PG_SQL_PORT: '15432',
  };
  const result = await runBin(['doctor', '--json'], {
    bin: join(line.projectDir, 'node_modules', 'cube-dual-auth', 'dist', 'cli', 'main.js'),
    cwd: line.projectDir,
    env,
    secrets: [SECRET],
  });
  const checks = Object.fromEntries(jsonOf<DoctorJson>(result).checks.map((check) => [check.id, check]));
  expect(checks['cube-js']).toEqual({
    id: 'cube-js',
    status: 'ok',
    message: expect.stringMatching(/cube\.js exports checkAuth \(cube-dual-auth's\), /),
  });
  expect(checks['cube-gateway']?.message).toMatch(/^@cubejs-backend\/api-gateway 1\.7\.43 resolves from /);
  // What the other lines say follows what the example's cube.js exports (which the examples may grow).
  const exported = (name: string): boolean =>
    new RegExp(`[ ,]${name}( \\(cube-dual-auth's\\))?(,|$)`).test(checks['cube-js']?.message ?? '');
  expect(checks['logger']?.status).toBe(exported('logger') ? 'ok' : 'warn');
  expect(checks['sql-api']?.status).toBe(exported('checkSqlAuth') ? 'ok' : 'fail');
  if (!exported('checkSqlAuth'))
    expect(checks['sql-api']?.message).toMatch(
      /^SQL API on CUBEJS_PG_SQL_PORT: cube\.js exports no checkSqlAuth function/,
    );
  // Cube 1.x with a tenant claim: the example's model (no access policy by group, no COMPILE_CONTEXT) needs neither
  // contextToGroups nor contextToAppId, read from its files.
  expect(checks['cube-options']).toMatchObject({ status: 'ok', message: expect.stringMatching(/model/) as string });
}, 60_000);
