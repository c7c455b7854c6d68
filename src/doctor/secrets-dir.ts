/**
 * `doctor`'s view of the secrets directory (`CUBE_DUAL_AUTH_SECRETS_DIR`): the options resolved as the hook resolves
 * them (the files in place), and per file whether it is in force, absent or unusable, and why: counts, never values.
 */
import { DualAuthConfigError } from '../errors';
import { ENV_NAMES, OPTIONS, type DualAuthOptions, type ResolvedOptions } from '../config/options';
import {
  givenBy,
  readSecretFiles,
  resolveAtStart,
  resolveWithSecretFiles,
  SECRET_FILES,
  SECRET_OPTIONS,
  secretFileName,
  startingSecretFiles,
  type SecretOption,
} from '../config/secrets-dir';

/** The options as the hook takes them at start: with a secrets directory, its files checked and in place. */
export function resolvedAsTheHook(options: DualAuthOptions): ResolvedOptions {
  return resolveAtStart(options, ENV_NAMES);
}

/** Whether the directory's `api-secrets` replaces the API secret variables, which then need no check of their own. */
export function apiSecretsFromDirectory(options: DualAuthOptions | undefined): boolean {
  const dir = options?.secretsDir;
  return dir !== undefined && readSecretFiles(dir).apiSecret.state !== 'absent';
}

const WHAT: Readonly<Record<SecretOption, (count: number) => string>> = {
  apiSecret: (n) => `${n} ${n === 1 ? 'secret' : 'secrets'}`,
  sqlKeySecrets: (n) => `${n} ${n === 1 ? 'secret' : 'secrets'}, the first signing`,
  sqlKeysRevoked: (n) => `${n} ${n === 1 ? 'entry' : 'entries'}`,
  sqlPassword: () => 'the password, never printed',
};

/** The variables a file replaces, as messages name them. */
const variablesOf = (option: SecretOption): string => OPTIONS[option].env.join(', ');

/**
 * The directory's line of the checklist; undefined without one. Fails when a file is unusable, which stops a starting
 * Cube; a running Cube keeps its last good content instead, and says so in its log and metrics (docs/rotation.md).
 */
export function secretsDirReport(
  options: DualAuthOptions | undefined,
): { readonly status: 'ok' | 'fail'; readonly message: string } | undefined {
  const dir = options?.secretsDir;
  if (dir === undefined) return undefined;
  try {
    startingSecretFiles(dir, ENV_NAMES.secretsDir);
  } catch (error) {
    if (error instanceof DualAuthConfigError && error.option === ENV_NAMES.secretsDir)
      return { status: 'fail', message: error.message.replace(/^cube-dual-auth: /, '') };
  }
  const readings = readSecretFiles(dir);
  const problems: Partial<Record<SecretOption, string>> = {};
  for (const option of SECRET_OPTIONS) {
    const reading = readings[option];
    if (reading.state === 'invalid') problems[option] = reading.reason;
  }
  try {
    resolveWithSecretFiles(options as DualAuthOptions, ENV_NAMES, givenBy(dir, readings));
  } catch (error) {
    const file = SECRET_OPTIONS.find(
      (option) => error instanceof DualAuthConfigError && error.option === secretFileName(dir, option),
    );
    // A failure of the directory itself, or of another setting, is the configuration line's to tell.
    if (file !== undefined)
      problems[file] ??= (error as DualAuthConfigError).message
        .replace(/^cube-dual-auth: /, '')
        .slice(secretFileName(dir, file).length + 1);
  }
  const lines = SECRET_OPTIONS.map((option) => {
    const file = SECRET_FILES[option];
    const problem = problems[option];
    if (problem !== undefined)
      return `${file} is unusable: ${problem} (a starting Cube stops; a running one keeps its last good content)`;
    const reading = readings[option];
    if (reading.state !== 'read') return `${file} absent (${variablesOf(option)} in force)`;
    const value = reading.value;
    return `${file} in force (${WHAT[option](Array.isArray(value) ? value.length : 1)})`;
  });
  const failed = Object.keys(problems).length > 0;
  return {
    status: failed ? 'fail' : 'ok',
    message: `secrets directory ${dir} (${ENV_NAMES.secretsDir}), read again on each change and every ${options?.secretsPollMs ?? OPTIONS.secretsPollMs.default} ms: ${lines.join('; ')}`,
  };
}
