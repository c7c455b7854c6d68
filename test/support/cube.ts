/**
 * What Cube brings to the hook: the environment it runs in, how each Cube line reads what `checkAuth` resolves to,
 * and the gateway package by which a Cube project is found.
 */
import { existsSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** Runs `body` with these variables set (undefined: unset) and every other CUBEJS_ and CUBE_DUAL_AUTH_ variable unset. */
export async function withEnv<T>(vars: Record<string, string | undefined>, body: () => T | Promise<T>): Promise<T> {
  const saved = process.env;
  process.env = Object.fromEntries(Object.entries(saved).filter(([name]) => !/^(CUBEJS_|CUBE_DUAL_AUTH_)/.test(name)));
  for (const [name, value] of Object.entries(vars)) if (value !== undefined) process.env[name] = value;
  try {
    return await body();
  } finally {
    process.env = saved;
  }
}

/** What each Cube line ends up with as the security context after checkAuth resolved to `resolved` (their gateways' own code). */
export function cubesContext(
  req: { securityContext?: unknown },
  resolved: unknown,
): { '0.33': unknown; '1.7': unknown } {
  // 0.33.65 (wrapCheckAuth): `await fn(req, auth)`, the value ignored.
  const line033 = req.securityContext;
  // 1.7.43 (wrapCheckAuth): `if (result?.security_context) req.securityContext = result?.security_context`.
  const answer = resolved as { security_context?: unknown } | undefined;
  const line1 = answer?.security_context ? answer.security_context : req.securityContext;
  return { '0.33': line033, '1.7': line1 };
}

/**
 * Writes a gateway package into `project`'s node_modules: its manifest, and `main` with the given source. Cube's
 * gateway resolving from a directory is what makes it a Cube project for the package (host-cube.ts).
 */
export function gatewayIn(
  project: string,
  source: string,
  manifest: Record<string, unknown> = { name: '@cubejs-backend/api-gateway', version: '1.7.43' },
): string {
  const dir = join(project, 'node_modules', '@cubejs-backend', 'api-gateway');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ ...manifest, main: 'index.js' }));
  writeFileSync(join(dir, 'index.js'), source);
  return join(dir, 'index.js');
}

/** The repository's root, whose built package (dist/) a test's Cube project installs. */
const PACKAGE_ROOT = join(__dirname, '..', '..');

/**
 * Writes `cube.js` into `project` with the given source, with cube-dual-auth installed there (a link to this
 * repository, so `require('cube-dual-auth')` loads the built dist/ as in a real project). Returns the file.
 */
export function cubeJsIn(project: string, source: string): string {
  const modules = join(project, 'node_modules');
  mkdirSync(modules, { recursive: true });
  if (!existsSync(join(modules, 'cube-dual-auth'))) symlinkSync(PACKAGE_ROOT, join(modules, 'cube-dual-auth'), 'dir');
  writeFileSync(join(project, 'cube.js'), source);
  return join(project, 'cube.js');
}

/** The `cube.js` the README recommends: the package's checkAuth and its logger. */
export const RECOMMENDED_CUBE_JS =
  "const { checkAuth, logger } = require('cube-dual-auth');\nmodule.exports = { checkAuth, logger };\n";

/**
 * The status of doctor's `node` line for a Cube 1.7.43 project on the Node running the tests: its cubejs-server exits
 * below Node 22 (the project's own scripts start it past that check on Node 20, docs/cube-lines.md).
 */
export const NODE_LINE_CUBE_1: 'ok' | 'warn' = Number(process.versions.node.split('.')[0]) >= 22 ? 'ok' : 'warn';

/** doctor's count of warnings, as its summary line says it, for a project whose only warning is the `node` line. */
export const NODE_WARNINGS_CUBE_1 = NODE_LINE_CUBE_1 === 'warn' ? '1 warning' : '0 warnings';
