/**
 * The `cube-start` line: whether Cube's own option check lets it start. Outside dev mode Cube's `OptsHandler`
 * (0.33 and 1.x alike) exits with "apiSecret is required option(s)" unless an `apiSecret` or a JWKS URL is given
 * (docs/deploying.md#an-api-secret-only-in-the-directory).
 */
import { ENV, readEnv } from '../../config/env';
import { exportOf, type CubeJsReading } from '../cube-js';
import { check, type Check } from '../check';

/** Cube's `isDevMode()`: NODE_ENV other than production, or CUBEJS_DEV_MODE=true. */
function devMode(env: NodeJS.ProcessEnv): boolean {
  return env['NODE_ENV'] !== 'production' || readEnv(env, 'CUBEJS_DEV_MODE')?.toLowerCase() === 'true';
}

/**
 * Undefined where Cube's check passes or cannot be judged (`cube.js` not read); a `fail` naming the cause and the fix
 * where Cube stops. `apiSecretsInDirectory`: the directory's `api-secrets` holds the API secrets, which Cube never reads.
 */
export function cubeStartCheck(
  env: NodeJS.ProcessEnv,
  reading: CubeJsReading,
  { apiSecretsInDirectory }: { readonly apiSecretsInDirectory: boolean },
): Check | undefined {
  if (devMode(env) || (reading.kind !== 'loaded' && reading.kind !== 'missing')) return undefined;
  const given = (name: string) => exportOf(reading, name) !== undefined;
  // A jwt option of cube.js may hold jwkUrl: doctor sees its name, not its value, so it does not fail on it.
  const jwksUrl = readEnv(env, ENV.jwksUri) !== undefined || given('jwt');
  if (readEnv(env, ENV.apiSecret) !== undefined || given('apiSecret') || jwksUrl) return undefined;
  const why = apiSecretsInDirectory
    ? `the API secret is only in the secrets directory's api-secrets, which Cube does not read, and ${ENV.jwksUri} is unset`
    : `${ENV.apiSecret} and ${ENV.jwksUri} are unset`;
  return check(
    'cube-start',
    'fail',
    `Cube will not start: outside dev mode its option check exits with "apiSecret is required option(s)", as ${why}; export cube-dual-auth's apiSecret from cube.js (module.exports = { apiSecret, checkAuth, logger }), which satisfies that check and verifies nothing`,
  );
}
