import { createSecretKey, type KeyObject } from 'node:crypto';
import type { AuthPath } from './errors';
import type { AuthEventListener } from './events';
import type { KeyStoreOptions } from './keys';

/** Algorithms the key-set path can be configured with: asymmetric only, never HS* or `none`. */
export const KEY_SET_ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA'] as const;
export type KeySetAlgorithm = (typeof KEY_SET_ALGORITHMS)[number];

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
   * The deployment's API secret for the shared-secret path (HS256). A list accepts a token signed with any
   * of them, for rotation. At least 32 bytes of randomness: anyone can choose this path.
   * Env: `CUBEJS_API_SECRET`, plus `CUBE_DUAL_AUTH_ADDITIONAL_API_SECRETS` (comma-separated).
   * @default none: the shared-secret path refuses every token, naming the missing setting
   */
  apiSecret?: string | readonly string[];
  /**
   * JWKS URL of the identity provider, for the key-set path. Never taken from a token.
   * Env: `CUBEJS_JWK_URL`.
   * @default none: the key-set path refuses every token, naming the missing setting
   */
  jwksUri?: string;
  /**
   * Value of the `Request-Origin` header that sends a request to the shared-secret path (compared ignoring case).
   * Env: `CUBE_DUAL_AUTH_ORIGIN`.
   * @default 'embeddable'
   */
  origin?: string;
  /**
   * Algorithms accepted on the key-set path: asymmetric only. Env: `CUBEJS_JWT_ALGS` (comma-separated).
   * @default ['RS256']
   */
  algorithms?: readonly KeySetAlgorithm[];
  /** Required `aud` on the key-set path (any one of them). Env: `CUBEJS_JWT_AUDIENCE` (comma-separated). @default not checked */
  audience?: string | readonly string[];
  /** Required `iss` on the key-set path (any one of them). Env: `CUBEJS_JWT_ISSUER` (comma-separated). @default not checked */
  issuer?: string | readonly string[];
  /** Required `sub` on the key-set path. Env: `CUBEJS_JWT_SUBJECT`. @default not checked */
  subject?: string;
  /**
   * Key-set path: the security context is the payload's claim of this name (an object), as with Cube's own
   * setting of the same variable. Env: `CUBEJS_JWT_CLAIMS_NAMESPACE`.
   * @default the whole payload
   */
  claimsNamespace?: string;
  /** Seconds of clock skew allowed for `exp`, `nbf` and `iat`. Env: `CUBE_DUAL_AUTH_CLOCK_TOLERANCE`. @default 5 */
  clockTolerance?: number;
  /**
   * Oldest accepted token, in seconds since its `iat` (which becomes required), on both paths.
   * Env: `CUBE_DUAL_AUTH_MAX_TOKEN_AGE`.
   * @default not checked
   */
  maxTokenAge?: number;
  /** Shapes the security context per path (see {@link SecurityContextMapper}). @default the verified payload as it is */
  securityContext?: SecurityContextMapper;
  /**
   * Least time between two JWKS fetches caused by an unknown `kid` or a failure, in ms.
   * Env: `CUBE_DUAL_AUTH_JWKS_COOLDOWN_MS`. @default 30000
   */
  jwksCooldownMs?: number;
  /** Age after which the key set is fetched again, in ms. Env: `CUBE_DUAL_AUTH_JWKS_MAX_AGE_MS`. @default 600000 */
  jwksMaxAgeMs?: number;
  /**
   * How long past `jwksMaxAgeMs` the last good key set keeps serving while the JWKS URL fails, in ms
   * (as `stale-if-error` in RFC 5861).
   * Env: `CUBE_DUAL_AUTH_JWKS_STALE_IF_ERROR_MS`. @default 86400000
   */
  jwksStaleIfErrorMs?: number;
  /** Deadline of one JWKS fetch, in ms. Env: `CUBE_DUAL_AUTH_JWKS_TIMEOUT_MS`. @default 5000 */
  jwksTimeoutMs?: number;
  /** Largest JWKS answer accepted, in bytes. Env: `CUBE_DUAL_AUTH_JWKS_MAX_RESPONSE_BYTES`. @default 524288 */
  jwksMaxResponseBytes?: number;
  /**
   * Most verified tokens remembered, so a token used again skips signature verification; 0 turns the cache off.
   * About 0.5 KB per entry for a service token, up to ~1.5 KB for an RS256 token. Env: `CUBE_DUAL_AUTH_TOKEN_CACHE_SIZE`.
   * @default 10000
   */
  tokenCacheSize?: number;
  /**
   * Longest a remembered token answers from the cache, in ms; `exp` always ends it sooner.
   * Env: `CUBE_DUAL_AUTH_TOKEN_CACHE_MAX_AGE_MS`.
   * @default 60000
   */
  tokenCacheMaxAgeMs?: number;
  /**
   * Receives an event per accepted or refused request and per JWKS refresh, for logs and metrics.
   * Env: `CUBE_DUAL_AUTH_LOG=rejected|all` logs them as JSON lines to stderr.
   * @default silent
   */
  onEvent?: AuthEventListener;
}

/** Options after validation, with defaults applied and secrets turned into keys once. */
export interface ResolvedOptions {
  readonly secretKeys: readonly KeyObject[];
  readonly jwksUri: string | undefined;
  readonly origin: string;
  readonly algorithms: readonly KeySetAlgorithm[];
  readonly audience: readonly string[] | undefined;
  readonly issuer: readonly string[] | undefined;
  readonly subject: string | undefined;
  readonly claimsNamespace: string | undefined;
  readonly clockTolerance: number;
  readonly maxTokenAge: number | undefined;
  readonly securityContext: SecurityContextMapper | undefined;
  readonly jwksCooldownMs: number;
  readonly jwksMaxAgeMs: number;
  readonly jwksStaleIfErrorMs: number;
  readonly jwksTimeoutMs: number;
  readonly jwksMaxResponseBytes: number;
  readonly tokenCacheSize: number;
  readonly tokenCacheMaxAgeMs: number;
  readonly onEvent: AuthEventListener | undefined;
}

export const DEFAULTS = {
  origin: 'embeddable',
  algorithms: ['RS256'] as readonly KeySetAlgorithm[],
  clockTolerance: 5,
  jwksCooldownMs: 30_000,
  jwksMaxAgeMs: 600_000,
  jwksStaleIfErrorMs: 86_400_000,
  jwksTimeoutMs: 5_000,
  jwksMaxResponseBytes: 524_288,
  tokenCacheSize: 10_000,
  tokenCacheMaxAgeMs: 60_000,
} as const;

/** A setting that cannot work. Thrown by `createCheckAuth` at once; `option` names the option or variable. */
export class DualAuthConfigError extends Error {
  override readonly name = 'DualAuthConfigError';
  readonly code = 'ERR_CONFIG_INVALID';
  constructor(
    readonly option: string,
    problem: string,
  ) {
    super(`cube-dual-auth: ${option} ${problem}`);
  }
}

/** How an option is named in messages: by its environment variable when it came from one. */
export type OptionNames = Partial<Record<keyof DualAuthOptions, string>>;

const KNOWN_OPTIONS = new Set<string>([
  'apiSecret', 'jwksUri', 'origin', 'algorithms', 'audience', 'issuer', 'subject', 'claimsNamespace', 'clockTolerance',
  'maxTokenAge', 'securityContext', 'jwksCooldownMs', 'jwksMaxAgeMs', 'jwksStaleIfErrorMs', 'jwksTimeoutMs',
  'jwksMaxResponseBytes', 'tokenCacheSize', 'tokenCacheMaxAgeMs', 'onEvent',
]);

type NumericOption = 'clockTolerance' | 'maxTokenAge' | `jwks${string}` | `tokenCache${string}`;

class Validator {
  constructor(
    private readonly options: DualAuthOptions,
    private readonly names: OptionNames,
  ) {}

  fail(key: keyof DualAuthOptions, problem: string): never {
    throw new DualAuthConfigError(this.names[key] ?? `option "${key}"`, problem);
  }

  nonEmptyString(key: keyof DualAuthOptions, value: unknown): string {
    if (typeof value !== 'string' || value.trim() === '') this.fail(key, 'must be a non-empty string');
    return value;
  }

  optionalString(key: 'subject' | 'claimsNamespace'): string | undefined {
    const value = this.options[key];
    return value === undefined ? undefined : this.nonEmptyString(key, value);
  }

  stringList(key: 'apiSecret' | 'audience' | 'issuer'): readonly string[] | undefined {
    const value = this.options[key];
    if (value === undefined) return undefined;
    const list = typeof value === 'string' ? [value] : value;
    if (!Array.isArray(list) || list.length === 0) this.fail(key, 'must be a non-empty string or a non-empty list of strings');
    return list.map((item) => this.nonEmptyString(key, item));
  }

  number(key: NumericOption, fallback: number, min: number): number {
    const value = this.options[key as keyof DualAuthOptions] ?? fallback;
    if (typeof value !== 'number' || !Number.isFinite(value) || value < min) {
      this.fail(key as keyof DualAuthOptions, `must be a finite number of at least ${min}`);
    }
    return value;
  }

  func<K extends 'securityContext' | 'onEvent'>(key: K): DualAuthOptions[K] {
    const value = this.options[key];
    if (value !== undefined && typeof value !== 'function') this.fail(key, 'must be a function');
    return value;
  }

  jwksUri(): string | undefined {
    const value = this.options.jwksUri;
    if (value === undefined) return undefined;
    const text = this.nonEmptyString('jwksUri', value);
    let url: URL;
    try {
      url = new URL(text);
    } catch {
      this.fail('jwksUri', 'is not a URL');
    }
    if (url.protocol !== 'https:' && url.protocol !== 'http:') this.fail('jwksUri', 'must be an http(s) URL');
    if (url.username || url.password) this.fail('jwksUri', 'must not carry credentials');
    return url.href;
  }

  algorithms(): readonly KeySetAlgorithm[] {
    const value = this.options.algorithms ?? DEFAULTS.algorithms;
    if (!Array.isArray(value) || value.length === 0) this.fail('algorithms', 'must be a non-empty list');
    for (const alg of value) {
      if (!(KEY_SET_ALGORITHMS as readonly unknown[]).includes(alg)) {
        const why = typeof alg === 'string' && /^(hs|none$)/i.test(alg)
          ? 'is not allowed on the key-set path: symmetric and unsigned tokens belong to the shared-secret path only'
          : `is not supported (use ${KEY_SET_ALGORITHMS.join(', ')})`;
        this.fail('algorithms', `contains ${JSON.stringify(alg)}, which ${why}`);
      }
    }
    return [...new Set(value)];
  }
}

/** Validates options, applies defaults and prepares keys. Throws {@link DualAuthConfigError} naming the option. */
export function resolveOptions(options: DualAuthOptions, names: OptionNames = {}): ResolvedOptions {
  if (typeof options !== 'object' || options === null) {
    throw new DualAuthConfigError('options', 'must be an object');
  }
  const unknown = Object.keys(options).filter((key) => !KNOWN_OPTIONS.has(key));
  if (unknown.length > 0) throw new DualAuthConfigError(`option "${unknown[0]}"`, 'is not an option of createCheckAuth');
  const v = new Validator(options, names);
  const secrets = v.stringList('apiSecret') ?? [];
  const jwksUri = v.jwksUri();
  if (secrets.length === 0 && jwksUri === undefined) {
    v.fail('apiSecret', `and ${names.jwksUri ?? 'option "jwksUri"'} are both unset: set at least one, or no token can be accepted`);
  }
  const maxTokenAge = options.maxTokenAge === undefined ? undefined : v.number('maxTokenAge', 0, 1);
  return {
    secretKeys: secrets.map((secret) => createSecretKey(Buffer.from(secret, 'utf8'))),
    jwksUri,
    origin: (options.origin === undefined ? DEFAULTS.origin : v.nonEmptyString('origin', options.origin)).trim().toLowerCase(),
    algorithms: v.algorithms(),
    audience: v.stringList('audience'),
    issuer: v.stringList('issuer'),
    subject: v.optionalString('subject'),
    claimsNamespace: v.optionalString('claimsNamespace'),
    clockTolerance: v.number('clockTolerance', DEFAULTS.clockTolerance, 0),
    maxTokenAge,
    securityContext: v.func('securityContext'),
    jwksCooldownMs: v.number('jwksCooldownMs', DEFAULTS.jwksCooldownMs, 0),
    jwksMaxAgeMs: v.number('jwksMaxAgeMs', DEFAULTS.jwksMaxAgeMs, 1),
    jwksStaleIfErrorMs: v.number('jwksStaleIfErrorMs', DEFAULTS.jwksStaleIfErrorMs, 0),
    jwksTimeoutMs: v.number('jwksTimeoutMs', DEFAULTS.jwksTimeoutMs, 1),
    jwksMaxResponseBytes: v.number('jwksMaxResponseBytes', DEFAULTS.jwksMaxResponseBytes, 1024),
    tokenCacheSize: Math.floor(v.number('tokenCacheSize', DEFAULTS.tokenCacheSize, 0)),
    tokenCacheMaxAgeMs: v.number('tokenCacheMaxAgeMs', DEFAULTS.tokenCacheMaxAgeMs, 0),
    onEvent: v.func('onEvent'),
  };
}

/** The key store's settings from resolved options: one mapping for the hook and for `doctor`. */
export function keyStoreOptions(options: ResolvedOptions & { jwksUri: string }, onEvent?: AuthEventListener): KeyStoreOptions {
  return {
    jwksUri: options.jwksUri,
    algorithms: options.algorithms,
    cooldownMs: options.jwksCooldownMs,
    maxAgeMs: options.jwksMaxAgeMs,
    staleIfErrorMs: options.jwksStaleIfErrorMs,
    timeoutMs: options.jwksTimeoutMs,
    maxResponseBytes: options.jwksMaxResponseBytes,
    onEvent,
  };
}
