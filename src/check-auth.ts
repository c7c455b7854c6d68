/** The function Cube calls: outcomes of the authenticator turned into Cube's answers, events, and `explain`. */
import { performance } from 'node:perf_hooks';
import { Authenticator, unexpected, type AuthenticateOptions, type Outcome } from './authenticator';
import { OPTION_NAMES, resolveOptions, type DualAuthOptions, type OptionNames } from './config';
import { quotedText, toThrowable, type AuthPath, type DualAuthError } from './errors';
import { emit } from './events';
import type { SecurityContext } from './security-context';
import type { TokenHeader } from './token';

export type { SecurityContext } from './security-context';

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
  /** The identity provider chosen on the key-set path: its issuer (when configured), JWKS URL, and why it was chosen. */
  readonly provider?: {
    readonly issuer?: string;
    /** Where its keys come from now: the configured JWKS URL, or the one discovered from the issuer (absent until discovered). */
    readonly jwksUri?: string;
    readonly reason: string;
  };
  /**
   * The JWKS URL keys come from on the key-set path: the chosen provider's, or with one identity provider its
   * (configured or discovered) URL even when the token was refused before a provider was chosen.
   */
  readonly jwksUri?: string;
  /** Why the token was refused. */
  readonly error?: { readonly code: DualAuthError['code']; readonly message: string };
}

/** The function Cube calls, with the key store's controls attached. */
export interface CheckAuth {
  /**
   * Verifies the request's token and sets the security context on `req.securityContext`, where every Cube line
   * reads it; resolves to `undefined`. Nothing is returned on purpose: Cube ≥ 0.35 takes a returned value's
   * `security_context` field as the security context, so returning the context would make a token carrying a
   * `security_context` claim get that claim on Cube 1.x and the whole context on 0.33. `explain` reports the context.
   * Rejects with a 403 error (the host Cube's `CubejsHandlerError` inside Cube, {@link DualAuthError} elsewhere).
   * @param req what Cube passes: an Express request, a Node request, or `{ isSubscription, protocol: 'ws' }`
   * @param auth the token or `Authorization` value Cube passes; when absent it is read from the request headers
   */
  (req: unknown, auth?: unknown): Promise<void>;
  /**
   * Loads every identity provider's key set now (discovering JWKS URLs as needed), so the first user does not wait
   * for it. Rejects with the first failure after all have settled; resolves at once when the key-set path has no provider.
   */
  prefetch(): Promise<void>;
  /** Releases timers and aborts JWKS fetches in flight (for tests and shutdown). */
  close(): void;
  /** Runs the same verification without side effects and reports every step; never rejects. */
  explain(req: unknown, auth?: unknown): Promise<Verdict>;
}

/** `checkAuth` answers from the cache and fills it; `explain` shows a real verification, so it does neither. */
const CHECK: AuthenticateOptions = { useCache: true };
const EXPLAIN: AuthenticateOptions = { useCache: false };

/** What an accepted request resolves to: nothing (see {@link CheckAuth}); one settled promise serves them all. */
const ACCEPTED: Promise<void> = Promise.resolve();

/** Hands the context to Cube on the request; false when the host object will not take it. */
function attach(req: unknown, context: SecurityContext): boolean {
  if (typeof req !== 'object' || req === null) return true;
  try {
    // Strict mode: a frozen request, a read-only property or a refusing proxy throws instead of ignoring it.
    (req as { securityContext?: SecurityContext }).securityContext = context;
    return true;
  } catch {
    return false;
  }
}

/** A `kid` as events carry it: taken from a token, so printable and capped, as in messages. */
function shownKid(kid: string | undefined): string | undefined {
  return kid === undefined ? undefined : quotedText(kid);
}

/**
 * Cube applies `CUBEJS_JWT_CLAIMS_NAMESPACE` once more when it builds the data model's `SECURITY_CONTEXT`: it looks
 * for that claim in the context it got. The context already is the claim, so it also answers to the claim's name,
 * as a non-enumerable reference to itself: the model sees the same context, and nothing else (JSON, logs,
 * `queryRewrite`'s view of its members) changes. Without it, Cube would give the model an empty context, and a
 * model filter on `SECURITY_CONTEXT` would filter nothing.
 */
function answerToNamespace(claimsNamespace: string | undefined): (context: SecurityContext) => void {
  if (claimsNamespace === undefined) return () => undefined;
  return (context) => {
    if (!Object.hasOwn(context, claimsNamespace)) {
      Object.defineProperty(context, claimsNamespace, { value: context, enumerable: false, writable: true, configurable: true });
    }
  };
}

function build(authenticator: Authenticator): CheckAuth {
  const { onEvent, detailedErrors, claimsNamespace } = authenticator.options;
  const forCubesModel = answerToNamespace(claimsNamespace);

  function refuse(error: DualAuthError, outcome: Pick<Outcome, 'kid' | 'provider'> | undefined, started: number): Promise<never> {
    if (onEvent) {
      const { code, detail, path } = error;
      const issuer = outcome?.provider?.issuer;
      emit(onEvent, { type: 'rejected', path, code, message: detail, kid: shownKid(outcome?.kid), ...(issuer !== undefined && { issuer }), durationMs: performance.now() - started });
    }
    return Promise.reject(toThrowable(error, detailedErrors));
  }

  function settle(req: unknown, outcome: Outcome, started: number): Promise<void> {
    if (!outcome.accepted) return refuse(outcome.error, outcome, started);
    const { path, kid, cached, context } = outcome;
    if (path === 'key-set') forCubesModel(context);
    // Cube reads the context from the request: a request that cannot carry it must not pass without one.
    if (!attach(req, context)) return refuse(unexpected(new TypeError('the request object refused req.securityContext'), path, onEvent), outcome, started);
    if (onEvent) {
      const issuer = outcome.provider?.issuer;
      emit(onEvent, { type: 'accepted', path, kid: shownKid(kid), ...(issuer !== undefined && { issuer }), cached, durationMs: performance.now() - started });
    }
    return ACCEPTED;
  }

  function checkAuth(req: unknown, auth?: unknown): Promise<void> {
    const started = onEvent ? performance.now() : 0;
    // Whatever the host object or a listener does, the answer is a settled promise: a 403, never a throw or a 500.
    try {
      const outcome = authenticator.authenticate(req, auth, CHECK);
      if (outcome instanceof Promise) {
        return outcome.then(
          (settled) => settle(req, settled, started),
          (error: unknown) => refuse(unexpected(error, undefined, onEvent), undefined, started),
        );
      }
      return settle(req, outcome, started);
    } catch (error) {
      return refuse(unexpected(error, undefined, onEvent), undefined, started);
    }
  }

  async function explain(req: unknown, auth?: unknown): Promise<Verdict> {
    let outcome: Outcome;
    try {
      outcome = await authenticator.authenticate(req, auth, EXPLAIN);
    } catch (error) {
      const { code, detail } = unexpected(error, undefined, onEvent);
      return { accepted: false, pathReason: 'not chosen: the verification failed unexpectedly', error: { code, message: detail } };
    }
    const { path, pathReason, header, payload, kid } = outcome;
    const provider = providerReport(outcome);
    const jwksUri = provider?.jwksUri ?? (stores.length === 1 ? stores[0]?.describe().jwksUri : undefined);
    const verdict = { pathReason, path, header, payload, kid, ...(provider && { provider }), ...(jwksUri !== undefined && { jwksUri }) };
    if (outcome.accepted) return { ...verdict, accepted: true, securityContext: outcome.context };
    const { code, detail } = outcome.error;
    return { ...verdict, accepted: false, error: { code, message: detail } };
  }

  const stores = authenticator.keyStores;

  /** The provider as reported: its JWKS URL is the configured one, or what its key store discovered. */
  function providerReport({ provider }: Outcome): Verdict['provider'] {
    if (provider === undefined) return undefined;
    const jwksUri = provider.jwksUri ?? stores[provider.index]?.describe().jwksUri;
    return { ...(provider.issuer !== undefined && { issuer: provider.issuer }), ...(jwksUri !== undefined && { jwksUri }), reason: provider.reason };
  }

  return Object.assign(checkAuth, {
    prefetch: () => authenticator.prefetch(),
    close: () => authenticator.close(),
    explain,
  });
}

/**
 * Creates a `checkAuth` for Cube from explicit options. Validates them at once and throws
 * `DualAuthConfigError` naming the option when something cannot work.
 */
export function createCheckAuth(options: DualAuthOptions): CheckAuth {
  return createNamedCheckAuth(options, OPTION_NAMES);
}

/** Internal: the same, naming options in messages as `names` says (by their environment variables for the ready-made hook and the CLI). */
export function createNamedCheckAuth(options: DualAuthOptions, names: OptionNames): CheckAuth {
  return build(new Authenticator(resolveOptions(options, names)));
}
