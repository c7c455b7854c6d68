/**
 * The one resolution of a Cube project's configuration, for the hook and every command: the environment, the
 * project's `.env` under it as Cube's server loads it, and the secrets directory with the hook's precedence (a file
 * present replaces its variables). Sources are named, never values (docs/reference.md#one-configuration).
 */
import { isAbsolute, resolve } from 'node:path';
import { apiSecretsInForce, ENV, readEnv, readList, type ApiSecret } from './env';
import { withDotenv, type DotenvFinding } from './dotenv';
import {
  readSecretFiles,
  secretFileLines,
  secretFileName,
  type SecretFileReading,
  type SecretOption,
} from './secrets-dir';

/** Where a command reads the configuration: its environment, and the Cube project directory it runs in. */
export interface DeploymentSetting {
  readonly env: NodeJS.ProcessEnv;
  /** The Cube project directory, whose `.env` Cube reads; without it, no `.env` is read (Cube loaded it already). */
  readonly cwd?: string;
}

/** The environment a Cube started in `cwd` would run with, and what its `.env` gave. */
export interface Deployment {
  /** The environment over the `.env`, `CUBE_DUAL_AUTH_SECRETS_DIR` made absolute against `cwd` as Cube's start has it. */
  readonly env: NodeJS.ProcessEnv;
  /** What `doctor` says of the `.env`. */
  readonly dotenv: readonly DotenvFinding[];
}

/**
 * The environment as the hook of the Cube in `cwd` reads it.
 * @example
 * const { env } = deploymentOf({ env: process.env, cwd: process.cwd() });
 * optionsFromEnv(env); // what the hook in this Cube project holds, .env included
 */
export function deploymentOf({ env, cwd }: DeploymentSetting): Deployment {
  if (cwd === undefined) return { env, dotenv: [] };
  const { env: merged, findings } = withDotenv(env, cwd);
  const dir = readEnv(merged, ENV.secretsDir);
  if (dir === undefined || isAbsolute(dir)) return { env: merged, dotenv: findings };
  return { env: { ...merged, [ENV.secretsDir]: resolve(cwd, dir) }, dotenv: findings };
}

/** A file of the secrets directory that cannot be used: the running Cube keeps its last good content. */
export interface UnusableSecretFile {
  readonly file: string;
  readonly reason: string;
}

/** The secrets the hook holds, each named by its source (a file of the directory or a variable), never shown. */
export interface SecretsOfDeployment {
  /** The API secrets in the order the hook tries them; the first signs (unless only additional ones are set). */
  readonly apiSecrets: readonly ApiSecret[];
  readonly sqlKeySecrets: readonly ApiSecret[];
  readonly sqlPassword: ApiSecret | undefined;
  /** Unusable files: what they replace is not known here (the running Cube keeps its last good content). */
  readonly unusable: readonly UnusableSecretFile[];
}

function fromVariable(variable: string, values: readonly string[] | undefined): ApiSecret[] {
  return (values ?? []).map((value) => ({ value, variable }));
}

/** The files of the directory `env` names, as the hook reads them; undefined without a directory. */
function filesOf(
  env: NodeJS.ProcessEnv,
): { dir: string; readings: Record<SecretOption, SecretFileReading> } | undefined {
  const dir = readEnv(env, ENV.secretsDir);
  return dir === undefined ? undefined : { dir, readings: readSecretFiles(dir) };
}

/**
 * The secrets in force in `env` (a {@link Deployment}'s), with the hook's precedence: a file of the directory that is
 * read replaces its variables; one absent leaves them in force; one unusable is reported, its values unknown here.
 * @example
 * const { apiSecrets } = secretsOfDeployment(deploymentOf({ env: process.env, cwd }).env);
 * apiSecrets.map(({ variable }) => variable); // ['/etc/cube-secrets/api-secrets', '/etc/cube-secrets/api-secrets']
 */
export function secretsOfDeployment(env: NodeJS.ProcessEnv): SecretsOfDeployment {
  const files = filesOf(env);
  const unusable: UnusableSecretFile[] = [];
  const pick = (option: SecretOption, fromEnv: () => ApiSecret[]): ApiSecret[] => {
    const reading = files?.readings[option];
    if (files === undefined || reading === undefined || reading.state === 'absent') return fromEnv();
    const file = secretFileName(files.dir, option);
    if (reading.state === 'invalid') {
      unusable.push({ file, reason: reading.reason });
      return [];
    }
    const value = reading.value;
    return fromVariable(file, Array.isArray(value) ? (value as string[]) : [value as string]);
  };
  const apiSecrets = pick('apiSecret', () => apiSecretsInForce(env));
  const sqlKeySecrets = pick('sqlKeySecrets', () => fromVariable(ENV.sqlKeySecrets, readList(env, ENV.sqlKeySecrets)));
  const password = readEnv(env, ENV.sqlPassword);
  const [sqlPassword] = pick('sqlPassword', () =>
    fromVariable(ENV.sqlPassword, password === undefined ? [] : [password]),
  );
  if (files !== undefined && files.readings.sqlKeysRevoked.state === 'invalid')
    unusable.push({ file: secretFileName(files.dir, 'sqlKeysRevoked'), reason: files.readings.sqlKeysRevoked.reason });
  return { apiSecrets, sqlKeySecrets, sqlPassword, unusable };
}

/**
 * The secret a service token is signed with: the first API secret in force, the directory's first line when its
 * `api-secrets` is read; undefined when only `CUBE_DUAL_AUTH_ADDITIONAL_API_SECRETS` hold one (they only verify).
 */
export function signingSecretOf(secrets: SecretsOfDeployment): ApiSecret | undefined {
  const [first] = secrets.apiSecrets;
  return first?.variable === ENV.additionalApiSecrets ? undefined : first;
}

/**
 * Every secret value a Cube project holds or held, from the environment, its `.env` and the secrets directory alike,
 * also those a file replaces (a stale one is still a secret): the API secrets, the SQL key secrets and the static SQL
 * password, for the scrubber to mask. Never throws; an unreadable file gives nothing.
 * @example
 * const scrubber = new Scrubber(secretsInForce({ env: process.env, cwd: process.cwd() }));
 */
export function secretsInForce(setting: DeploymentSetting): string[] {
  const { env } = deploymentOf(setting);
  const values = [
    ...apiSecretsInForce(env).map(({ value }) => value),
    ...(readList(env, ENV.sqlKeySecrets) ?? []),
    ...[readEnv(env, ENV.sqlPassword)].filter((value): value is string => value !== undefined),
  ];
  const files = filesOf(env);
  for (const reading of Object.values(files?.readings ?? {})) {
    // An unusable file's lines too: a Cube's error may quote them.
    if (reading.state === 'absent' || reading.text === undefined || reading === files?.readings.sqlKeysRevoked)
      continue;
    values.push(...secretFileLines(reading.text));
  }
  return [...new Set(values)];
}
