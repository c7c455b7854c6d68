/** The ready-made hook for `cube.js`, configured from the environment. */
import { createNamedCheckAuth, type CheckAuth, type Verdict } from './check-auth';
import { ENV_NAMES } from './config';
import { boolean, ENV, optionsFromEnv } from './env';
import { DualAuthError, faultMessage, toThrowable } from './errors';

let fromEnv: CheckAuth | undefined;
let fromEnvError: DualAuthError | undefined;

/** The environment-configured instance, made on first use. A configuration error refuses requests with a 403. */
function environmentInstance(): CheckAuth {
  if (fromEnv) return fromEnv;
  if (!fromEnvError) {
    try {
      fromEnv = createNamedCheckAuth(optionsFromEnv(process.env), ENV_NAMES);
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
async function explain(req: unknown, auth?: unknown): Promise<Verdict> {
  let instance: CheckAuth;
  try {
    instance = environmentInstance();
  } catch {
    const { code, detail } = fromEnvError as DualAuthError;
    return { accepted: false, pathReason: 'not chosen: the configuration is invalid', error: { code, message: detail } };
  }
  return instance.explain(req, auth);
}

/**
 * The ready-made hook for `cube.js`, configured from the environment on first use:
 * `module.exports = { checkAuth: require('cube-dual-auth').checkAuth }`.
 */
export const checkAuth: CheckAuth = Object.assign(
  // Not an async function: it would wrap the instance's promise in one more, which costs every request two turns.
  function checkAuth(req: unknown, auth?: unknown): Promise<void> {
    let instance: CheckAuth;
    try {
      instance = environmentInstance();
    } catch (error) {
      return Promise.reject(error);
    }
    return instance(req, auth);
  },
  {
    prefetch: async () => environmentInstance().prefetch(),
    close: () => {
      fromEnv?.close();
      fromEnv = undefined;
      fromEnvError = undefined;
    },
    explain,
  },
);
