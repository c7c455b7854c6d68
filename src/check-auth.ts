import { performance } from 'node:perf_hooks';
import { keyStoreOptions, resolveOptions, type DualAuthOptions, type OptionNames, type ResolvedOptions } from './config';
import { refusedFrom } from './claims';
import { ENV_NAMES, optionsFromEnv } from './env';
import { DualAuthError, toThrowable, type AuthPath } from './errors';
import { emit } from './events';
import { KeyStore } from './keys';
import { KeySetPath } from './paths/key-set';
import { SharedSecretPath } from './paths/shared-secret';
import { extractToken, isServiceOrigin, readHeader } from './request';
import { decodeToken, type TokenHeader } from './token';
import { TokenCache } from './token-cache';

/** A security context: the object Cube hands to `queryRewrite`, the data model and `contextToAppId`. */
export type SecurityContext = Record<string, unknown>;

/** How a token fared, step by step: what `explain` returns and the CLI prints. */
export interface Verdict {
  readonly accepted: boolean;
  /** The path chosen, absent when there was no token. */
  readonly path?: AuthPath;
  /** Why that path: what the `Request-Origin` header said. */
  readonly pathReason: string;
  readonly header?: TokenHeader;
  /** The decoded payload (shown even when the token was refused after decoding). */
  readonly payload?: Record<string, unknown>;
  /** What Cube would receive, when accepted. */
  readonly securityContext?: SecurityContext;
  /** The `kid` used on the key-set path. */
  readonly kid?: string;
  /** The JWKS URL keys come from on the key-set path. */
  readonly jwksUri?: string;
  /** Why the token was refused. */
  readonly error?: { readonly code: DualAuthError['code']; readonly message: string };
}

/** The function Cube calls, with the key store's controls attached. */
export interface CheckAuth {
  /**
   * Verifies the request's token. Resolves to the security context and sets `req.securityContext`; rejects with
   * a 403 error (the host Cube's `CubejsHandlerError` inside Cube, {@link DualAuthError} elsewhere).
   * @param req what Cube passes: an Express request, a Node request, or `{ isSubscription, protocol: 'ws' }`
   * @param auth the token or `Authorization` value Cube passes; when absent it is read from the request headers
   */
  (req: unknown, auth?: unknown): Promise<SecurityContext>;
  /** Loads the JWKS now, so the first user does not wait for it. Resolves at once when no JWKS URL is set. */
  prefetch(): Promise<void>;
  /** Releases timers and aborts a JWKS fetch in flight (for tests and shutdown). */
  close(): void;
  /** Runs the same verification without side effects and reports every step; never rejects. */
  explain(req: unknown, auth?: unknown): Promise<Verdict>;
}

interface Trace {
  path?: AuthPath;
  cached?: boolean;
  header?: TokenHeader;
  payload?: Record<string, unknown>;
  kid?: string;
}

const nowSeconds = (): number => Date.now() / 1000;

function isPlainObject(value: unknown): value is SecurityContext {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function pathReason(req: unknown, origin: string): string {
  if (isServiceOrigin(req, origin)) return `Request-Origin is "${origin}": the shared-secret path (service tokens)`;
  if (readHeader(req, 'request-origin') === undefined) return 'no Request-Origin header: the key-set path (identity provider tokens)';
  return `Request-Origin is not "${origin}": the key-set path (identity provider tokens)`;
}

class Authenticator {
  private readonly sharedSecret: SharedSecretPath;
  private readonly keySet: KeySetPath;
  readonly keyStore: KeyStore | undefined;
  private readonly cache: TokenCache | undefined;

  constructor(readonly options: ResolvedOptions) {
    this.cache = options.tokenCacheSize > 0 ? new TokenCache(options.tokenCacheSize, options.tokenCacheMaxAgeMs) : undefined;
    const { jwksUri } = options;
    this.keyStore = jwksUri === undefined
      ? undefined
      : new KeyStore(keyStoreOptions({ ...options, jwksUri }, (event) => {
        if (event.type === 'jwks-refreshed') this.cache?.forgetKeysOtherThan(event.kids);
        emit(options.onEvent, event);
      }));
    this.sharedSecret = new SharedSecretPath(options);
    this.keySet = new KeySetPath(options, this.keyStore);
  }

  /**
   * Verifies the request. Answers synchronously when nothing has to be fetched or awaited (the common case), so
   * the hot path creates no promise of its own. `useCache` is off for `explain`, which must show a real verification.
   */
  authenticate(req: unknown, auth: unknown, trace: Trace, useCache: boolean): SecurityContext | Promise<SecurityContext> {
    const token = extractToken(req, auth);
    if (token === undefined) throw new DualAuthError('ERR_TOKEN_MISSING', 'Authentication required');
    const path = (trace.path = isServiceOrigin(req, this.options.origin) ? 'shared-secret' : 'key-set');
    const cache = useCache ? this.cache : undefined;
    const hit = cache?.get(token, path, Date.now());
    if (hit) {
      trace.cached = true;
      trace.kid = hit.kid;
      return hit.context;
    }
    const decoded = decodeToken(token, path);
    trace.header = decoded.header;
    trace.payload = decoded.payload;
    if (path === 'shared-secret') {
      this.sharedSecret.verify(decoded, nowSeconds);
      return this.finish(token, decoded.payload, trace, cache);
    }
    const kid = (trace.kid = this.keySet.kidOf(decoded));
    const verified = this.keySet.verify(decoded, kid, nowSeconds);
    if (verified instanceof Promise) return verified.then(() => this.finish(token, decoded.payload, trace, cache));
    return this.finish(token, decoded.payload, trace, cache);
  }

  /** Shapes the security context of a verified token and remembers it. */
  private finish(token: string, payload: Record<string, unknown>, trace: Trace, cache: TokenCache | undefined): SecurityContext | Promise<SecurityContext> {
    const context = this.shape(payload, trace.path as AuthPath);
    if (!cache) return context;
    if (context instanceof Promise) return context.then((shaped) => this.remember(cache, token, payload, trace, shaped));
    return this.remember(cache, token, payload, trace, context);
  }

  private remember(cache: TokenCache, token: string, payload: Record<string, unknown>, trace: Trace, context: SecurityContext): SecurityContext {
    const until = refusedFrom(payload, this.options.clockTolerance, this.options.maxTokenAge);
    cache.set(token, trace.path as AuthPath, context, trace.kid, until, Date.now());
    return context;
  }

  private shape(payload: Record<string, unknown>, path: AuthPath): SecurityContext | Promise<SecurityContext> {
    const { claimsNamespace, securityContext } = this.options;
    let context: unknown = payload;
    if (path === 'key-set' && claimsNamespace !== undefined) {
      context = payload[claimsNamespace];
      if (!isPlainObject(context)) {
        throw new DualAuthError(
          'ERR_SECURITY_CONTEXT_INVALID',
          `Claim "${claimsNamespace}" (CUBEJS_JWT_CLAIMS_NAMESPACE) is missing from the token or is not an object`,
          path,
        );
      }
    }
    if (securityContext === undefined) return context as SecurityContext;
    return this.mapped(context as SecurityContext, payload, path);
  }

  private async mapped(context: SecurityContext, payload: Record<string, unknown>, path: AuthPath): Promise<SecurityContext> {
    let result: unknown;
    try {
      result = await (this.options.securityContext as NonNullable<ResolvedOptions['securityContext']>)(context, { path, payload });
    } catch (error) {
      if (error instanceof DualAuthError) throw error;
      emit(this.options.onEvent, { type: 'internal-error', message: `securityContext function failed: ${messageOf(error)}` });
      throw new DualAuthError('ERR_SECURITY_CONTEXT_INVALID', 'The securityContext function refused the token', path);
    }
    if (!isPlainObject(result)) {
      throw new DualAuthError('ERR_SECURITY_CONTEXT_INVALID', 'The securityContext function did not return an object', path);
    }
    return result;
  }
}

const JWT_LIKE = /eyJ[\w-]*(\.[\w-]*){0,2}/g;
const MAX_LOGGED = 300;

/** An unexpected error's message for the log: anything shaped like a token masked, length capped. */
function messageOf(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return text.replace(JWT_LIKE, '[token]').slice(0, MAX_LOGGED);
}

/** Any failure as a rejection: unexpected errors become a 403 too (and are reported), never a 500. */
function asRejection(error: unknown, trace: Trace, onEvent: ResolvedOptions['onEvent']): DualAuthError {
  if (error instanceof DualAuthError) return error;
  const message = `unexpected error: ${messageOf(error)}`;
  emit(onEvent, { type: 'internal-error', message });
  console.error(`cube-dual-auth: ${message}`);
  return new DualAuthError('ERR_INTERNAL', 'Authentication failed because of an internal error; see the Cube server log', trace.path);
}

function assignContext(req: unknown, context: SecurityContext): void {
  if (typeof req === 'object' && req !== null) Reflect.set(req, 'securityContext', context);
}

function build(options: ResolvedOptions): CheckAuth {
  const authenticator = new Authenticator(options);
  const { onEvent } = options;

  function accepted(req: unknown, context: SecurityContext, trace: Trace, started: number): SecurityContext {
    assignContext(req, context);
    if (onEvent) {
      const { path, kid, cached } = trace;
      emit(onEvent, { type: 'accepted', path: path as AuthPath, kid, cached: cached === true, durationMs: performance.now() - started });
    }
    return context;
  }

  function rejected(error: unknown, trace: Trace, started: number): Error {
    const rejection = asRejection(error, trace, onEvent);
    if (onEvent) {
      const { code, message, path } = rejection;
      emit(onEvent, { type: 'rejected', path, code, message, kid: trace.kid, durationMs: performance.now() - started });
    }
    return toThrowable(rejection);
  }

  function checkAuth(req: unknown, auth?: unknown): Promise<SecurityContext> {
    const started = onEvent ? performance.now() : 0;
    const trace: Trace = {};
    let outcome: SecurityContext | Promise<SecurityContext>;
    try {
      outcome = authenticator.authenticate(req, auth, trace, true);
    } catch (error) {
      return Promise.reject(rejected(error, trace, started));
    }
    if (!(outcome instanceof Promise)) return Promise.resolve(accepted(req, outcome, trace, started));
    return outcome.then(
      (context) => accepted(req, context, trace, started),
      (error: unknown) => Promise.reject(rejected(error, trace, started)),
    );
  }

  async function explain(req: unknown, auth?: unknown): Promise<Verdict> {
    const trace: Trace = {};
    const base = { pathReason: pathReason(req, options.origin), jwksUri: options.jwksUri };
    try {
      const securityContext = await authenticator.authenticate(req, auth, trace, false);
      return { ...base, ...trace, accepted: true, securityContext };
    } catch (error) {
      const { code, message } = asRejection(error, trace, onEvent);
      return { ...base, ...trace, accepted: false, error: { code, message } };
    }
  }

  return Object.assign(checkAuth, {
    prefetch: async () => authenticator.keyStore?.prefetch(),
    close: () => authenticator.keyStore?.close(),
    explain,
  });
}

/**
 * Creates a `checkAuth` for Cube from explicit options. Validates them at once and throws
 * `DualAuthConfigError` naming the option when something cannot work.
 */
export function createCheckAuth(options: DualAuthOptions): CheckAuth {
  return build(resolveOptions(options));
}

/** Internal: the same, naming options by the environment variables they came from. */
export function createCheckAuthWithNames(options: DualAuthOptions, names: OptionNames): CheckAuth {
  return build(resolveOptions(options, names));
}

let fromEnv: CheckAuth | undefined;
let fromEnvError: DualAuthError | undefined;

/** The environment-configured instance, made on first use. A configuration error refuses requests with a 403. */
function environmentInstance(): CheckAuth {
  if (fromEnv) return fromEnv;
  if (!fromEnvError) {
    try {
      fromEnv = createCheckAuthWithNames(optionsFromEnv(process.env), ENV_NAMES);
      return fromEnv;
    } catch (error) {
      const message = messageOf(error);
      console.error(message);
      fromEnvError = new DualAuthError('ERR_CONFIG_INVALID', `Authentication is misconfigured on this deployment: ${message}`);
    }
  }
  throw toThrowable(fromEnvError);
}

/**
 * The ready-made hook for `cube.js`, configured from the environment on first use:
 * `module.exports = { checkAuth: require('cube-dual-auth').checkAuth }`.
 */
export const checkAuth: CheckAuth = Object.assign(
  async function checkAuth(req: unknown, auth?: unknown): Promise<SecurityContext> {
    return environmentInstance()(req, auth);
  },
  {
    prefetch: async () => environmentInstance().prefetch(),
    close: () => {
      fromEnv?.close();
      fromEnv = undefined;
      fromEnvError = undefined;
    },
    explain: async (req: unknown, auth?: unknown) => environmentInstance().explain(req, auth),
  },
);
