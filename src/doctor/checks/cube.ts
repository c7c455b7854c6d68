/** The lines about the Cube found: its gateway, what `cube.js` gives it, and what its refresh worker needs. */
import type { Authorization } from '../../config/authorization';
import { readEnv } from '../../config/env';
import { findGateway, GATEWAY, gatewayVersion, OWN_DIRECTORY } from '../../host-cube';
import { cubeJsFinding, loggerFinding, type CubeJsReading } from '../cube-js';
import { check, type Check } from '../check';

/** By which Cube decides whether its refresh worker runs, first set first (`refreshWorkerMode` in its env.ts). */
const REFRESH_WORKER_VARIABLES = [
  'CUBEJS_REFRESH_WORKER',
  'CUBEJS_SCHEDULED_REFRESH',
  'CUBEJS_SCHEDULED_REFRESH_TIMER',
] as const;

/**
 * The refresh worker's contexts never pass the hook, so with a tenant configured each needs one of its own. Undefined
 * where it does not run, or NODE_ENV is unset (docs/cli-output.md#doctors-checks, `refresh-worker`).
 */
export function refreshWorkerCheck(
  env: NodeJS.ProcessEnv,
  authorization: Authorization | undefined,
): Check | undefined {
  if (authorization?.tenant !== true) return undefined;
  const contexts =
    "every context that scheduledRefreshContexts in cube.js returns needs a securityContext with tenant and groups: contextToAppId and contextToOrchestratorId refuse one without (Cube's default is one empty context), and with contextToOrchestratorId Cube stops at its first refresh";
  const variable = REFRESH_WORKER_VARIABLES.find((name) => readEnv(env, name) !== undefined);
  if (variable !== undefined) {
    return /^(false|0)$/i.test(readEnv(env, variable) ?? '')
      ? undefined
      : check('refresh-worker', 'ok', `Cube's refresh worker runs here (${variable}): ${contexts}`);
  }
  const nodeEnv = readEnv(env, 'NODE_ENV');
  if (nodeEnv === undefined || nodeEnv === 'production') return undefined;
  return check(
    'refresh-worker',
    'warn',
    `Cube's refresh worker runs here because NODE_ENV is not production: ${contexts}; set CUBEJS_REFRESH_WORKER=false where this instance builds no pre-aggregations`,
  );
}

/**
 * The hook throws Cube's own error class only when it finds the host Cube, as found here (host-cube.ts); else Cube
 * answers 500, not 403.
 */
export function gatewayCheck(cwd: string): Check {
  const found = findGateway(cwd);
  if (found === undefined) {
    return check(
      'cube-gateway',
      'warn',
      `${GATEWAY} does not resolve from ${cwd}, nor from cube-dual-auth's own directory (${OWN_DIRECTORY}): run doctor in the Cube project; if cube-dual-auth is not installed next to Cube, rejections become HTTP 500 instead of 403`,
    );
  }
  const version = gatewayVersion(found.file);
  const where =
    found.kind === 'loaded'
      ? 'is loaded in this process'
      : found.from === cwd
        ? `resolves from ${cwd}`
        : `resolves from cube-dual-auth's own directory (${found.from}), not from ${cwd}`;
  return check('cube-gateway', 'ok', `${GATEWAY}${version ? ` ${version}` : ''} ${where}: rejections become HTTP 403`);
}

/** What `cube.js` gives Cube: whether it loads with cube-dual-auth's checkAuth, then its logger. */
export function cubeJsChecks(reading: CubeJsReading): Check[] {
  const { status, message } = cubeJsFinding(reading);
  const logger = loggerFinding(reading);
  return [check('cube-js', status, message), ...(logger ? [check('logger', logger.status, logger.message)] : [])];
}
