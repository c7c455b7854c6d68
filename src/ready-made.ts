/** The ready-made hook for `cube.js`, configured from the environment. */
import { createNamedCheckAuth, type CheckAuth } from './check-auth';
import { ENV_NAMES } from './config';
import { optionsFromEnv } from './env';
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
      fromEnvError = new DualAuthError('ERR_CONFIG_INVALID', `Authentication is misconfigured on this deployment: ${message}`);
    }
  }
  throw toThrowable(fromEnvError);
}

/**
 * The ready-made hook for `cube.js`, configured from the environment on first use:
 * `module.exports = { checkAuth: require('cube-dual-auth').checkAuth }`.
 */
export const checkAuth: CheckAuth = Object.assign(
  async function checkAuth(req: unknown, auth?: unknown): Promise<void> {
    return environmentInstance()(req, auth);
  },
  {
    prefetch: async () => environmentInstance().prefetch(),
    close: () => {
      fromEnv?.close();
      fromEnv = undefined;
      fromEnvError = undefined;
    },
    explain: async (req: unknown, auth?: unknown) => environmentInstance().explain(req, auth),
  },
);
