/** The options table: each option's variables, default and check; the rest is derived from it. */
import { isKeySetAlgorithm, KEY_SET_ALGORITHMS, type KeySetAlgorithm } from '../algorithms';
import type { AuthEventListener } from '../events';
import { groupList } from './authorization';
import { claimFormat, type ClaimFormat } from './claim-format';
import { claimPointer } from './claim-pointer';
import type { IdentityProviderOptions } from './identity-providers';
import { configuredHttpUrl, discoverableIssuer, nonEmptyString, type Fail } from './option-checks';
import type { OptionKey, SecurityContextMapper } from './option-types';
import { DEFAULT_PER_TOKEN_CLAIMS } from './per-token-claims';
import { revocationsOf } from './revocations';

/** How an environment variable's text is read: one value, a comma-separated list, or a number. */
export type EnvFormat = 'text' | 'list' | 'ids' | 'number' | 'duration' | 'boolean' | 'json' | 'secrets' | 'log';

/** One row of the options table. */
export interface OptionSpec<V> {
  /** Environment variables the ready-made `checkAuth` reads it from, the main one first. */
  readonly env: readonly string[];
  readonly format?: EnvFormat;
  readonly default?: V;
  /** Validates a given value and returns it as the hook uses it. */
  readonly check: (value: unknown, fail: Fail) => V;
}

const stringList = (value: unknown, fail: Fail): readonly string[] => {
  const list = typeof value === 'string' ? [value] : value;
  if (!Array.isArray(list) || list.length === 0) fail('must be a non-empty string or a non-empty list of strings');
  return list.map((item) => nonEmptyString(item, fail));
};

const atLeast =
  (min: number) =>
  (value: unknown, fail: Fail): number => {
    if (typeof value !== 'number' || !Number.isFinite(value) || value < min)
      fail(`must be a finite number of at least ${min}`);
    return value;
  };

const bool = (value: unknown, fail: Fail): boolean => {
  if (typeof value !== 'boolean') fail('must be true or false');
  return value;
};

/** A TCP port to listen on: 0 would bind a port nobody could be told to scrape. */
const port = (value: unknown, fail: Fail): number => {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > 65_535)
    fail('must be a port number from 1 to 65535');
  return value;
};

const func = <F>(value: unknown, fail: Fail): F => {
  if (typeof value !== 'function') fail('must be a function');
  return value as F;
};

function keySetAlgorithms(value: unknown, fail: Fail): readonly KeySetAlgorithm[] {
  if (!Array.isArray(value) || value.length === 0) fail('must be a non-empty list');
  for (const alg of value) {
    if (isKeySetAlgorithm(alg)) continue;
    const why =
      typeof alg === 'string' && /^(hs|none$)/i.test(alg)
        ? 'is not allowed on the key-set path: symmetric and unsigned tokens belong to the shared-secret path only'
        : `is not supported (use ${KEY_SET_ALGORITHMS.join(', ')})`;
    fail(`contains ${JSON.stringify(alg)}, which ${why}`);
  }
  return [...new Set(value as KeySetAlgorithm[])];
}

const claimText = (value: unknown, fail: Fail): string => claimPointer(value, fail).text;

/** The `sqlUserClaim` that accepts any user name: the token alone decides who signs in. */
export const ANY_SQL_USER = '*';

/** The fields of a provider entry, each checked as the top-level option of the same name. */
const PROVIDER_FIELDS: { readonly [K in keyof IdentityProviderOptions]-?: (value: unknown, fail: Fail) => unknown } = {
  issuer: nonEmptyString,
  jwksUri: configuredHttpUrl,
  audience: stringList,
  algorithms: keySetAlgorithms,
  subject: nonEmptyString,
  claimsNamespace: (value, fail) => (value === null ? null : nonEmptyString(value, fail)),
  tenantClaim: claimText,
  groupsClaim: claimText,
  groups: groupList,
  tenantClaimFormat: claimFormat,
  groupsClaimFormat: claimFormat,
};

function providerList(value: unknown, fail: Fail): readonly IdentityProviderOptions[] {
  if (!Array.isArray(value) || value.length === 0)
    fail('must be a non-empty list of identity providers ({ "issuer": ... })');
  const seen = new Set<string>();
  return value.map((entry: unknown, i) => {
    const at = `entry ${i + 1}`;
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry))
      fail(`${at} must be an object with an "issuer"`);
    const given = entry as Record<string, unknown>;
    const named =
      typeof given.issuer === 'string' ? `${at} (issuer ${JSON.stringify(given.issuer.slice(0, 100))})` : at;
    const checked: Record<string, unknown> = {};
    for (const [field, item] of Object.entries(given)) {
      const rule = Object.hasOwn(PROVIDER_FIELDS, field)
        ? PROVIDER_FIELDS[field as keyof IdentityProviderOptions]
        : undefined;
      if (rule === undefined)
        fail(`${named}: "${field}" is not a provider field (${Object.keys(PROVIDER_FIELDS).join(', ')})`);
      if (item !== undefined) checked[field] = rule(item, (problem) => fail(`${named} field "${field}" ${problem}`));
    }
    if (checked.issuer === undefined) fail(`${at} has no "issuer": tokens are routed to a provider by it`);
    const issuer = checked.issuer as string;
    if (checked.jwksUri === undefined)
      discoverableIssuer(issuer, (problem) => fail(`${named} has no "jwksUri", and its issuer ${problem}`));
    if (seen.has(issuer)) fail(`${named} repeats an issuer: each issuer chooses one provider`);
    seen.add(issuer);
    return checked as unknown as IdentityProviderOptions;
  });
}

const DAY_SECONDS = 86_400;

/** The longest a SQL key may live: a stored password that outlives a year is one nobody remembers giving out. */
export const SQL_KEY_MAX_AGE_LIMIT = 365 * DAY_SECONDS;

function sqlKeyMaxAge(value: unknown, fail: Fail): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > SQL_KEY_MAX_AGE_LIMIT)
    fail(`must be a whole number of seconds from 1 to ${SQL_KEY_MAX_AGE_LIMIT} (a year), or a duration such as 90d`);
  return value;
}

const wholeFrom =
  (min: number) =>
  (value: unknown, fail: Fail): number => {
    if (typeof value !== 'number' || !Number.isInteger(value) || value < min)
      fail(`must be a whole number of at least ${min}`);
    return value;
  };

const ms = (env: string, fallback: number, min: number): OptionSpec<number> & { readonly default: number } => ({
  env: [env],
  format: 'number',
  default: fallback,
  check: atLeast(min),
});

/** The options table. `satisfies` makes a missing or extra row a compile error. */
export const OPTIONS = {
  apiSecret: {
    env: ['CUBEJS_API_SECRET', 'CUBE_DUAL_AUTH_ADDITIONAL_API_SECRETS', 'CUBEJS_API_SECRETS'],
    format: 'secrets',
    check: stringList,
  },
  allowWeakSecret: { env: ['CUBE_DUAL_AUTH_ALLOW_WEAK_SECRET'], format: 'boolean', default: false, check: bool },
  jwksUri: { env: ['CUBEJS_JWK_URL'], format: 'text', check: configuredHttpUrl },
  providers: { env: ['CUBE_DUAL_AUTH_PROVIDERS'], format: 'json', check: providerList },
  origin: {
    env: ['CUBE_DUAL_AUTH_ORIGIN'],
    format: 'text',
    default: 'embeddable',
    check: (value, fail) => nonEmptyString(value, fail).trim().toLowerCase(),
  },
  standingTokenWithoutOrigin: {
    env: ['CUBE_DUAL_AUTH_STANDING_TOKEN_WITHOUT_ORIGIN'],
    format: 'boolean',
    default: false,
    check: bool,
  },
  algorithms: {
    env: ['CUBEJS_JWT_ALGS'],
    format: 'list',
    default: ['RS256'] as readonly KeySetAlgorithm[],
    check: keySetAlgorithms,
  },
  audience: { env: ['CUBEJS_JWT_AUDIENCE'], format: 'list', check: stringList },
  issuer: { env: ['CUBEJS_JWT_ISSUER'], format: 'list', check: stringList },
  subject: { env: ['CUBEJS_JWT_SUBJECT'], format: 'text', check: nonEmptyString },
  claimsNamespace: { env: ['CUBEJS_JWT_CLAIMS_NAMESPACE'], format: 'text', check: nonEmptyString },
  clockTolerance: { env: ['CUBE_DUAL_AUTH_CLOCK_TOLERANCE'], format: 'number', default: 5, check: atLeast(0) },
  maxTokenAge: { env: ['CUBE_DUAL_AUTH_MAX_TOKEN_AGE'], format: 'number', check: atLeast(1) },
  securityContext: { env: [], check: func<SecurityContextMapper> },
  securityContextTimeoutMs: ms('CUBE_DUAL_AUTH_SECURITY_CONTEXT_TIMEOUT_MS', 5_000, 1),
  requiredClaims: {
    env: ['CUBE_DUAL_AUTH_REQUIRED_CLAIMS'],
    format: 'list',
    check: (value, fail) =>
      Array.isArray(value) ? stringList(value, fail) : fail('must be a non-empty list of claim names'),
  },
  tenantClaim: { env: ['CUBE_DUAL_AUTH_TENANT_CLAIM'], format: 'text', check: claimText },
  serviceTenantClaim: { env: ['CUBE_DUAL_AUTH_SERVICE_TENANT_CLAIM'], format: 'text', check: claimText },
  groupsClaim: { env: ['CUBE_DUAL_AUTH_GROUPS_CLAIM'], format: 'text', default: 'groups', check: claimText },
  serviceGroupsClaim: {
    env: ['CUBE_DUAL_AUTH_SERVICE_GROUPS_CLAIM'],
    format: 'text',
    default: 'roles',
    check: claimText,
  },
  defaultGroups: { env: ['CUBE_DUAL_AUTH_DEFAULT_GROUPS'], format: 'list', check: groupList },
  serviceGroups: { env: ['CUBE_DUAL_AUTH_SERVICE_GROUPS'], format: 'list', check: groupList },
  tenantClaimFormat: {
    env: ['CUBE_DUAL_AUTH_TENANT_CLAIM_FORMAT'],
    format: 'text',
    default: 'array' as ClaimFormat,
    check: claimFormat,
  },
  groupsClaimFormat: {
    env: ['CUBE_DUAL_AUTH_GROUPS_CLAIM_FORMAT'],
    format: 'text',
    default: 'array' as ClaimFormat,
    check: claimFormat,
  },
  sqlUserClaim: {
    env: ['CUBE_DUAL_AUTH_SQL_USER_CLAIM'],
    format: 'text',
    default: 'sub',
    check: (value, fail) => (value === ANY_SQL_USER ? value : claimText(value, fail)),
  },
  sqlUser: { env: ['CUBEJS_SQL_USER'], format: 'text', check: nonEmptyString },
  sqlPassword: { env: ['CUBEJS_SQL_PASSWORD'], format: 'text', check: nonEmptyString },
  sqlSuperUser: { env: ['CUBEJS_SQL_SUPER_USER'], format: 'text', check: nonEmptyString },
  sqlKeySecrets: { env: ['CUBE_DUAL_AUTH_SQL_KEY_SECRETS'], format: 'list', check: stringList },
  sqlKeyMaxAge: {
    env: ['CUBE_DUAL_AUTH_SQL_KEY_MAX_AGE'],
    format: 'duration',
    default: 90 * DAY_SECONDS,
    check: sqlKeyMaxAge,
  },
  sqlKeysRevoked: { env: ['CUBE_DUAL_AUTH_SQL_KEYS_REVOKED'], format: 'ids', check: revocationsOf },
  secretsDir: { env: ['CUBE_DUAL_AUTH_SECRETS_DIR'], format: 'text', check: nonEmptyString },
  secretsPollMs: ms('CUBE_DUAL_AUTH_SECRETS_POLL_MS', 10_000, 100),
  sqlLiveLoginsPerUser: {
    env: ['CUBE_DUAL_AUTH_SQL_LIVE_LOGINS_PER_USER'],
    format: 'number',
    default: 20,
    check: wholeFrom(1),
  },
  sqlPerTokenClaims: {
    env: ['CUBE_DUAL_AUTH_SQL_PER_TOKEN_CLAIMS'],
    format: 'list',
    default: DEFAULT_PER_TOKEN_CLAIMS,
    check: (value, fail) => (Array.isArray(value) && value.length === 0 ? [] : stringList(value, fail)),
  },
  detailedErrors: { env: ['CUBE_DUAL_AUTH_DETAILED_ERRORS'], format: 'boolean', default: false, check: bool },
  jwksCooldownMs: ms('CUBE_DUAL_AUTH_JWKS_COOLDOWN_MS', 30_000, 0),
  jwksMaxAgeMs: ms('CUBE_DUAL_AUTH_JWKS_MAX_AGE_MS', 600_000, 1),
  jwksStaleIfErrorMs: ms('CUBE_DUAL_AUTH_JWKS_STALE_IF_ERROR_MS', 86_400_000, 0),
  jwksTimeoutMs: ms('CUBE_DUAL_AUTH_JWKS_TIMEOUT_MS', 5_000, 1),
  jwksMaxResponseBytes: ms('CUBE_DUAL_AUTH_JWKS_MAX_RESPONSE_BYTES', 524_288, 1024),
  tokenCacheSize: {
    env: ['CUBE_DUAL_AUTH_TOKEN_CACHE_SIZE'],
    format: 'number',
    default: 10_000,
    check: (value, fail) => Math.floor(atLeast(0)(value, fail)),
  },
  tokenCacheMaxAgeMs: ms('CUBE_DUAL_AUTH_TOKEN_CACHE_MAX_AGE_MS', 60_000, 0),
  metricsPort: { env: ['CUBE_DUAL_AUTH_METRICS_PORT'], format: 'number', check: port },
  metricsHost: { env: ['CUBE_DUAL_AUTH_METRICS_HOST'], format: 'text', default: '127.0.0.1', check: nonEmptyString },
  metrics: { env: ['CUBE_DUAL_AUTH_METRICS'], format: 'boolean', default: false, check: bool },
  onEvent: { env: ['CUBE_DUAL_AUTH_LOG'], format: 'log', check: func<AuthEventListener> },
} as const satisfies { readonly [K in OptionKey]-?: OptionSpec<unknown> };

type Specs = typeof OPTIONS;
export type Checked<K extends OptionKey> = ReturnType<Specs[K]['check']>;
export type Defaulted = { [K in OptionKey]: Specs[K] extends { default: unknown } ? K : never }[OptionKey];

/** The defaults, from the table. */
export const DEFAULTS = Object.fromEntries(
  Object.entries(OPTIONS).flatMap(([key, spec]) => ('default' in spec ? [[key, spec.default]] : [])),
) as { readonly [K in Defaulted]: Specs[K] extends { default: infer D } ? D : never };

/** How each option is named in messages: by its environment variable when it came from one. */
export type OptionNames = Readonly<Record<OptionKey, string>>;

export const KEYS = Object.keys(OPTIONS) as OptionKey[];

/** Names for options passed to `createCheckAuth`: `option "jwksUri"`. */
export const OPTION_NAMES: OptionNames = Object.fromEntries(KEYS.map((key) => [key, `option "${key}"`])) as Record<
  OptionKey,
  string
>;

/** Names for options read from the environment: the main variable (`CUBEJS_JWK_URL`). */
export const ENV_NAMES: OptionNames = Object.fromEntries(
  KEYS.map((key) => [key, OPTIONS[key].env[0] ?? OPTION_NAMES[key]]),
) as Record<OptionKey, string>;
