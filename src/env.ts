import { DualAuthConfigError, type DualAuthOptions, type KeySetAlgorithm, type OptionNames } from './config';
import type { AuthEvent, AuthEventListener } from './events';

/**
 * Environment variables read by the ready-made `checkAuth` and by the CLI. Cube's own names where Cube has one,
 * `CUBE_DUAL_AUTH_*` for what Cube has no name for.
 */
export const ENV = {
  apiSecret: 'CUBEJS_API_SECRET',
  additionalApiSecrets: 'CUBE_DUAL_AUTH_ADDITIONAL_API_SECRETS',
  jwksUri: 'CUBEJS_JWK_URL',
  origin: 'CUBE_DUAL_AUTH_ORIGIN',
  algorithms: 'CUBEJS_JWT_ALGS',
  audience: 'CUBEJS_JWT_AUDIENCE',
  issuer: 'CUBEJS_JWT_ISSUER',
  subject: 'CUBEJS_JWT_SUBJECT',
  claimsNamespace: 'CUBEJS_JWT_CLAIMS_NAMESPACE',
  clockTolerance: 'CUBE_DUAL_AUTH_CLOCK_TOLERANCE',
  maxTokenAge: 'CUBE_DUAL_AUTH_MAX_TOKEN_AGE',
  jwksCooldownMs: 'CUBE_DUAL_AUTH_JWKS_COOLDOWN_MS',
  jwksMaxAgeMs: 'CUBE_DUAL_AUTH_JWKS_MAX_AGE_MS',
  jwksStaleIfErrorMs: 'CUBE_DUAL_AUTH_JWKS_STALE_IF_ERROR_MS',
  jwksTimeoutMs: 'CUBE_DUAL_AUTH_JWKS_TIMEOUT_MS',
  jwksMaxResponseBytes: 'CUBE_DUAL_AUTH_JWKS_MAX_RESPONSE_BYTES',
  tokenCacheSize: 'CUBE_DUAL_AUTH_TOKEN_CACHE_SIZE',
  tokenCacheMaxAgeMs: 'CUBE_DUAL_AUTH_TOKEN_CACHE_MAX_AGE_MS',
  log: 'CUBE_DUAL_AUTH_LOG',
} as const;

const NUMERIC = [
  'clockTolerance', 'maxTokenAge', 'jwksCooldownMs', 'jwksMaxAgeMs', 'jwksStaleIfErrorMs', 'jwksTimeoutMs',
  'jwksMaxResponseBytes', 'tokenCacheSize', 'tokenCacheMaxAgeMs',
] as const;

/** Names used in messages for options that came from the environment. */
export const ENV_NAMES: OptionNames = {
  ...Object.fromEntries(Object.entries(ENV).map(([key, name]) => [key, name])),
  apiSecret: `${ENV.apiSecret} / ${ENV.additionalApiSecrets}`,
};

/** A variable as the hook reads it: trimmed, and unset when empty. */
export function readEnv(env: NodeJS.ProcessEnv, name: string): string | undefined {
  const value = env[name]?.trim();
  return value === undefined || value === '' ? undefined : value;
}

function list(env: NodeJS.ProcessEnv, name: string): string[] | undefined {
  const items = readEnv(env, name)?.split(',').map((item) => item.trim()).filter((item) => item !== '');
  return items && items.length > 0 ? items : undefined;
}

function number(env: NodeJS.ProcessEnv, name: string): number | undefined {
  const text = readEnv(env, name);
  if (text === undefined) return undefined;
  const value = Number(text);
  if (!Number.isFinite(value)) throw new DualAuthConfigError(name, `must be a number, got ${JSON.stringify(text.slice(0, 32))}`);
  return value;
}

function secrets(env: NodeJS.ProcessEnv): string[] | undefined {
  // Secrets are never trimmed of inner characters, but a list is split on commas: base64 and hex never contain one.
  const all = [readEnv(env, ENV.apiSecret), ...(list(env, ENV.additionalApiSecrets) ?? [])].filter((s): s is string => !!s);
  return all.length > 0 ? all : undefined;
}

/** A listener that writes events as JSON lines to stderr; `rejected` logs refusals and JWKS failures only. */
function logListener(env: NodeJS.ProcessEnv): AuthEventListener | undefined {
  const level = readEnv(env, ENV.log)?.toLowerCase();
  if (level === undefined || level === 'off') return undefined;
  if (level !== 'all' && level !== 'rejected') {
    throw new DualAuthConfigError(ENV.log, `must be "rejected", "all" or "off", got ${JSON.stringify(level.slice(0, 32))}`);
  }
  const quiet = new Set<AuthEvent['type']>(['accepted', 'jwks-refreshed']);
  return (event) => {
    if (level === 'all' || !quiet.has(event.type)) process.stderr.write(`${JSON.stringify({ source: 'cube-dual-auth', ...event })}\n`);
  };
}

/** Options of the ready-made `checkAuth`, read from the environment (Cube's variable names where they exist). */
export function optionsFromEnv(env: NodeJS.ProcessEnv = process.env): DualAuthOptions {
  const options: DualAuthOptions = {
    apiSecret: secrets(env),
    jwksUri: readEnv(env, ENV.jwksUri),
    origin: readEnv(env, ENV.origin),
    algorithms: list(env, ENV.algorithms) as KeySetAlgorithm[] | undefined,
    audience: list(env, ENV.audience),
    issuer: list(env, ENV.issuer),
    subject: readEnv(env, ENV.subject),
    claimsNamespace: readEnv(env, ENV.claimsNamespace),
    onEvent: logListener(env),
  };
  for (const key of NUMERIC) options[key] = number(env, ENV[key]);
  return Object.fromEntries(Object.entries(options).filter(([, value]) => value !== undefined)) as DualAuthOptions;
}
