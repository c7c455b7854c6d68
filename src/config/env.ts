/** The environment reader of the ready-made `checkAuth` and the CLI, derived from the options table. */
import { OPTIONS, type EnvFormat, type OptionSpec } from './option-table';
import type { DualAuthOptions } from './option-types';
import { DualAuthConfigError } from '../errors';
import { DURATION_FORM, durationSeconds } from './duration';
import type { AuthEvent, AuthEventListener } from '../events';
import { jsonForTerminal } from '../terminal-text';

type Specs = typeof OPTIONS;
type EnvKey = { [K in keyof Specs]: Specs[K]['env'] extends readonly [] ? never : K }[keyof Specs];

/** Environment variables read, by option; plus the rotation lists and the log switch. */
export const ENV = Object.freeze({
  ...(Object.fromEntries(
    Object.entries(OPTIONS).flatMap(([key, spec]) =>
      key !== 'onEvent' && spec.env[0] !== undefined ? [[key, spec.env[0]]] : [],
    ),
  ) as Record<Exclude<EnvKey, 'onEvent'>, string>),
  additionalApiSecrets: OPTIONS.apiSecret.env[1],
  apiSecrets: OPTIONS.apiSecret.env[2],
  log: OPTIONS.onEvent.env[0],
});

/** A variable as the hook reads it: trimmed, and unset when empty. */
export function readEnv(env: NodeJS.ProcessEnv, name: string): string | undefined {
  const value = env[name]?.trim();
  return value === undefined || value === '' ? undefined : value;
}

/** A comma-separated list as the hook reads it: items trimmed, empty ones dropped; unset when none. */
export function readList(env: NodeJS.ProcessEnv, name: string): string[] | undefined {
  const items = readEnv(env, name)
    ?.split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');
  return items && items.length > 0 ? items : undefined;
}

/** A revocation list: a `user <name> before <time>` entry holds spaces, so only commas and newlines end it. */
function readIds(env: NodeJS.ProcessEnv, name: string): string[] | undefined {
  const items = readEnv(env, name)
    ?.split(/[,\r\n]+/)
    .flatMap((entry) => (/^\s*user\s/.test(entry) ? [entry.trim()] : entry.split(/\s+/)))
    .filter((item) => item !== '');
  return items && items.length > 0 ? items : undefined;
}

/** A duration: `90d`, `36h`, `15m`, `30s`, or a plain number of seconds. */
function duration(env: NodeJS.ProcessEnv, name: string): number | undefined {
  const text = readEnv(env, name);
  if (text === undefined) return undefined;
  const value = /^[0-9]+$/.test(text) ? Number(text) : durationSeconds(text);
  if (value === undefined)
    throw new DualAuthConfigError(
      name,
      `must be ${DURATION_FORM} or a number of seconds, got ${JSON.stringify(text.slice(0, 32))}`,
    );
  return value;
}

function number(env: NodeJS.ProcessEnv, name: string): number | undefined {
  const text = readEnv(env, name);
  if (text === undefined) return undefined;
  const value = Number(text);
  if (!Number.isFinite(value))
    throw new DualAuthConfigError(name, `must be a number, got ${JSON.stringify(text.slice(0, 32))}`);
  return value;
}

/** A JSON value; text that is not JSON is a configuration error naming the variable and where the JSON breaks. */
function json(env: NodeJS.ProcessEnv, name: string): unknown {
  const text = readEnv(env, name);
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    const where = error instanceof SyntaxError ? `: ${error.message.slice(0, 120)}` : '';
    throw new DualAuthConfigError(name, `is not valid JSON${where}`);
  }
}

const BOOLEANS: Readonly<Record<string, boolean>> = {
  true: true,
  false: false,
  '1': true,
  '0': false,
  yes: true,
  no: false,
};

/** A true/false variable; another value is a configuration error naming it. */
export function boolean(env: NodeJS.ProcessEnv, name: string): boolean | undefined {
  const text = readEnv(env, name)?.toLowerCase();
  if (text === undefined) return undefined;
  const value = Object.hasOwn(BOOLEANS, text) ? BOOLEANS[text] : undefined;
  if (value === undefined)
    throw new DualAuthConfigError(name, `must be true or false, got ${JSON.stringify(text.slice(0, 32))}`);
  return value;
}

/** An API secret in force and the variable it was read from, which is what messages name: never the secret. */
export interface ApiSecret {
  readonly value: string;
  readonly variable: string;
}

/**
 * The API secrets in force, in the order tried, each with its variable: Cube's list replaces the main secret as in
 * Cube, the package's list adds (docs/reference.md#environment). The one reader of the secrets.
 */
export function apiSecretsInForce(env: NodeJS.ProcessEnv): ApiSecret[] {
  const from = (variable: string, values: readonly string[]): ApiSecret[] =>
    values.map((value) => ({ value, variable }));
  const cubeList = readList(env, ENV.apiSecrets);
  const single = readEnv(env, ENV.apiSecret);
  const main =
    cubeList !== undefined ? from(ENV.apiSecrets, cubeList) : from(ENV.apiSecret, single === undefined ? [] : [single]);
  const inForce: ApiSecret[] = [];
  for (const secret of [...main, ...from(ENV.additionalApiSecrets, readList(env, ENV.additionalApiSecrets) ?? [])]) {
    if (!inForce.some(({ value }) => value === secret.value)) inForce.push(secret);
  }
  return inForce;
}

/** Why no API secret variable gives a signing secret (config/deployment.ts's `signingSecretOf`), as messages say it. */
export const NO_SIGNING_SECRET = `neither ${ENV.apiSecret} nor ${ENV.apiSecrets} is set`;

function secrets(env: NodeJS.ProcessEnv): string[] | undefined {
  const all = apiSecretsInForce(env).map(({ value }) => value);
  return all.length > 0 ? all : undefined;
}

/** JSON lines on stderr; an unknown level is read as `rejected`: a typo in a log switch must not refuse requests. */
function logListener(env: NodeJS.ProcessEnv, name: string): AuthEventListener | undefined {
  let level = readEnv(env, name)?.toLowerCase();
  if (level === undefined || level === 'off') return undefined;
  if (level !== 'all' && level !== 'rejected') {
    console.error(
      `cube-dual-auth: ${name} must be "rejected", "all" or "off", got ${jsonForTerminal(level.slice(0, 32))}; logging as "rejected"`,
    );
    level = 'rejected';
  }
  const all = level === 'all';
  // A failed discovery is logged with the fetch that fails with it; a reload and a standing token log their own line
  // (reload.ts, hook/standing-token.ts).
  const quiet = new Set<AuthEvent['type']>([
    'accepted',
    'jwks-refreshed',
    'discovery',
    'secret-reload',
    'standing-token',
  ]);
  return (event) => {
    if (all || !(quiet.has(event.type) || (event.type === 'sql-login' && event.outcome === 'accepted')))
      process.stderr.write(
        `${jsonForTerminal({ time: new Date().toISOString(), source: 'cube-dual-auth', ...event })}\n`,
      );
  };
}

const READERS: Record<EnvFormat, (env: NodeJS.ProcessEnv, names: readonly string[]) => unknown> = {
  text: (env, [name]) => readEnv(env, name as string),
  list: (env, [name]) => readList(env, name as string),
  ids: (env, [name]) => readIds(env, name as string),
  number: (env, [name]) => number(env, name as string),
  duration: (env, [name]) => duration(env, name as string),
  boolean: (env, [name]) => boolean(env, name as string),
  json: (env, [name]) => json(env, name as string),
  secrets,
  log: (env, [name]) => logListener(env, name as string),
};

/** Options of the ready-made `checkAuth`, read from the environment (Cube's variable names where they exist). */
export function optionsFromEnv(env: NodeJS.ProcessEnv = process.env): DualAuthOptions {
  const options: Record<string, unknown> = {};
  for (const [key, spec] of Object.entries(OPTIONS) as [string, OptionSpec<unknown>][]) {
    if (spec.format === undefined) continue;
    const value = READERS[spec.format](env, spec.env);
    if (value !== undefined) options[key] = value;
  }
  return options as DualAuthOptions;
}
