/**
 * doctor's `cube-start` line against the real Cube's own start, on one Cube line (issue 49): for each configuration,
 * `doctor --json` in a Cube project and `cubejs-server` started there must agree. A Cube that must stop is judged by
 * its own exit, one that must start by its answer to /livez (docs/deploying.md#an-api-secret-only-in-the-directory).
 */
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { type CubeLine } from '../../scripts/lib/cube-lines.mjs';
import { exampleCubeEnvironment } from '../../scripts/lib/cube-server.mjs';
import { randomSecret } from './claims';
import { jsonOf, runBin } from './cli';
import { RECOMMENDED_CUBE_JS } from './cube';
import { runCube } from './cube-run';
import type { DoctorJson } from './doctor-examples';

/** docs/deploying.md#an-api-secret-only-in-the-directory: the package's apiSecret exported beside checkAuth. */
const API_SECRET_CUBE_JS =
  "const { apiSecret, checkAuth, logger } = require('cube-dual-auth');\nmodule.exports = { apiSecret, checkAuth, logger };\n";
/** A JWKS nobody serves: Cube's option check and the hook's start read the URL, never fetch it. */
const JWKS_URL = 'http://127.0.0.1:9/jwks.json';

interface Row {
  readonly what: string;
  readonly cubeJs: string;
  /** The secret in `api-secrets` of a secrets directory, if there is one. */
  readonly inDirectory?: boolean;
  readonly env: Record<string, string>;
  /** What both must say: true, Cube starts and doctor has no failing cube-start line. */
  readonly starts: boolean;
}

/** Runs the table on `line` (installed by the caller's beforeAll), one Cube start a row. */
export function cubeStartAgreement(line: CubeLine): void {
  const secret = randomSecret(32);
  const rows: readonly Row[] = [
    {
      what: "the README's cube.js, the API secret only in the directory",
      cubeJs: RECOMMENDED_CUBE_JS,
      inDirectory: true,
      env: {},
      starts: false,
    },
    {
      what: "cube.js exporting the package's apiSecret, the API secret only in the directory",
      cubeJs: API_SECRET_CUBE_JS,
      inDirectory: true,
      env: {},
      starts: true,
    },
    {
      what: "the README's cube.js, CUBEJS_API_SECRET",
      cubeJs: RECOMMENDED_CUBE_JS,
      env: { CUBEJS_API_SECRET: secret },
      starts: true,
    },
    {
      what: "the README's cube.js, CUBEJS_JWK_URL only",
      cubeJs: RECOMMENDED_CUBE_JS,
      env: { CUBEJS_JWK_URL: JWKS_URL },
      starts: true,
    },
  ];
  const scratch = mkdtempSync(join(tmpdir(), `cube-start-${line.id}-`));
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  /** A Cube project of its own for a row: its cube.js, an empty model, Cube and the packed package of the line. */
  function projectFor(row: Row, index: number): { dir: string; env: Record<string, string> } {
    const dir = join(scratch, String(index));
    mkdirSync(join(dir, 'model'), { recursive: true });
    symlinkSync(join(line.projectDir, 'node_modules'), join(dir, 'node_modules'), 'dir');
    writeFileSync(join(dir, 'cube.js'), row.cubeJs);
    if (!row.inDirectory) return { dir, env: row.env };
    mkdirSync(join(dir, 'secrets'));
    writeFileSync(join(dir, 'secrets', 'api-secrets'), `${secret}\n`, { mode: 0o600 });
    return { dir, env: { ...row.env, CUBE_DUAL_AUTH_SECRETS_DIR: join(dir, 'secrets') } };
  }

  it.each(rows.map((row, index) => [row.what, row, index] as const))(
    `Cube ${line.version}, NODE_ENV=production, %s: doctor's cube-start and Cube's own start agree`,
    { timeout: 120_000 },
    async (_, row, index) => {
      const { dir, env } = projectFor(row, index);
      // Independent of each other: doctor reads the project, Cube starts in it.
      const [doctor, cube] = await Promise.all([
        runBin(['doctor', '--json'], {
          bin: join(line.projectDir, 'node_modules', 'cube-dual-auth', 'dist', 'cli', 'main.js'),
          cwd: dir,
          env: { ...exampleCubeEnvironment(), ...line.env, ...env },
          secrets: [secret],
          killAfterMs: 60_000,
        }),
        runCube(line, env, { cwd: dir, ask: '/livez' }),
      ]);
      const cubeStart = jsonOf<DoctorJson>(doctor).checks.find(({ id }) => id === 'cube-start');
      const cubeSays = cube.listened ? `answered /livez ${String(cube.answered)}` : `exited ${String(cube.code)}`;
      expect(
        { doctorPasses: cubeStart?.status !== 'fail', cubeStarts: cube.listened && cube.answered === 200 },
        `doctor: ${cubeStart?.message ?? 'no cube-start line'}; Cube ${cubeSays}: ${cube.output.slice(-2000)}`,
      ).toEqual({ doctorPasses: row.starts, cubeStarts: row.starts });
      expect(cube.output).not.toContain(secret);
      if (row.starts) return;
      // Cube stopped by itself, with its option check's message, which doctor's line quotes with the fix.
      expect(typeof cube.code, `exit ${String(cube.code)}`).toBe('number');
      expect(cube.code).not.toBe(0);
      expect(cube.output).toContain('apiSecret is required option(s)');
      expect(cubeStart?.message).toContain('"apiSecret is required option(s)"');
      expect(cubeStart?.message).toContain('module.exports = { apiSecret, checkAuth, logger }');
    },
  );
}
