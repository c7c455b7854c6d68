/**
 * The options of the hook, described once: {@link OPTIONS} holds each option's environment variable, default and
 * validation, and the defaults, the known-option list, the environment reader (env.ts) and the names used in
 * messages are all derived from it. The documentation of each option is its TSDoc in {@link DualAuthOptions}.
 */
import { createSecretKey, type KeyObject } from 'node:crypto';
import { isKeySetAlgorithm, KEY_SET_ALGORITHMS, type KeySetAlgorithm } from '../algorithms';
import { DualAuthConfigError, type AuthPath } from '../errors';
import { authorizationOf, groupList, type Authorization, type AuthorizationSettings } from './authorization';
import { claimPointer } from './claim-pointer';
import { DEFAULT_PER_TOKEN_CLAIMS } from './per-token-claims';
import {
  identityProvidersOf,
  type IdentityProvider,
  type IdentityProviderOptions,
  type ProviderSettings,
} from './identity-providers';
import { configuredHttpUrl, discoverableIssuer, nonEmptyString, type Fail } from './option-checks';
import { revocationsOf } from './revocations';
import { MIN_SECRET_BYTES, SECRET_ADVICE, secretWeakness } from './secret-strength';
import type { AuthEventListener } from '../events';

/** What a `securityContext` function is told about the token it shapes. */
export interface SecurityContextInfo {
  /** The path that verified the token. */
  readonly path: AuthPath;
  /** The whole verified payload (before the claims namespace was applied). */
  readonly payload: Readonly<Record<string, unknown>>;
}

/**
 * Turns a verified token into the security context Cube receives. Return an object (or a promise of one);
 * throw a `DualAuthError` to refuse the request with its message.
 */
export type SecurityContextMapper = (
  context: Record<string, unknown>,
  info: SecurityContextInfo,
) => Record<string, unknown> | Promise<Record<string, unknown>>;

/** Options of {@link createCheckAuth}. The ready-made `checkAuth` reads each from the environment variable named. */
export interface DualAuthOptions {
  /**
   * The deployment's API secret for the shared-secret path (HS256); a list accepts any, for rotation. At least 32
   * bytes of randomness: anyone can choose this path. Env: `CUBEJS_API_SECRET`, or Cube's `CUBEJS_API_SECRETS`
   * (comma-separated), which replaces it; plus `CUBE_DUAL_AUTH_ADDITIONAL_API_SECRETS` (comma-separated), always added.
   * @default none: the shared-secret path refuses every token, naming the missing setting
   */
  apiSecret?: string | readonly string[];
  /**
   * Runs with an API secret too weak for HS256 (docs/security.md), warning once at start, instead of stopping with a
   * `DualAuthConfigError`: a guessable secret lets anyone mint tokens, so for a test set-up only.
   * Env: `CUBE_DUAL_AUTH_ALLOW_WEAK_SECRET` (`true` or `false`). @default false
   */
  allowWeakSecret?: boolean;
  /**
   * JWKS URL of the identity provider, for the key-set path; never taken from a token. Env: `CUBEJS_JWK_URL`.
   * @default discovered from `issuer` when that is one http(s) URL; else none: the key-set path refuses every token
   */
  jwksUri?: string;
  /**
   * Several identity providers on the key-set path: a token's `iss`, compared exactly, chooses the provider
   * (another or none: `ERR_ISSUER_UNKNOWN`), then its `kid` one of that provider's keys. Not with `jwksUri` or
   * `issuer`. Env: `CUBE_DUAL_AUTH_PROVIDERS` (the array as JSON). @default none: one provider, `jwksUri` or `issuer`
   */
  providers?: readonly IdentityProviderOptions[];
  /**
   * `Request-Origin` value (any case) that sends a request to the shared-secret path. Env: `CUBE_DUAL_AUTH_ORIGIN`.
   * @default 'embeddable'
   */
  origin?: string;
  /**
   * Key-set path algorithms, asymmetric only (RS, PS, ES; 256/384/512). Env: `CUBEJS_JWT_ALGS` (comma-separated).
   * @default ['RS256']
   */
  algorithms?: readonly KeySetAlgorithm[];
  /**
   * Required `aud` on the key-set path (any one). Env: `CUBEJS_JWT_AUDIENCE` (comma-separated). @default not checked
   */
  audience?: string | readonly string[];
  /**
   * Required `iss` on the key-set path (any one); without `jwksUri`, a single http(s) URL here is where the JWKS URL
   * is discovered. Env: `CUBEJS_JWT_ISSUER` (comma-separated). @default not checked
   */
  issuer?: string | readonly string[];
  /** Required `sub` on the key-set path. Env: `CUBEJS_JWT_SUBJECT`. @default not checked */
  subject?: string;
  /**
   * Key-set path: the context is the payload's claim of this name, as in Cube. Env: `CUBEJS_JWT_CLAIMS_NAMESPACE`.
   * @default the whole payload
   */
  claimsNamespace?: string;
  /** Seconds of clock skew allowed for `exp`, `nbf` and `iat`. Env: `CUBE_DUAL_AUTH_CLOCK_TOLERANCE`. @default 5 */
  clockTolerance?: number;
  /**
   * Oldest token accepted, seconds since its (then required) `iat`. Env: `CUBE_DUAL_AUTH_MAX_TOKEN_AGE`. @default not
   * checked
   */
  maxTokenAge?: number;
  /**
   * Shapes the security context per path (see {@link SecurityContextMapper}). @default the verified payload as it is
   */
  securityContext?: SecurityContextMapper;
  /**
   * Longest wait for the `securityContext` function, in ms; past it the request is refused
   * (`ERR_SECURITY_CONTEXT_TIMEOUT`). Env: `CUBE_DUAL_AUTH_SECURITY_CONTEXT_TIMEOUT_MS`. @default 5000
   */
  securityContextTimeoutMs?: number;
  /**
   * Claims the security context must own, on both paths, else `ERR_CLAIM_MISSING` before `queryRewrite` runs.
   * Env: `CUBE_DUAL_AUTH_REQUIRED_CLAIMS` (comma-separated). @default none required
   */
  requiredClaims?: readonly string[];
  /**
   * Where the tenant is in a token, both paths: a claim name or a JSON Pointer (`/org/id`). Turns authorization on:
   * the context's `tenant` is its value, and a token without a non-empty string there is refused
   * (`ERR_TENANT_MISSING`, `ERR_TENANT_INVALID`). Env: `CUBE_DUAL_AUTH_TENANT_CLAIM`. @default none: no tenant
   */
  tenantClaim?: string;
  /**
   * Where a service token carries the tenant, when not where `tenantClaim` says (the service signs the context as
   * the payload; identity providers often nest claims). A claim name or JSON Pointer; turns authorization on.
   * Env: `CUBE_DUAL_AUTH_SERVICE_TENANT_CLAIM`. @default `tenantClaim`
   */
  serviceTenantClaim?: string;
  /**
   * Where an identity provider's token lists its groups: a claim name or JSON Pointer (`/realm_access/roles`) holding
   * one name or a list. Turns authorization on. Env: `CUBE_DUAL_AUTH_GROUPS_CLAIM`. @default 'groups'
   */
  groupsClaim?: string;
  /**
   * Where a service token lists its groups (claim or JSON Pointer); turns authorization on. Env:
   * `CUBE_DUAL_AUTH_SERVICE_GROUPS_CLAIM`. @default 'roles'
   */
  serviceGroupsClaim?: string;
  /**
   * Groups of a token naming none, both paths; turns authorization on. Env: `CUBE_DUAL_AUTH_DEFAULT_GROUPS`
   * (comma-separated). @default none
   */
  defaultGroups?: string | readonly string[];
  /**
   * Groups every service token gets besides its own, which no token may claim (one that does is refused), so access
   * policies tell the service apart. Turns authorization on. Env: `CUBE_DUAL_AUTH_SERVICE_GROUPS` (comma-separated).
   * @default none
   */
  serviceGroups?: string | readonly string[];
  /**
   * SQL API login: the claim of the identity-provider token given as the password that must equal the user name (a
   * name or JSON Pointer; `*` accepts any user). Env: `CUBE_DUAL_AUTH_SQL_USER_CLAIM`. @default 'sub'
   */
  sqlUserClaim?: string;
  /**
   * User of Cube's static SQL API login, kept beside token logins when `sqlPassword` is set too; its password is
   * compared with `sqlPassword`, never read as a token. Env: `CUBEJS_SQL_USER`. @default none: no static login
   */
  sqlUser?: string;
  /**
   * The password of the static SQL API login of `sqlUser`. Env: `CUBEJS_SQL_PASSWORD`. @default none: no static login
   */
  sqlPassword?: string;
  /**
   * The SQL user that may switch to another (`canSwitchSqlUser`). Env: `CUBEJS_SQL_SUPER_USER`. @default none: no
   * switching
   */
  sqlSuperUser?: string;
  /**
   * The secrets that sign and verify SQL keys (`cube-dual-auth sql-key`): passwords for BI tools that stand for an
   * identity-provider login for as long as the key lives. The first signs, every one verifies, so a rotation needs no
   * cut. Each must hold at least 256 bits and differ from every API secret: a key is never a service token. Env:
   * `CUBE_DUAL_AUTH_SQL_KEY_SECRETS` (comma-separated).
   * @default none: every SQL key is refused, and `sql-key` mints none
   */
  sqlKeySecrets?: string | readonly string[];
  /**
   * Longest life of a SQL key, in seconds (at most a year): `sql-key` mints none longer, and a key older than this
   * (by its `iat`) is refused, so shortening it cuts keys already given out. Env: `CUBE_DUAL_AUTH_SQL_KEY_MAX_AGE`
   * (a duration such as `90d`, `36h`, or seconds).
   * @default 7776000 (90 days)
   */
  sqlKeyMaxAge?: number;
  /**
   * SQL keys refused from now on, at login and at each re-authentication: each entry a key id (`jti`), or
   * `user <name> before <ISO-8601 time>` for every key of that user issued before then. Env:
   * `CUBE_DUAL_AUTH_SQL_KEYS_REVOKED` (ids separated by commas, spaces or newlines, a `user … before …` entry by commas
   * or newlines; anything else stops Cube), or the file `sql-keys-revoked` of `secretsDir`.
   * @default none
   */
  sqlKeysRevoked?: readonly string[];
  /**
   * A directory mounted as a Kubernetes Secret is (one file per key): `api-secrets`, `sql-key-secrets`,
   * `sql-keys-revoked` and `sql-password` replace the matching options when present, and are read again while Cube
   * runs, each change checked as at start (docs/rotation.md). Env: `CUBE_DUAL_AUTH_SECRETS_DIR`. @default none
   */
  secretsDir?: string;
  /**
   * How often, in ms, `secretsDir` is read again besides its file-system events (for file systems that send none).
   * Env: `CUBE_DUAL_AUTH_SECRETS_POLL_MS`. @default 10000
   */
  secretsPollMs?: number;
  /**
   * The most live SQL logins one user name keeps for Cube's re-authentication: a user's further login evicts that
   * user's own oldest, never another user's. Env: `CUBE_DUAL_AUTH_SQL_LIVE_LOGINS_PER_USER`. @default 20
   */
  sqlLiveLoginsPerUser?: number;
  /**
   * Claims an identity provider sets per token (a token or session id), never compared when two live SQL logins of one
   * user are judged the same identity; `iat`, `nbf`, `exp`, `jti` and `auth_time` never are either. Env:
   * `CUBE_DUAL_AUTH_SQL_PER_TOKEN_CLAIMS` (comma-separated): Entra ID's `uti`, `aio`, `rh`; Keycloak's `sid`,
   * `session_state`; Auth0's `sid`, `nonce`; Okta's `nonce`, `at_hash`, `c_hash` (docs/security.md).
   * @default ['uti','aio','rh','sid','session_state','nonce','at_hash','c_hash']
   */
  sqlPerTokenClaims?: readonly string[];
  /**
   * Sends the caller a refusal's whole message (JWKS URL, configuration) instead of the public one; for development.
   * Events and `explain()` always have it. Env: `CUBE_DUAL_AUTH_DETAILED_ERRORS` (`true` or `false`). @default false
   */
  detailedErrors?: boolean;
  /**
   * Least ms between two JWKS fetches for an unknown `kid` or after a failure. Env: `CUBE_DUAL_AUTH_JWKS_COOLDOWN_MS`.
   * @default 30000
   */
  jwksCooldownMs?: number;
  /**
   * Age in ms after which the key set is fetched again (sooner by the answer's `Cache-Control: max-age`, never under
   * `jwksCooldownMs`). Env: `CUBE_DUAL_AUTH_JWKS_MAX_AGE_MS`. @default 600000
   */
  jwksMaxAgeMs?: number;
  /**
   * Ms past `jwksMaxAgeMs` the last good key set serves while fetches fail (RFC 5861). Env:
   * `CUBE_DUAL_AUTH_JWKS_STALE_IF_ERROR_MS`. @default 86400000
   */
  jwksStaleIfErrorMs?: number;
  /** Deadline of one JWKS fetch, in ms. Env: `CUBE_DUAL_AUTH_JWKS_TIMEOUT_MS`. @default 5000 */
  jwksTimeoutMs?: number;
  /** Largest JWKS answer accepted, in bytes. Env: `CUBE_DUAL_AUTH_JWKS_MAX_RESPONSE_BYTES`. @default 524288 */
  jwksMaxResponseBytes?: number;
  /**
   * Most verified tokens remembered, so a token used again skips verification; 0 turns the cache off. About 0.5 to
   * 1.5 KB each (docs/performance.md). Env: `CUBE_DUAL_AUTH_TOKEN_CACHE_SIZE`. @default 10000
   */
  tokenCacheSize?: number;
  /**
   * Longest a token answers from the cache, in ms; `exp` ends it sooner. Env: `CUBE_DUAL_AUTH_TOKEN_CACHE_MAX_AGE_MS`.
   * @default 60000
   */
  tokenCacheMaxAgeMs?: number;
  /**
   * Serves the metrics at `GET /metrics` on this port, a listener of its own in the Cube process, and turns them on.
   * A port that cannot be bound stops `createCheckAuth` (and Cube) with a `DualAuthConfigError`.
   * Env: `CUBE_DUAL_AUTH_METRICS_PORT`. @default none: no listener
   */
  metricsPort?: number;
  /** The address the metrics listener binds. Env: `CUBE_DUAL_AUTH_METRICS_HOST`. @default '127.0.0.1' */
  metricsHost?: string;
  /**
   * Records metrics without serving them: into the package's `metrics`, and a registered OpenTelemetry meter
   * provider. Env: `CUBE_DUAL_AUTH_METRICS` (`true` or `false`). @default false; on whenever `metricsPort` is set
   */
  metrics?: boolean;
  /**
   * Receives an event per accepted or refused request and per JWKS refresh. Env: `CUBE_DUAL_AUTH_LOG` (`rejected` or
   * `all`) logs them as JSON lines to stderr. @default silent
   */
  onEvent?: AuthEventListener;
}

export type { IdentityProviderOptions };

type OptionKey = keyof DualAuthOptions;

/** How an environment variable's text is read: one value, a comma-separated list, or a number. */
export type EnvFormat = 'text' | 'list' | 'ids' | 'number' | 'duration' | 'boolean' | 'json' | 'secrets' | 'log';

/** One row of the options table. */
export interface OptionSpec<V> {
  /** Environment variables the ready-made `checkAuth` reads it from, the main one first. */
  readonly env: readonly string[];
  readonly format?: EnvFormat;
  /** The value when the option is not given; undefined when there is none. */
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

/** A claim as configured, once {@link claimPointer} has found it to be a claim name or a JSON Pointer. */
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
type Checked<K extends OptionKey> = ReturnType<Specs[K]['check']>;
type Defaulted = { [K in OptionKey]: Specs[K] extends { default: unknown } ? K : never }[OptionKey];

/** The defaults, from the table. */
export const DEFAULTS = Object.fromEntries(
  Object.entries(OPTIONS).flatMap(([key, spec]) => ('default' in spec ? [[key, spec.default]] : [])),
) as { readonly [K in Defaulted]: Specs[K] extends { default: infer D } ? D : never };

/** How each option is named in messages: by its environment variable when it came from one. */
export type OptionNames = Readonly<Record<OptionKey, string>>;

const KEYS = Object.keys(OPTIONS) as OptionKey[];

/** Names for options passed to `createCheckAuth`: `option "jwksUri"`. */
export const OPTION_NAMES: OptionNames = Object.fromEntries(KEYS.map((key) => [key, `option "${key}"`])) as Record<
  OptionKey,
  string
>;

/** Names for options read from the environment: the main variable (`CUBEJS_JWK_URL`). */
export const ENV_NAMES: OptionNames = Object.fromEntries(
  KEYS.map((key) => [key, OPTIONS[key].env[0] ?? OPTION_NAMES[key]]),
) as Record<OptionKey, string>;

/** Options after validation, with defaults applied and secrets turned into keys once. */
export type ResolvedOptions = {
  readonly [K in Exclude<OptionKey, 'apiSecret' | 'sqlKeySecrets'>]: K extends Defaulted
    ? Checked<K>
    : Checked<K> | undefined;
} & {
  readonly secretKeys: readonly KeyObject[];
  /** The SQL key secrets as keys, the signing one first; empty when SQL keys are off. */
  readonly sqlKeyKeys: readonly KeyObject[];
  /** The identity providers of the key-set path, with inherited settings applied; empty when it has none. */
  readonly identityProviders: readonly IdentityProvider[];
  /**
   * Why an API secret is too weak for HS256 (never the secret itself), for one warning at start; set only when
   * `allowWeakSecret` let it through (without it, a weak secret is a configuration error).
   */
  readonly secretWeakness: string | undefined;
  /** How messages name each option (environment variables when the options came from the environment). */
  readonly names: OptionNames;
  /** The tenant and groups to give the security context; undefined when no authorization option is set. */
  readonly authorization: Authorization | undefined;
};

/**
 * Cube's own fallback on the REST API: in dev mode a token `checkAuth` refused is verified once more, HS256, with this
 * secret (docs/troubleshooting.md, "Cube's Playground is refused in dev mode"), so a SQL key signed with it would pass there.
 */
const PLAYGROUND_SECRET = 'CUBEJS_PLAYGROUND_AUTH_SECRET';

/**
 * The SQL key secrets as keys, each judged as an API secret is but with no opt-out: a key is a stored password that
 * lives for weeks. One equal to an API secret would let a SQL key pass the shared-secret path, so that stops the start
 * too (docs/security.md, "SQL keys"). Messages number a secret, never show it.
 */
function sqlKeySecretKeys(
  secrets: readonly string[],
  apiSecrets: readonly string[],
  names: OptionNames,
): readonly KeyObject[] {
  // Cube reads its own variable from the process's environment, whatever options the hook was given.
  const playground = process.env[PLAYGROUND_SECRET]?.trim();
  secrets.forEach((secret, i) => {
    const which = secrets.length > 1 ? `(secret ${i + 1} of ${secrets.length}) ` : '';
    const weakness = secretWeakness(secret);
    if (weakness !== undefined)
      throw new DualAuthConfigError(
        names.sqlKeySecrets,
        `${which}${weakness}: a SQL key is a password that lasts for weeks, so use at least ` +
          `${MIN_SECRET_BYTES} random bytes (openssl rand -hex 32)`,
      );
    if (apiSecrets.includes(secret))
      throw new DualAuthConfigError(
        names.sqlKeySecrets,
        `${which}is also an API secret (${names.apiSecret}): a SQL key would then pass as a service ` +
          `token; give SQL keys a secret of their own`,
      );
    if (secret === playground)
      throw new DualAuthConfigError(
        names.sqlKeySecrets,
        `${which}is also ${PLAYGROUND_SECRET}, with which Cube itself accepts HS256 tokens that ` +
          `checkAuth refused: give SQL keys a secret of their own`,
      );
  });
  return secrets.map((secret) => createSecretKey(Buffer.from(secret, 'utf8')));
}

/** Validates options, applies defaults and prepares keys. Throws {@link DualAuthConfigError} naming the option. */
export function resolveOptions(options: DualAuthOptions, given: Partial<OptionNames> = OPTION_NAMES): ResolvedOptions {
  const names: OptionNames = { ...OPTION_NAMES, ...given };
  if (typeof options !== 'object' || options === null) throw new DualAuthConfigError('options', 'must be an object');
  const unknown = Object.keys(options).find((key) => !Object.hasOwn(OPTIONS, key));
  if (unknown !== undefined)
    throw new DualAuthConfigError(`option "${unknown}"`, 'is not an option of createCheckAuth');
  const checked: { [K in OptionKey]?: Checked<K> } = {};
  for (const key of KEYS) {
    const spec: OptionSpec<unknown> = OPTIONS[key];
    const value = options[key] ?? spec.default;
    const fail: Fail = (problem) => {
      throw new DualAuthConfigError(names[key], problem);
    };
    // Each row's check gives that option's type; TypeScript cannot follow the key through the loop.
    (checked as Record<OptionKey, unknown>)[key] = value === undefined ? undefined : spec.check(value, fail);
  }
  for (const other of ['jwksUri', 'issuer'] as const) {
    if (checked.providers !== undefined && checked[other] !== undefined) {
      throw new DualAuthConfigError(
        names.providers,
        `and ${names[other]} are both set: with several identity providers, each names its own issuer and JWKS URL`,
      );
    }
  }
  const { apiSecret, sqlKeySecrets, ...rest } = checked;
  const identityProviders = identityProvidersOf(rest as ProviderSettings, names);
  const authorization = authorizationOf(
    options as Readonly<Record<string, unknown>>,
    rest as AuthorizationSettings,
    names,
  );
  const secrets = apiSecret ?? [];
  if (secrets.length === 0 && identityProviders.length === 0) {
    throw new DualAuthConfigError(
      names.apiSecret,
      `and ${names.jwksUri} are both unset (and no ${names.providers}, nor an issuer URL in ${names.issuer} to ` +
        `discover the JWKS from): set at least one, or no token can be accepted`,
    );
  }
  const secretKeys = secrets.map((secret) => createSecretKey(Buffer.from(secret, 'utf8')));
  const weak = secrets.map(secretWeakness).findIndex((weakness) => weakness !== undefined);
  let secretWeaknessFound: string | undefined;
  if (weak >= 0) {
    const weakness = secretWeakness(secrets[weak] as string) as string;
    const which = secrets.length > 1 ? `secret ${weak + 1} of ${secrets.length}` : undefined;
    // Anyone can choose the shared-secret path: a guessable secret lets anyone mint tokens, so it stops the start.
    if (rest.allowWeakSecret !== true) {
      throw new DualAuthConfigError(
        names.apiSecret,
        `${which ? `(${which}) ` : ''}${weakness}: ${SECRET_ADVICE}; to run with it anyway, set ` +
          `${names.allowWeakSecret} to true`,
      );
    }
    secretWeaknessFound = `${which ? `${which} of ` : ''}${names.apiSecret} ${weakness}`;
  }
  const sqlKeyKeys = sqlKeySecretKeys(sqlKeySecrets ?? [], secrets, names);
  // Every defaulted option was filled from the table above, which the type of ResolvedOptions promises.
  return {
    ...rest,
    names,
    identityProviders,
    authorization,
    secretKeys,
    sqlKeyKeys,
    secretWeakness: secretWeaknessFound,
  } as ResolvedOptions;
}
