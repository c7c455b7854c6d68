/**
 * The public options of the hook. Each field's variable, default and meaning are in docs/reference.md#environment;
 * the options table (option-table.ts) holds the same rows as code.
 */
import type { KeySetAlgorithm } from '../algorithms';
import type { AuthPath } from '../errors';
import type { ClaimFormat } from './claim-format';
import type { AuthEventListener } from '../events';
import type { IdentityProviderOptions } from './identity-providers';

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

/** Options of {@link createCheckAuth}, read by the ready-made `checkAuth` from variables (docs/reference.md#options) */
export interface DualAuthOptions {
  /** Secret(s) of the shared-secret path (HS256); a list accepts any. Env: `CUBEJS_API_SECRET`. @default none */
  apiSecret?: string | readonly string[];
  /** Starts with a weak API secret, for tests only. Env: `CUBE_DUAL_AUTH_ALLOW_WEAK_SECRET`. @default false */
  allowWeakSecret?: boolean;
  /** JWKS URL of the identity provider. Env: `CUBEJS_JWK_URL`. @default discovered from one `issuer` URL */
  jwksUri?: string;
  /** Identity providers chosen by the token's `iss`. Env: `CUBE_DUAL_AUTH_PROVIDERS`. @default none */
  providers?: readonly IdentityProviderOptions[];
  /** `Request-Origin` of the shared-secret path (any case). Env: `CUBE_DUAL_AUTH_ORIGIN`. @default 'embeddable' */
  origin?: string;
  /**
   * Verifies the package's own standing service token (by its `jti`'s form) on the shared-secret path without
   * `Request-Origin` (docs/embeddable.md). Env: `CUBE_DUAL_AUTH_STANDING_TOKEN_WITHOUT_ORIGIN`. @default false
   */
  standingTokenWithoutOrigin?: boolean;
  /** Key-set path algorithms, asymmetric only. Env: `CUBEJS_JWT_ALGS`. @default ['RS256'] */
  algorithms?: readonly KeySetAlgorithm[];
  /** Required `aud` on the key-set path (any one). Env: `CUBEJS_JWT_AUDIENCE`. @default not checked */
  audience?: string | readonly string[];
  /** Required `iss` on the key-set path (any one). Env: `CUBEJS_JWT_ISSUER`. @default not checked */
  issuer?: string | readonly string[];
  /** Required `sub` on the key-set path. Env: `CUBEJS_JWT_SUBJECT`. @default not checked */
  subject?: string;
  /** Key-set path: the payload's claim that is the context. Env: `CUBEJS_JWT_CLAIMS_NAMESPACE`. @default all of it */
  claimsNamespace?: string;
  /** Seconds of clock skew for `exp`, `nbf` and `iat`. Env: `CUBE_DUAL_AUTH_CLOCK_TOLERANCE`. @default 5 */
  clockTolerance?: number;
  /** Oldest token accepted, seconds since `iat`. Env: `CUBE_DUAL_AUTH_MAX_TOKEN_AGE`. @default not checked */
  maxTokenAge?: number;
  /** Shapes the security context per path ({@link SecurityContextMapper}). @default the verified payload as it is */
  securityContext?: SecurityContextMapper;
  /** Longest wait for `securityContext`, ms. Env: `CUBE_DUAL_AUTH_SECURITY_CONTEXT_TIMEOUT_MS`. @default 5000 */
  securityContextTimeoutMs?: number;
  /** Claims the context must own, both paths. Env: `CUBE_DUAL_AUTH_REQUIRED_CLAIMS`. @default none required */
  requiredClaims?: readonly string[];
  /** Claim or JSON Pointer of the tenant. Env: `CUBE_DUAL_AUTH_TENANT_CLAIM`. @default none: no tenant */
  tenantClaim?: string;
  /** Where a service token carries the tenant. Env: `CUBE_DUAL_AUTH_SERVICE_TENANT_CLAIM`. @default `tenantClaim` */
  serviceTenantClaim?: string;
  /** Claim or JSON Pointer of a key-set token's groups. Env: `CUBE_DUAL_AUTH_GROUPS_CLAIM`. @default 'groups' */
  groupsClaim?: string;
  /** Claim or JSON Pointer of a service token's groups. Env: `CUBE_DUAL_AUTH_SERVICE_GROUPS_CLAIM`. @default 'roles' */
  serviceGroupsClaim?: string;
  /** Groups of a token naming none, both paths. Env: `CUBE_DUAL_AUTH_DEFAULT_GROUPS`. @default none */
  defaultGroups?: string | readonly string[];
  /** Groups every service token gets and none may claim. Env: `CUBE_DUAL_AUTH_SERVICE_GROUPS`. @default none */
  serviceGroups?: string | readonly string[];
  /** How tokens write the tenant claim, both paths. Env: `CUBE_DUAL_AUTH_TENANT_CLAIM_FORMAT`. @default 'array' */
  tenantClaimFormat?: ClaimFormat;
  /** How tokens write the groups claim, both paths. Env: `CUBE_DUAL_AUTH_GROUPS_CLAIM_FORMAT`. @default 'array' */
  groupsClaimFormat?: ClaimFormat;
  /** SQL login: the claim equal to the user name (`*`: any). Env: `CUBE_DUAL_AUTH_SQL_USER_CLAIM`. @default 'sub' */
  sqlUserClaim?: string;
  /** User of Cube's static SQL API login. Env: `CUBEJS_SQL_USER`. @default none: no static login */
  sqlUser?: string;
  /** Password of the static SQL API login. Env: `CUBEJS_SQL_PASSWORD`. @default none: no static login */
  sqlPassword?: string;
  /** The SQL user that may switch to another. Env: `CUBEJS_SQL_SUPER_USER`. @default none: no switching */
  sqlSuperUser?: string;
  /** Secrets of SQL keys: the first signs, all verify. Env: `CUBE_DUAL_AUTH_SQL_KEY_SECRETS`. @default none */
  sqlKeySecrets?: string | readonly string[];
  /** Longest life of a SQL key, in seconds. Env: `CUBE_DUAL_AUTH_SQL_KEY_MAX_AGE`. @default 7776000 (90 days) */
  sqlKeyMaxAge?: number;
  /** SQL keys refused (ids, `user … before …`). Env: `CUBE_DUAL_AUTH_SQL_KEYS_REVOKED`. @default none */
  sqlKeysRevoked?: readonly string[];
  /** A directory mounted as a Kubernetes Secret (docs/rotation.md). Env: `CUBE_DUAL_AUTH_SECRETS_DIR`. @default none */
  secretsDir?: string;
  /** How often `secretsDir` is read again, in ms. Env: `CUBE_DUAL_AUTH_SECRETS_POLL_MS`. @default 10000 */
  secretsPollMs?: number;
  /** Live SQL logins one user name keeps. Env: `CUBE_DUAL_AUTH_SQL_LIVE_LOGINS_PER_USER`. @default 20 */
  sqlLiveLoginsPerUser?: number;
  /**
   * Claims set per token, never compared between two SQL logins of a user. Env: `CUBE_DUAL_AUTH_SQL_PER_TOKEN_CLAIMS`.
   * @default ['uti','aio','rh','sid','session_state','nonce','at_hash','c_hash']
   */
  sqlPerTokenClaims?: readonly string[];
  /** Sends callers a refusal's whole message. Env: `CUBE_DUAL_AUTH_DETAILED_ERRORS`. @default false */
  detailedErrors?: boolean;
  /** Least ms between two JWKS fetches of a miss or failure. Env: `CUBE_DUAL_AUTH_JWKS_COOLDOWN_MS`. @default 30000 */
  jwksCooldownMs?: number;
  /** Age in ms after which the key set is fetched again. Env: `CUBE_DUAL_AUTH_JWKS_MAX_AGE_MS`. @default 600000 */
  jwksMaxAgeMs?: number;
  /** Ms the last good key set serves past its age. Env: `CUBE_DUAL_AUTH_JWKS_STALE_IF_ERROR_MS`. @default 86400000 */
  jwksStaleIfErrorMs?: number;
  /** Deadline of one JWKS fetch, in ms. Env: `CUBE_DUAL_AUTH_JWKS_TIMEOUT_MS`. @default 5000 */
  jwksTimeoutMs?: number;
  /** Largest JWKS answer accepted, in bytes. Env: `CUBE_DUAL_AUTH_JWKS_MAX_RESPONSE_BYTES`. @default 524288 */
  jwksMaxResponseBytes?: number;
  /** Verified tokens remembered; 0 turns the cache off. Env: `CUBE_DUAL_AUTH_TOKEN_CACHE_SIZE`. @default 10000 */
  tokenCacheSize?: number;
  /** Longest a token answers from the cache, ms. Env: `CUBE_DUAL_AUTH_TOKEN_CACHE_MAX_AGE_MS`. @default 60000 */
  tokenCacheMaxAgeMs?: number;
  /** Port of the `GET /metrics` listener; turns metrics on. Env: `CUBE_DUAL_AUTH_METRICS_PORT`. @default none */
  metricsPort?: number;
  /** The address the metrics listener binds. Env: `CUBE_DUAL_AUTH_METRICS_HOST`. @default '127.0.0.1' */
  metricsHost?: string;
  /** Records metrics without serving them. Env: `CUBE_DUAL_AUTH_METRICS`. @default false */
  metrics?: boolean;
  /** Receives an event per request and JWKS refresh. Env: `CUBE_DUAL_AUTH_LOG` logs them. @default silent */
  onEvent?: AuthEventListener;
}

export type { IdentityProviderOptions };

/** The name of an option. */
export type OptionKey = keyof DualAuthOptions;
