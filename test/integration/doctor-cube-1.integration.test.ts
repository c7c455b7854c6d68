// doctor in a real Cube 1.7.43 project (the example's cube.js, installed as a user installs the package, from
// `npm pack`): it reads what that cube.js exports through Cube's own packages, finds Cube's line, and judges the
// SQL API login by what cube.js really exports (build first). And a model whose access policy is keyed by `role:`, as
// the embedding service's handbook writes it: Cube 1.7.43's own schema compiler refuses it (no Cube start), and
// doctor fails it. And doctor's cube-start line against Cube 1.7.43's own start (test/support/cube-start-agreement.ts).
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ensureCube, repoRoot } from '../../scripts/ensure-cube.mjs';
import { cubeLine } from '../../scripts/lib/cube-lines.mjs';
import { jsonOf, runBin } from '../support/cli';
import { randomSecret } from '../support/claims';
import { cubeStartAgreement } from '../support/cube-start-agreement';

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

/** The handbook's access-policies example (a view keyed by `role:`), on a cube of its own. */
const handbookModel = (key: 'role' | 'group') => `cubes:
  - name: customers
    sql: SELECT 1 AS id, 123 AS user_id
    dimensions:
      - name: id
        sql: id
        type: number
        primary_key: true
      - name: user_id
        sql: user_id
        type: number
views:
  - name: customers_view
    cubes:
      - join_path: customers
        includes: "*"
    access_policy:
      - ${key}: customer
        member_level:
          includes: "*"
        row_level:
          filters:
            - member: user_id
              operator: equals
              values: ["{ securityContext.user_key }"]
`;

// Cube's own compiler, as cubejs-server compiles a model, in one process of its own (behind the preload for the native
// parts): its verdict on each model file given, not a Cube start.
const COMPILE = `
const { readFileSync } = require('node:fs');
const { prepareCompiler } = require('@cubejs-backend/schema-compiler');
const verdict = (file) => {
  const repository = { localPath: () => '.', dataSchemaFiles: async () => [{ fileName: 'customers.yml', content: readFileSync(file, 'utf8') }] };
  return prepareCompiler(repository, { adapter: 'sqlite' }).compiler.compile().then(
    () => 'compiled',
    (error) => String(error.message).split('\\n').find((l) => l.includes('accessPolicy')) ?? String(error.message),
  );
};
Promise.all(process.argv.slice(1).map(verdict)).then((verdicts) => console.log(JSON.stringify(verdicts)));
`;

const scratch = mkdtempSync(join(tmpdir(), 'doctor-role-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

async function compiledByCube(models: readonly string[]): Promise<string[]> {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ['-r', join(repoRoot, 'scripts/lib/cube-1-preload.cjs'), '-e', COMPILE, ...models],
    { cwd: line.projectDir, timeout: 90_000 },
  );
  return JSON.parse(stdout) as string[];
}

/** The model directory of the handbook's example keyed by `key`. */
function modelKeyedBy(key: 'role' | 'group'): string {
  const dir = join(scratch, key, 'model');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'customers.yml'), handbookModel(key));
  return dir;
}

it("fails a model keyed by role: on Cube 1.7.43, which Cube's own compiler refuses, and passes it keyed by group:", async () => {
  const dirs = { role: modelKeyedBy('role'), group: modelKeyedBy('group') };
  const [role, group] = await compiledByCube([join(dirs.role, 'customers.yml'), join(dirs.group, 'customers.yml')]);
  expect(role).toContain('"accessPolicy[0].role" is not allowed');
  expect(group).toBe('compiled');
  const doctorOn = async (dir: string) => {
    const result = await runBin(['doctor', '--json'], {
      bin: join(line.projectDir, 'node_modules', 'cube-dual-auth', 'dist', 'cli', 'main.js'),
      cwd: line.projectDir,
      // Authorization off: the model fails to compile whatever the hook's configuration.
      env: { CUBEJS_API_SECRET: SECRET, CUBEJS_SCHEMA_PATH: relative(line.projectDir, dir) },
      secrets: [SECRET],
    });
    const json = jsonOf<DoctorJson>(result);
    return { ok: json.ok, policies: json.checks.find((check) => check.id === 'access-policies') };
  };
  expect(await doctorOn(dirs.role)).toEqual({
    ok: false,
    policies: {
      id: 'access-policies',
      status: 'fail',
      message: `${relative(line.projectDir, join(dirs.role, 'customers.yml'))} keys an access policy by role:, which Cube 1.7.43 refuses to compile ("accessPolicy[0].role" is not allowed: Cube 1.7.0 removed role): key it by group: (or groups: for several), which Cube matches against what contextToGroups returns`,
    },
  });
  expect((await doctorOn(dirs.group)).policies).toBeUndefined();
}, 240_000);

cubeStartAgreement(line);
