/**
 * Whether the hook a command builds from the environment is the one Cube runs: `cube.js` may make its own with options
 * set in code (`createCheckAuth({ securityContext, ... })`), which the environment does not show. Read as `doctor`
 * reads `cube.js` (doctor/cube-js.ts); `sql-key` refuses to mint from a judgement that may differ from the hook's
 * (docs/security.md, "SQL keys").
 */
import { CUBE_JS_TIMEOUT_MS, readCubeJs, type CubeJsReading } from '../doctor/cube-js';

/** The members of `cube.js` that carry the hook's judgement of a SQL login's token. */
const HOOK_EXPORTS = ['checkAuth', 'checkSqlAuth'] as const;

/**
 * Undefined when the environment alone makes the hook Cube runs here: no `cube.js` in `cwd`, or one that gives Cube
 * cube-dual-auth's ready-made `checkAuth` and `checkSqlAuth`. Otherwise why a command cannot rely on the environment.
 */
export async function codeOptionsProblem(
  cwd: string,
  env: NodeJS.ProcessEnv,
  timeoutMs: number = CUBE_JS_TIMEOUT_MS,
): Promise<string | undefined> {
  return problemOf(await readCubeJs({ cwd, env, timeoutMs }));
}

/** The judgement of one reading of `cube.js`, as {@link codeOptionsProblem} gives it. */
export function problemOf(reading: CubeJsReading): string | undefined {
  const { file } = reading;
  switch (reading.kind) {
    case 'missing':
      return undefined;
    case 'threw':
    case 'timed-out':
    case 'no-answer':
      return `${file} could not be read, so whether it sets the hook's options in code is unknown`;
    case 'loaded': {
      const own = HOOK_EXPORTS.filter((name) =>
        reading.exports.some((member) => member.name === name && member.function && member.fromPackage !== true),
      );
      if (own.length === 0) return undefined;
      return `${file} exports its own ${own.join(' and ')}, not cube-dual-auth's ready-made one, so it may set options in code (a securityContext function, claims, groups) that the environment does not show`;
    }
  }
}
