/**
 * The flow a request takes: token → path → verification → security context → cache, ending in an outcome
 * (accepted or refused) that `checkAuth` turns into Cube's answer and `explain` into a report.
 */
import type { ResolvedOptions } from '../config/options';
import { LiveSecrets, snapshotOf, type SecretsSnapshot } from '../config/secrets-snapshot';
import { DualAuthError, faultMessage, TOKEN_MISSING_MESSAGE, type AuthPath } from '../errors';
import { emit, type AuthEvent, type AuthEventListener } from '../events';
import { KeyStore, keyStoreOptions } from '../keys';
import { keyFactsOf } from '../keys/key-facts';
import { KeySetPath } from './paths/key-set';
import type { ProviderChoice, Verified, VerificationPath } from './paths/path';
import { SharedSecretPath } from './paths/shared-secret';
import { extractToken, pathChooser, readHeader, type PathChoice } from './request';
import { hasStandingShape, StandingTokenWatch, standingKindOf, type StandingTokenKind } from './standing-token';
import { SECRET_ADVICE } from '../config/secret-strength';
import { securityContextShaper, type SecurityContext } from './security-context';
import { decodeToken, own, type DecodedToken, type TokenHeader } from './token';
import { TokenCache } from './token-cache';
import { isSqlKeyHeader } from './sql-login/sql-key';

interface Reported {
  /** Why the request goes to its path (stated even when there is no token to verify). */
  readonly pathReason: string;
  /** Absent when the request had no token. */
  readonly path?: AuthPath;
  /** The `kid` used (accepted), or named by the token (refused), on the key-set path. */
  readonly kid?: string;
  /** The identity provider chosen on the key-set path, and why. */
  readonly provider?: ProviderChoice;
  /**
   * Decoded header and payload, when the token was decoded (never on a cache hit; no payload when it is not an object).
   */
  readonly header?: TokenHeader;
  readonly payload?: Record<string, unknown>;
  /** Accepted on the shared-secret path as a standing service credential (docs/embeddable.md). */
  readonly standing?: StandingTokenKind;
}

/** What is known of a request while it is verified. */
interface Seen extends Omit<Reported, 'payload' | 'kid' | 'provider'> {
  readonly decoded?: DecodedToken;
  /** Epoch ms the request is judged at. */
  readonly now?: number;
  /** The secrets in force when the token was verified: a token verified before a reload is not cached after it. */
  readonly secrets?: SecretsSnapshot;
  /** False for `explain`, which logs and counts nothing. */
  readonly live?: boolean;
}

interface Accepted extends Reported {
  readonly accepted: true;
  /** The thumbprint of the key that verified the token (key-set path; not on a cache hit): a SQL login keeps it. */
  readonly thumbprint?: string | undefined;
  readonly path: AuthPath;
  readonly context: SecurityContext;
  /** True when the verified-token cache answered. */
  readonly cached: boolean;
}

interface Refused extends Reported {
  readonly accepted: false;
  readonly error: DualAuthError;
}

export type Outcome = Accepted | Refused;

/** Which steps may be skipped: `explain` shows a real verification, so it neither reads nor fills the cache. */
export interface AuthenticateOptions {
  readonly useCache: boolean;
}

export class Authenticator {
  /** One key store per identity provider, in the order configured. */
  readonly keyStores: readonly KeyStore[];
  private readonly choosePath: (req: unknown) => PathChoice;
  private readonly keySet: KeySetPath;
  private readonly sharedSecret: VerificationPath;
  private readonly cache: TokenCache | undefined;
  private readonly shape: ReturnType<typeof securityContextShaper>;
  private readonly standingTokens: StandingTokenWatch;

  /**
   * @param clock epoch milliseconds, for every time a token (and a SQL key) is judged by, and the SQL
   * API's live logins
   * @param secrets the API secrets, SQL key secrets, revocations and static password in force, which a reload of the
   *   secrets directory swaps (config/reload.ts); by default those of `options`, for good
   */
  constructor(
    readonly options: ResolvedOptions,
    readonly clock: () => number = Date.now,
    readonly secrets: LiveSecrets = new LiveSecrets(snapshotOf(options)),
  ) {
    const { onEvent } = options;
    this.cache =
      options.tokenCacheSize > 0 ? new TokenCache(options.tokenCacheSize, options.tokenCacheMaxAgeMs) : undefined;
    const onKeyStoreEvent = (event: AuthEvent): void => {
      if (event.type === 'jwks-refreshed') this.cache?.forgetKeysOtherThan(this.keyThumbprints());
      emit(onEvent, event);
    };
    // Each identity provider has its own key store: one provider down or rotating never affects another.
    const providers = options.identityProviders.map((provider) => ({
      provider,
      keys: new KeyStore(keyStoreOptions(options, provider, onKeyStoreEvent)),
    }));
    this.keyStores = providers.map(({ keys }) => keys);
    this.keySet = new KeySetPath(options, providers, clock);
    this.sharedSecret = new SharedSecretPath(options, secrets);
    // A secret removed verifies nothing more: neither do the tokens it verified, from the cache.
    secrets.onSwap((next) => this.cache?.forgetOtherThan('shared-secret', new Set(next.secretThumbprints)));
    this.choosePath = pathChooser(options.origin);
    if (options.secretWeakness !== undefined) {
      // Anyone can choose the shared-secret path: a guessable secret lets anyone mint tokens.
      console.warn(`cube-dual-auth: ${options.secretWeakness}: ${SECRET_ADVICE} (RFC 7518 3.2)`);
    }
    this.shape = securityContextShaper(options);
    this.standingTokens = new StandingTokenWatch(onEvent);
  }

  /**
   * The path of a request: by `Request-Origin`, or, with `standingTokenWithoutOrigin` and no such header, the
   * shared-secret path for a token of the package's standing token's shape (docs/security.md).
   */
  private route(req: unknown, token: string | undefined): PathChoice {
    const choice = this.choosePath(req);
    if (!this.options.standingTokenWithoutOrigin || token === undefined || choice.path !== 'key-set') return choice;
    if (readHeader(req, 'request-origin') !== undefined) return choice;
    let shaped = false;
    try {
      shaped = hasStandingShape(decodeToken(token));
    } catch {
      // Malformed: the key-set path refuses it as it would have.
    }
    return shaped ? BY_SHAPE : choice;
  }

  /**
   * Judges a request. Answers synchronously when nothing has to be fetched or awaited (the common case), so the
   * hot path creates no promise of its own. Never throws: every failure is a {@link Refused} outcome.
   */
  authenticate(req: unknown, auth: unknown, { useCache }: AuthenticateOptions): Outcome | Promise<Outcome> {
    const token = extractToken(req, auth);
    const { path, reason: pathReason } = this.route(req, token);
    if (token === undefined)
      return { accepted: false, pathReason, error: new DualAuthError('ERR_TOKEN_MISSING', TOKEN_MISSING_MESSAGE) };
    const cache = useCache ? this.cache : undefined;
    // One reading of the clock judges the request, from the cache to the claims (a wait for keys reads it anew).
    const now = this.clock();
    const hit = cache?.get(token, path, now);
    if (hit)
      return {
        accepted: true,
        path,
        pathReason,
        context: hit.context,
        kid: hit.kid,
        provider: hit.provider,
        cached: true,
      };
    let decoded: DecodedToken;
    try {
      decoded = decodeToken(token, path);
    } catch (error) {
      return this.refuse(error, { path, pathReason });
    }
    const seen: Seen = {
      path,
      pathReason,
      header: decoded.header,
      decoded,
      now,
      secrets: this.secrets.current,
      live: useCache,
    };
    // Its signature would fail on either path too (its secrets are no API secret, HS256 is never a key-set algorithm);
    // refused by its header first so that the message says what it is (docs/security.md, "SQL keys").
    if (isSqlKeyHeader(decoded.header)) return this.refuse(sqlKeyOnRest(path), seen);
    try {
      const verified = (path === 'key-set' ? this.keySet : this.sharedSecret).verify(decoded, now);
      if (verified instanceof Promise) {
        return verified.then(
          (done) => this.accept(token, done, seen, cache),
          (error: unknown) => this.refuse(error, seen),
        );
      }
      return this.accept(token, verified, seen, cache);
    } catch (error) {
      return this.refuse(error, seen);
    }
  }

  /** Shapes the security context of a verified token and remembers it. */
  private accept(
    token: string,
    verified: Verified,
    seen: Seen,
    cache: TokenCache | undefined,
  ): Outcome | Promise<Outcome> {
    try {
      const context = this.shape(verified, seen.path as AuthPath);
      if (context instanceof Promise) {
        return context.then(
          (shaped) => this.remember(token, verified, seen, cache, shaped),
          (error: unknown) => this.refuse(error, seen),
        );
      }
      return this.remember(token, verified, seen, cache, context);
    } catch (error) {
      return this.refuse(error, seen);
    }
  }

  private remember(
    token: string,
    verified: Verified,
    seen: Seen,
    cache: TokenCache | undefined,
    context: SecurityContext,
  ): Accepted {
    const path = seen.path as AuthPath;
    // A reload while the securityContext function ran may have removed the secret that verified the token.
    const stale = seen.secrets !== this.secrets.current;
    // Without a securityContext function or authorization, the context is the token's (its payload or namespace claim).
    if (!stale)
      cache?.set(
        token,
        path,
        verified,
        seen.now as number,
        this.options.securityContext === undefined && this.options.authorization === undefined ? undefined : context,
      );
    const { kid, provider, payload, thumbprint } = verified;
    const standing = path === 'shared-secret' ? standingKindOf(payload) : undefined;
    if (standing !== undefined && seen.live === true)
      this.standingTokens.sighted(token, standing, seen.pathReason !== BY_SHAPE.reason);
    return {
      accepted: true,
      path,
      pathReason: seen.pathReason,
      kid,
      provider,
      thumbprint,
      context,
      cached: false,
      header: seen.header,
      payload,
      ...(standing !== undefined && { standing }),
    };
  }

  /** Loads every identity provider's key set now; rejects with the first failure once all have settled. */
  async prefetch(): Promise<void> {
    const failed = (await Promise.allSettled(this.keyStores.map((store) => store.prefetch()))).find(
      (result) => result.status === 'rejected',
    );
    if (failed) throw failed.reason;
  }

  close(): void {
    for (const store of this.keyStores) store.close();
  }

  /** The keys every identity provider's key set holds now, by thumbprint. */
  private keyThumbprints(): ReadonlySet<string> {
    const thumbprints = new Set<string>();
    for (const key of this.keyStores.flatMap((store) => store.signingKeys())) {
      const facts = keyFactsOf(key);
      if (facts) thumbprints.add(facts.thumbprint);
    }
    return thumbprints;
  }

  /** Any failure as a refusal: an unexpected error becomes a 403 too (and is reported), never a 500. */
  private refuse(error: unknown, seen: Seen): Refused {
    const { path, pathReason, header, decoded } = seen;
    // The kid the token names, reported on the key-set path; an accepted token reports the one that verified it.
    const named = path === 'key-set' && header !== undefined ? own(header, 'kid') : undefined;
    const kid = typeof named === 'string' ? named : undefined;
    const refusal = error instanceof DualAuthError ? error : unexpected(error, path, this.options.onEvent);
    const payload = decoded?.payloadIfObject();
    const provider = path === 'key-set' && decoded !== undefined ? this.keySet.providerFor(decoded) : undefined;
    return { accepted: false, error: refusal, path, pathReason, header, payload, kid, provider };
  }
}

/** The route of a token of the standing token's shape on a request without `Request-Origin` (opt-in). */
const BY_SHAPE: PathChoice = Object.freeze({
  path: 'shared-secret',
  reason:
    "no Request-Origin header, but the token has the shape of cube-dual-auth's standing service token: the shared-secret path (CUBE_DUAL_AUTH_STANDING_TOKEN_WITHOUT_ORIGIN)",
});

/** The refusal of a SQL key sent to the REST API: each path's own code, and a message that says what the token is. */
function sqlKeyOnRest(path: AuthPath): DualAuthError {
  const message = 'A SQL key is never accepted on the REST API: it signs in to the SQL API only';
  return new DualAuthError(path === 'key-set' ? 'ERR_ALG_NOT_ALLOWED' : 'ERR_SIGNATURE_INVALID', message, path);
}

/** An error nobody meant: reported (masked) to the event log and stderr, answered as `ERR_INTERNAL`. */
export function unexpected(
  error: unknown,
  path: AuthPath | undefined,
  onEvent: AuthEventListener | undefined,
): DualAuthError {
  if (error instanceof DualAuthError) return error;
  const message = `unexpected error: ${faultMessage(error)}`;
  emit(onEvent, { type: 'internal-error', message });
  console.error(`cube-dual-auth: ${message}`);
  return new DualAuthError(
    'ERR_INTERNAL',
    'Authentication failed because of an internal error; see the Cube server log',
    path,
  );
}
