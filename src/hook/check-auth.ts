/** The function Cube calls: outcomes of the authenticator turned into Cube's answers, events, and `explain`. */
import { Authenticator, unexpected, type AuthenticateOptions, type Outcome } from './authenticator';
import { OPTION_NAMES, resolveOptions, type DualAuthOptions, type OptionNames } from '../config/options';
import { toThrowable, type AuthPath, type DualAuthError } from '../errors';
import { ENV, readEnv } from '../config/env';
import type { AuthEventListener } from '../events';
import type { SecurityContext } from './security-context';
import type { TokenHeader } from './token';
import { cubeOptionsOf, type CubeOptions } from './cube-options';
import { hookMetrics, type HookMetrics } from '../metrics';
import { sqlAuthOf, type SqlAuth } from './sql-login';
import { reportOutcome, reportStart } from './outcome-report';
import { SecretsReload } from '../config/reload';
import { STANDING_MEANING, type StandingTokenKind } from './standing-token';
import { SecretStates } from '../config/secret-state';

export type { SecurityContext } from './security-context';

/** How a token fared, step by step: what `explain` returns and the CLI prints. */
export interface Explanation {
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
  /** The identity provider chosen on the key-set path: its issuer (when configured), JWKS URL, and why. */
  readonly provider?: {
    readonly issuer?: string;
    /** Where its keys come from: the configured JWKS URL, or the one discovered (absent until then). */
    readonly jwksUri?: string;
    readonly reason: string;
  };
  /** The key-set path's JWKS URL: the chosen provider's, or the only one's even when refused before a choice. */
  readonly jwksUri?: string;
  /** Set when the token was accepted as a standing service credential (docs/embeddable.md). */
  readonly standingServiceCredential?: { readonly kind: StandingTokenKind; readonly meaning: string };
  /** Why the token was refused. */
  readonly error?: { readonly code: DualAuthError['code']; readonly message: string };
}

/**
 * The function Cube calls, with the key store's controls attached. It verifies the request's token, sets the
 * security context on `req.securityContext` and resolves to it (to `{ security_context: context }` when the context
 * has a truthy `security_context` member, so that Cube ≥ 0.35 takes the context: docs/cube-lines.md, "What differs
 * between Cube lines"). Rejects with a 403 error: the host Cube's `CubejsHandlerError`, else {@link DualAuthError}.
 * Carries Cube's options ({@link CubeOptions}) and SQL API login ({@link SqlAuth}); the second call signature is
 * the one Cube 0.33's `CheckAuthFn` accepts.
 */
export interface CheckAuth extends CubeOptions, SqlAuth {
  /**
   * @param req what Cube passes: an Express request, a Node request, or `{ isSubscription, protocol: 'ws' }`
   * @param auth the token or `Authorization` value Cube passes; when absent it is read from the request headers
   * @returns the security context set on `req.securityContext`, or `{ security_context: context }` when the context
   *   has a truthy `security_context` member of its own (see {@link CheckAuth})
   */
  (req: unknown, auth?: unknown): Promise<SecurityContext>;
  /** The same call, as Cube 0.33's `CheckAuthFn` type describes it (see {@link CheckAuth}). */
  (req: unknown, auth?: unknown): Promise<void>;
  /** Loads every identity provider's key set now, so the first user does not wait; rejects with the first failure. */
  prefetch(): Promise<void>;
  /** Releases timers and aborts JWKS fetches in flight (for tests and shutdown). */
  close(): void;
  /** Runs the same verification without side effects and reports every step; never rejects. */
  explain(req: unknown, auth?: unknown): Promise<Explanation>;
}

/** `checkAuth` answers from the cache and fills it; `explain` shows a real verification, so it does neither. */
const CHECK: AuthenticateOptions = { useCache: true };
const EXPLAIN: AuthenticateOptions = { useCache: false };

/** What an accepted request resolves to, in Cube's terms (see {@link CheckAuth}). */
function answerFor(context: SecurityContext): SecurityContext {
  return (context as { security_context?: unknown }).security_context ? { security_context: context } : context;
}

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

/** A context's member that is the context itself, hidden from JSON, logs and `Object.keys`. */
function selfReference(context: SecurityContext): PropertyDescriptor {
  return { value: context, enumerable: false, writable: true, configurable: true };
}

/**
 * Makes the context answer to each claims namespace Cube applies with itself, so the data model's `SECURITY_CONTEXT`
 * and `queryRewrite` see one context (docs/cube-lines.md). A frozen context is copied first.
 */
function answerToNamespaces(namespaces: readonly string[]): (context: SecurityContext) => SecurityContext {
  if (namespaces.length === 0) return (context) => context;
  return (context) => {
    if (namespaces.every((namespace) => Reflect.defineProperty(context, namespace, selfReference(context))))
      return context;
    const members = Object.getOwnPropertyDescriptors(context);
    for (const namespace of namespaces) delete members[namespace];
    const copy = Object.create(Object.getPrototypeOf(context) as object | null, members) as SecurityContext;
    for (const namespace of namespaces) Object.defineProperty(copy, namespace, selfReference(copy));
    return copy;
  };
}

/** The namespaces Cube applies: the hook's `claimsNamespace`, and `CUBEJS_JWT_CLAIMS_NAMESPACE` as Cube reads it. */
function cubeNamespaces(claimsNamespace: string | undefined): string[] {
  return [...new Set([claimsNamespace, readEnv(process.env, ENV.claimsNamespace)])].filter(
    (name): name is string => name !== undefined,
  );
}

/** `explain` of a hook: the same verification without the cache or events, reported step by step; never rejects. */
function explainerOf(
  authenticator: Authenticator,
  forCube: (context: SecurityContext) => SecurityContext,
): CheckAuth['explain'] {
  const { onEvent } = authenticator.options;
  const stores = authenticator.keyStores;

  async function explain(req: unknown, auth?: unknown): Promise<Explanation> {
    let outcome: Outcome;
    try {
      outcome = await authenticator.authenticate(req, auth, EXPLAIN);
    } catch (error) {
      const { code, detail } = unexpected(error, undefined, onEvent);
      return {
        accepted: false,
        pathReason: 'not chosen: the verification failed unexpectedly',
        error: { code, message: detail },
      };
    }
    const { path, pathReason, header, payload, kid } = outcome;
    const provider = providerReport(outcome);
    const jwksUri = provider?.jwksUri ?? (stores.length === 1 ? stores[0]?.describe().jwksUri : undefined);
    const verdict = {
      pathReason,
      path,
      header,
      payload,
      kid,
      ...(provider && { provider }),
      ...(jwksUri !== undefined && { jwksUri }),
    };
    if (outcome.accepted) {
      try {
        const { standing } = outcome;
        const credential = standing === undefined ? undefined : { kind: standing, meaning: STANDING_MEANING };
        return {
          ...verdict,
          accepted: true,
          securityContext: forCube(outcome.context),
          ...(credential && { standingServiceCredential: credential }),
        };
      } catch (error) {
        const { code, detail } = unexpected(error, path, onEvent);
        return { ...verdict, accepted: false, error: { code, message: detail } };
      }
    }
    const { code, detail } = outcome.error;
    return { ...verdict, accepted: false, error: { code, message: detail } };
  }

  /** The provider as reported: its JWKS URL is the configured one, or what its key store discovered. */
  function providerReport({ provider }: Outcome): Explanation['provider'] {
    if (provider === undefined) return undefined;
    const jwksUri = provider.jwksUri ?? stores[provider.index]?.describe().jwksUri;
    return {
      ...(provider.issuer !== undefined && { issuer: provider.issuer }),
      ...(jwksUri !== undefined && { jwksUri }),
      reason: provider.reason,
    };
  }

  return explain;
}

function build(
  authenticator: Authenticator,
  metrics: HookMetrics | undefined,
  reload: SecretsReload | undefined,
): CheckAuth {
  const { onEvent, detailedErrors, claimsNamespace } = authenticator.options;
  const namespaces = cubeNamespaces(claimsNamespace);
  const forCube = answerToNamespaces(namespaces);

  function refuse(
    error: DualAuthError,
    outcome: Pick<Outcome, 'kid' | 'provider'> | undefined,
    started: number,
  ): Promise<never> {
    if (onEvent)
      reportOutcome(onEvent, started, { accepted: false, error, kid: outcome?.kid, issuer: outcome?.provider?.issuer });
    return Promise.reject(toThrowable(error, detailedErrors));
  }

  /** Never throws: it also runs in a promise's callback, where a throw would reach Cube as a 500. */
  function settle(req: unknown, outcome: Outcome, started: number): Promise<SecurityContext> {
    if (!outcome.accepted) return refuse(outcome.error, outcome, started);
    const { path, kid, cached } = outcome;
    let answer: SecurityContext;
    try {
      const context = forCube(outcome.context);
      // Cube reads the context from the request: a request that cannot carry it must not pass without one.
      if (!attach(req, context))
        return refuse(
          unexpected(new TypeError('the request object refused req.securityContext'), path, onEvent),
          outcome,
          started,
        );
      answer = answerFor(context);
    } catch (error) {
      return refuse(unexpected(error, path, onEvent), outcome, started);
    }
    // Guarded here, so that a hook without listeners builds no report on the hot path.
    if (onEvent)
      reportOutcome(onEvent, started, { accepted: true, path, kid, issuer: outcome.provider?.issuer, cached });
    return Promise.resolve(answer);
  }

  function checkAuth(req: unknown, auth?: unknown): Promise<SecurityContext> {
    const started = reportStart(onEvent);
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

  const explain = explainerOf(authenticator, forCube);

  // The one function answers both call signatures of CheckAuth: the second (Cube 0.33's type) only says less.
  const hook = Object.assign(checkAuth as CheckAuth, {
    prefetch: () => authenticator.prefetch(),
    close: () => {
      reload?.close();
      authenticator.close();
      metrics?.close();
    },
    explain,
  });
  const { checkSqlAuth, canSwitchSqlUser } = sqlAuthOf(authenticator, { namespaces });
  // Not enumerable, as the Cube options: a hook listed or copied shows the function and its controls only.
  return Object.defineProperties(hook, {
    ...cubeOptionsOf(authenticator.options),
    checkSqlAuth: { value: checkSqlAuth },
    canSwitchSqlUser: { value: canSwitchSqlUser },
  });
}

/**
 * Creates a `checkAuth` for Cube from explicit options. Validates them at once and throws
 * `DualAuthConfigError` naming the option when something cannot work.
 */
export function createCheckAuth(options: DualAuthOptions): CheckAuth {
  return createNamedCheckAuth(options, { names: OPTION_NAMES, metrics: true });
}

/** Internal: how {@link createNamedCheckAuth} names options, judges time and records metrics. */
export interface NamedCheckAuthSetting {
  /** How messages name options: by option name, or by environment variable (the ready-made hook, the CLI). */
  readonly names: OptionNames;
  /** Epoch ms that tokens are judged by; tests set it instead of moving the system's time. */
  readonly clock?: () => number;
  /** Whether metrics are recorded: by the hook Cube runs, not the CLI, beside a Cube that may hold the port. */
  readonly metrics?: boolean;
}

/** Internal: {@link createCheckAuth}, with options named, time judged and metrics recorded as `setting` says. */
export function createNamedCheckAuth(
  options: DualAuthOptions,
  { names, clock, metrics: withMetrics = false }: NamedCheckAuthSetting,
): CheckAuth {
  // With a secrets directory, its files are read and checked with the options, by the same validation (reload.ts).
  const dir =
    typeof options?.secretsDir === 'string' && options.secretsDir.trim() !== '' ? options.secretsDir : undefined;
  const reload =
    dir === undefined
      ? undefined
      : SecretsReload.start({ options, names: { ...OPTION_NAMES, ...names }, dir, now: clock });
  const resolved = reload?.resolved ?? resolveOptions(options, names);
  // Without a directory, the environment's secrets are what the metrics show in force.
  const secrets = withMetrics
    ? (reload?.states ?? new SecretStates({ secrets: resolved, fromFiles: new Set(), clock: clock ?? Date.now }))
    : undefined;
  const metrics = secrets === undefined ? undefined : hookMetrics(resolved, { secrets });
  // The metrics hear every event first, so that a listener of the operator's that throws cannot keep one from them.
  const { onEvent } = resolved;
  const measured: AuthEventListener | undefined =
    metrics === undefined || onEvent === undefined
      ? (metrics?.listener ?? onEvent)
      : (event) => {
          metrics.listener(event);
          onEvent(event);
        };
  const authenticator = new Authenticator({ ...resolved, onEvent: measured }, clock, reload?.secrets);
  reload?.watch(measured, resolved.secretsPollMs);
  return build(authenticator, metrics, reload);
}
