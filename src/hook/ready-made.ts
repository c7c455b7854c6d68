/**
 * The ready-made hook for `cube.js`, configured from the environment. Its configuration is checked when the hook is
 * taken from the package root (index.ts), so a mistake stops Cube while it loads `cube.js`, before it listens.
 */
import { createNamedCheckAuth, type CheckAuth, type Explanation } from './check-auth';
import { ENV_NAMES, OPTIONS } from '../config/options';
import { boolean, ENV, optionsFromEnv, readEnv } from '../config/env';
import { DualAuthConfigError, DualAuthError, faultMessage, toThrowable } from '../errors';
import type { SecurityContext } from './security-context';
import { CUBE_OPTION_NAMES, type CubeOptions } from './cube-options';
import type { SqlAuth } from './sql-login';

let fromEnv: CheckAuth | undefined;
let fromEnvError: DualAuthError | undefined;

/** The ready-made hook with its environment checked now, so a bad configuration stops Cube while it loads cube.js. */
export function validatedCheckAuth(): CheckAuth {
  fromEnv ??= createNamedCheckAuth(optionsFromEnv(process.env), { names: ENV_NAMES, metrics: true });
  return checkAuth;
}

/** The variables that configure a path: without any of them the environment does not configure the hook at all. */
const PATH_VARIABLES = [
  ...OPTIONS.apiSecret.env,
  ...OPTIONS.jwksUri.env,
  ...OPTIONS.providers.env,
  ...OPTIONS.issuer.env,
  // Its api-secrets file may be the only API secret.
  ...OPTIONS.secretsDir.env,
];

/**
 * The ES module twin's `checkAuth`, bound at import: a configured path is checked then (a bad one fails the import and
 * Cube's start); with no path configured nothing fails, and the hook refuses every request.
 */
export function checkAuthForImport(): CheckAuth {
  return PATH_VARIABLES.some((name) => readEnv(process.env, name) !== undefined) ? validatedCheckAuth() : checkAuth;
}

/** The instance for a call, made anew after `close()`; a configuration that cannot work is logged once and refused. */
function environmentInstance(): CheckAuth {
  if (fromEnv) return fromEnv;
  if (!fromEnvError) {
    try {
      fromEnv = createNamedCheckAuth(optionsFromEnv(process.env), { names: ENV_NAMES, metrics: true });
      return fromEnv;
    } catch (error) {
      const message = faultMessage(error);
      console.error(message);
      fromEnvError = new DualAuthError(
        'ERR_CONFIG_INVALID',
        'Authentication is misconfigured on this deployment; see the Cube server log',
        undefined,
        `Authentication is misconfigured on this deployment: ${message}`,
      );
    }
  }
  throw toThrowable(fromEnvError, detailedErrorsWanted());
}

/** The configuration could not be read, so the switch for detailed errors is read on its own; a bad value means no. */
function detailedErrorsWanted(): boolean {
  try {
    return boolean(process.env, ENV.detailedErrors) === true;
  } catch {
    return false;
  }
}

/** What `explain` reports when the environment cannot make a hook: never a rejection. */
async function explain(req: unknown, auth?: unknown): Promise<Explanation> {
  let instance: CheckAuth;
  try {
    instance = environmentInstance();
  } catch {
    const { code, detail } = fromEnvError as DualAuthError;
    return {
      accepted: false,
      pathReason: 'not chosen: the configuration is invalid',
      error: { code, message: detail },
    };
  }
  return instance.explain(req, auth);
}

/** The ready-made hook's Cube options: those of the instance in force, which `close()` makes again. */
const instanceCubeOptions = Object.fromEntries(
  CUBE_OPTION_NAMES.map((name) => [name, { get: () => environmentInstance()[name] }]),
);

/** The ready-made hook: one function for the process's life, whose instance `close()` releases and a call remakes. */
const checkAuth: CheckAuth = Object.defineProperties(
  Object.assign(
    // Not an async function: it would wrap the instance's promise in one more, which costs every request two turns.
    function checkAuth(req: unknown, auth?: unknown): Promise<SecurityContext> {
      let instance: CheckAuth;
      try {
        instance = environmentInstance();
      } catch (error) {
        return Promise.reject(error);
      }
      return instance(req, auth);
    } as CheckAuth,
    {
      prefetch: async () => environmentInstance().prefetch(),
      close: () => {
        fromEnv?.close();
        fromEnv = undefined;
        fromEnvError = undefined;
      },
      explain,
    },
  ),
  instanceCubeOptions,
);

/** Context functions of the environment's configuration that failed, each printed to the Cube log once. */
const reported = new Set<string>();

/** The ready-made hook's context function `name`; when the configuration gives it nothing to read, a 403. */
function contextOption<N extends Exclude<keyof CubeOptions, 'tenantFilter'>>(name: N): CubeOptions[N] {
  try {
    return checkAuth[name];
  } catch (error) {
    if (!(error instanceof DualAuthConfigError)) throw error;
    if (!reported.has(name)) console.error(error.message);
    reported.add(name);
    const refusal = new DualAuthError(
      'ERR_CONFIG_INVALID',
      'Authorization is misconfigured on this deployment; see the Cube server log',
      undefined,
      `Authorization is misconfigured on this deployment: ${error.message}`,
    );
    throw toThrowable(refusal, detailedErrorsWanted());
  }
}

/**
 * The root's Cube options from the environment, read when Cube calls them. `tenantFilter` runs while cube.js loads, so
 * a configuration without a tenant stops Cube; the context functions answer such a one with a 403, logged once.
 */
export const readyMadeCubeOptions: CubeOptions = {
  contextToGroups: (context) => contextOption('contextToGroups')(context),
  contextToAppId: (context) => contextOption('contextToAppId')(context),
  contextToOrchestratorId: (context) => contextOption('contextToOrchestratorId')(context),
  tenantFilter: (members) => validatedCheckAuth().tenantFilter(members),
};

/** The root's SQL API login from the environment: a configuration that cannot work refuses every login, logged once. */
export const readyMadeSqlAuth: SqlAuth = {
  checkSqlAuth(req, user, password) {
    try {
      return environmentInstance().checkSqlAuth(req, user, password);
    } catch (error) {
      return Promise.reject(error);
    }
  },
  canSwitchSqlUser: async (current, newUser) => environmentInstance().canSwitchSqlUser(current, newUser),
};
