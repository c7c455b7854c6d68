/**
 * Every secret a deployment holds, as the scrubber must know them (scrub.ts): the API secrets, the SQL key secrets and
 * the SQL password, from the environment and from the secrets directory, whichever is in force. A file that cannot
 * be used still gives its lines: a Cube's error may quote them.
 */
import { ENV, apiSecretsInForce, readEnv } from '../config/env';
import { readSecretFiles, type SecretOption } from '../config/secrets-dir';

/** The files of the directory that hold secrets (`sql-keys-revoked` holds ids). */
const SECRET_FILE_OPTIONS: readonly SecretOption[] = ['apiSecret', 'sqlKeySecrets', 'sqlPassword'];

/** The variables of secrets the hook reads beside the API secrets. */
const SECRET_VARIABLES = [ENV.sqlKeySecrets, ENV.sqlPassword];

/** The lines of a file's text that may be a value: trimmed, not blank, not a `#` comment. */
function linesOf(text: string): string[] {
  return text
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'));
}

/**
 * The secret values in force for the configuration of `env` (the environment, with `CUBE_DUAL_AUTH_SECRETS_DIR`'s
 * files); never throws, whatever the configuration holds.
 * @example
 * for (const secret of secretsInForce(process.env)) scrubber.holdSecret(secret);
 */
export function secretsInForce(env: NodeJS.ProcessEnv): string[] {
  const found = apiSecretsInForce(env).map(({ value }) => value);
  for (const name of SECRET_VARIABLES) {
    const value = readEnv(env, name);
    if (value !== undefined) found.push(value);
  }
  const dir = readEnv(env, ENV.secretsDir);
  if (dir !== undefined) {
    const readings = readSecretFiles(dir);
    for (const option of SECRET_FILE_OPTIONS) {
      const reading = readings[option];
      if (reading.state !== 'absent' && reading.text !== undefined) found.push(...linesOf(reading.text));
    }
  }
  return [...new Set(found)];
}
