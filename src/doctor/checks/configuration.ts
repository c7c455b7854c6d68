/** The `configuration` line: whether the hook accepts this environment, judged by the hook's own resolution. */
import type { DualAuthOptions, ResolvedOptions } from '../../config/options';
import { apiSecretsInForce, ENV, optionsFromEnv } from '../../config/env';
import { secretWeakness } from '../../config/secret-strength';
import { DualAuthConfigError } from '../../errors';
import { apiSecretsFromDirectory, resolvedAsTheHook } from '../secrets-dir';
import { check, type Check, type CheckId } from '../check';

/** The `configuration` line, and the options the other checks go on with: none when the hook refuses them. */
export interface Configuration {
  readonly check: Check;
  readonly options: DualAuthOptions | undefined;
  readonly resolved: ResolvedOptions | undefined;
}

function configurationFailure(error: unknown): Check {
  if (!(error instanceof DualAuthConfigError)) throw error;
  return check('configuration', 'fail', error.message);
}

/**
 * The options as the hook would take them, secrets directory included, with a weak secret allowed; undefined when
 * something else is wrong too (a bad file of the directory is then the message, not the secret).
 */
function resolvedDespiteWeakSecret(options: DualAuthOptions): ResolvedOptions | undefined {
  try {
    return resolvedAsTheHook({ ...options, allowWeakSecret: true });
  } catch {
    return undefined;
  }
}

/**
 * The line of this run that tells of the weak API secret: `secrets-dir` when the directory's api-secrets holds the
 * secrets, else the variable's own line (`api-secret`, or `additional-api-secrets`), as `secretChecks` prints them.
 */
function weakSecretLine(env: NodeJS.ProcessEnv, options: DualAuthOptions | undefined): CheckId {
  if (apiSecretsFromDirectory(options)) return 'secrets-dir';
  const weak = apiSecretsInForce(env).find(({ value }) => secretWeakness(value) !== undefined);
  return weak?.variable === ENV.additionalApiSecrets ? 'additional-api-secrets' : 'api-secret';
}

/**
 * A weak API secret alone, which stops the hook too, still gives resolved options, so that one run shows all there is
 * to fix (docs/cli-output.md#doctors-checks).
 */
export function configurationCheck(env: NodeJS.ProcessEnv): Configuration {
  let options: DualAuthOptions | undefined;
  try {
    options = optionsFromEnv(env);
    const resolved = resolvedAsTheHook(options);
    return { check: check('configuration', 'ok', 'the checkAuth hook accepts this environment'), options, resolved };
  } catch (error) {
    const failure = configurationFailure(error);
    const resolved =
      options === undefined || options.allowWeakSecret === true ? undefined : resolvedDespiteWeakSecret(options);
    const weakOnly = check(
      'configuration',
      'fail',
      `the checkAuth hook accepts every variable but the API secret, which is too weak: Cube will not start (see ${weakSecretLine(env, options)})`,
    );
    return { check: resolved === undefined ? failure : weakOnly, options, resolved };
  }
}
