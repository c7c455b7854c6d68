/**
 * The example projects of examples/ with the environment each one's README documents, for running `doctor` in them
 * (test/integration/doctor-examples-*.integration.test.ts). The identity provider's JWKS URL is the one value taken
 * from a real server on this machine instead (the documented ones are placeholders).
 */
import { cpSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { expect } from 'vitest';
import { jsonOf, runBin } from './cli';
import { randomSecret } from './claims';
import { NODE_LINE_CUBE_1 } from './cube';

const REPO = join(__dirname, '..', '..');

export interface DoctorJson {
  ok: boolean;
  checks: { id: string; status: 'ok' | 'warn' | 'fail'; message: string }[];
}

/** examples/access-policies/README.md, "The environment"; examples/cube-cloud/README.md, step 2, is the same set. */
export const ACCESS_POLICIES_ENV = (jwksUrl: string): Record<string, string> => ({
  CUBEJS_API_SECRET: randomSecret(32),
  CUBEJS_JWK_URL: jwksUrl,
  CUBEJS_JWT_ISSUER: 'https://idp.example.com/realms/acme',
  CUBEJS_JWT_AUDIENCE: 'cube-api',
  CUBE_DUAL_AUTH_TENANT_CLAIM: 'tenant_id',
  CUBE_DUAL_AUTH_GROUPS_CLAIM: '/realm_access/roles',
  CUBE_DUAL_AUTH_SERVICE_GROUPS: 'embeddable',
});

/** examples/cube-project/README.md, "Run it": the exported variables and the line that starts Cube. */
export const CUBE_PROJECT_ENV = (jwksUrl: string): Record<string, string> => ({
  CUBEJS_API_SECRET: randomSecret(32),
  CUBEJS_JWK_URL: jwksUrl,
  CUBEJS_JWT_AUDIENCE: 'cube-api',
  CUBEJS_JWT_ISSUER: 'https://idp.example/',
  CUBEJS_JWT_CLAIMS_NAMESPACE: 'https://cube.example/claims',
  CUBE_DUAL_AUTH_TENANT_CLAIM: '/https:~1~1cube.example~1claims/tenant',
  CUBE_DUAL_AUTH_SERVICE_TENANT_CLAIM: 'tenant',
  NODE_ENV: 'production',
  CUBEJS_DEV_MODE: 'false',
  CUBEJS_CACHE_AND_QUEUE_DRIVER: 'memory',
  CUBEJS_DB_TYPE: 'sqlite',
  CUBEJS_SCHEMA_PATH: 'model',
  CUBEJS_WEB_SOCKETS: 'true',
});

/**
 * Writes the files of examples/<name> into `dir` as a project gets them: `cube.js`, `model/`, `data/` when there;
 * the TypeScript example's `cube.ts` compiled to `cube.js` as its comment says (`export =` to `module.exports =`),
 * with the model of examples/cube-project, whose tenant members it names.
 */
export function exampleIn(name: string, dir: string): string {
  const source = join(REPO, 'examples', name);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  for (const part of ['cube.js', 'model', 'data'])
    try {
      cpSync(join(source, part), join(dir, part), { recursive: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
  if (name === 'typescript') {
    // Its cube.ts keeps queries to the tenant of the orders of examples/cube-project, whose model it goes with.
    cpSync(join(REPO, 'examples', 'cube-project', 'model'), join(dir, 'model'), { recursive: true });
    const compiled = ts.transpileModule(readFileSync(join(source, 'cube.ts'), 'utf8'), {
      compilerOptions: {
        module: ts.ModuleKind.Node16,
        moduleResolution: ts.ModuleResolutionKind.Node16,
        target: ts.ScriptTarget.ES2022,
      },
      fileName: 'cube.cts',
    });
    writeFileSync(join(dir, 'cube.js'), compiled.outputText);
  }
  return dir;
}

/** `doctor --json` with the bin installed in a Cube project, run in `cwd`. */
export async function doctorIn(bin: string, cwd: string, env: Record<string, string>): Promise<DoctorJson> {
  const result = await runBin(['doctor', '--json'], { bin, cwd, env, secrets: [env.CUBEJS_API_SECRET as string] });
  const json = jsonOf<DoctorJson>(result);
  expect(result.code).toBe(0);
  return json;
}

/**
 * Expects every line ok but the `node` line of a Cube 1.x project, which is what the Node running the tests gets
 * (Cube 1.7.43's cubejs-server exits below 22: a true warning there).
 */
export function expectAllOk(json: DoctorJson, cubeLine: '1' | '0.33'): void {
  const notOk = json.checks.filter(({ status }) => status !== 'ok');
  expect(notOk).toEqual(
    cubeLine === '1' && NODE_LINE_CUBE_1 === 'warn'
      ? [
          {
            id: 'node',
            status: 'warn',
            message: expect.stringMatching(
              /^Node \d+\.\d+\.\d+: Cube 1\.7\.43's cubejs-server exits at start/,
            ) as string,
          },
        ]
      : [],
  );
}
