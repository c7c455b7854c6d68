import type { KeyObject } from 'node:crypto';
import type { DualAuthError } from '../errors';
import { emit, type AuthEvent, type AuthEventListener } from '../events';
import { IssuerDiscovery, type DiscoveryState } from './discovery';
import {
  copyFailure,
  isJwksFailure,
  jwksInvalid,
  jwksUnreachable,
  kidUnknown,
  type JwksFailure,
  type JwksFailureCode,
} from './errors';
import { fetchJwks } from './fetch-jwks';
import { usableKeys, type UsableKeySet } from './usable-keys';

/** How the key store talks to the JWKS URL; durations in ms, from the hook's `jwks…` options (config/options.ts). */
export interface KeyStoreOptions {
  /** The JWKS URL (http(s)); or, for an issuer configured without one, the issuer to discover it from. */
  jwksUri: string | { readonly discoverFrom: string };
  /** The issuer whose keys these are, when one is configured: events and diagnostics name it. */
  issuer?: string;
  /** Algorithms the key-set path accepts; a key fit for none of them, or whose JWK `alg` is another, is skipped. */
  algorithms: readonly string[];
  /** `jwksCooldownMs`: least time between fetches, so an unknown `kid` or a down IdP costs one fetch per period. */
  cooldownMs: number;
  /** `jwksMaxAgeMs`: age that starts a lazy refresh (sooner by the answer's `max-age`, never under the cooldown). */
  maxAgeMs: number;
  /** `jwksStaleIfErrorMs`: how long past the max age the last good set serves while refreshes fail (RFC 5861). */
  staleIfErrorMs: number;
  /** Deadline for a whole fetch (connect, headers and body; discovery included), not just socket idle time. */
  timeoutMs: number;
  /** A JWKS answer larger than this is invalid. */
  maxResponseBytes: number;
  /** Receives `jwks-refreshed` and `jwks-refresh-failed` events. Optional. */
  onEvent?: AuthEventListener;
  /** Monotonic ms for every deadline and duration; tests pass a fake one. Default `() => performance.now()`. */
  clock?: () => number;
}

/** A snapshot for diagnostics (CLI `doctor`, `verify`). Holds no key material. */
interface KeyStoreState {
  /** The JWKS URL keys come from; undefined while discovery has not found it yet. */
  readonly jwksUri: string | undefined;
  /** The issuer whose keys these are, when configured. */
  readonly issuer: string | undefined;
  /** How the JWKS URL was discovered, when it is. */
  readonly discovery: DiscoveryState | undefined;
  /** `empty`, `fresh` (under the max age), `stale` (still served) or `expired` (past max age plus stale-if-error). */
  readonly status: 'empty' | 'fresh' | 'stale' | 'expired';
  readonly kids: readonly string[];
  /** Keys of the last good answer that were skipped as unusable. */
  readonly skippedKeys: number;
  /** When the last good key set was loaded. */
  readonly fetchedAt: Date | undefined;
  /** The last failed fetch, cleared by a successful one. */
  readonly lastError: { readonly code: JwksFailureCode; readonly message: string; readonly at: Date } | undefined;
  readonly fetches: { readonly started: number; readonly succeeded: number; readonly failed: number };
  readonly refreshing: boolean;
  readonly closed: boolean;
}

/**
 * The identity provider's signing keys by `kid`, as `KeyObject`s: one fetch at a time, unknown kids refetch at most
 * once per cooldown, the last good set outlives outages for a while (docs/failure-modes.md); a monotonic clock.
 */
export class KeyStore {
  private readonly options: KeyStoreOptions;
  private readonly now: () => number;
  private readonly discovery: IssuerDiscovery | undefined;
  private keys: ReadonlyMap<string, KeyObject> = new Map();
  private skipped = 0;
  private fetchedAt: Date | undefined;
  private freshUntil = -Infinity;
  private servableUntil = -Infinity;
  private nextFetchAt = -Infinity;
  private lastFailure: { readonly error: JwksFailure; readonly at: Date } | undefined;
  private inflight: Promise<JwksFailure | undefined> | undefined;
  private abortFetch: AbortController | undefined;
  private closed = false;
  private readonly counts = { started: 0, succeeded: 0, failed: 0 };

  constructor(options: KeyStoreOptions) {
    this.options = { ...options };
    this.now = options.clock ?? (() => performance.now());
    const { jwksUri } = options;
    this.discovery =
      typeof jwksUri === 'string'
        ? undefined
        : new IssuerDiscovery(jwksUri.discoverFrom, {
            ...options,
            clock: this.now,
            report: (event) => this.report(event),
          });
  }

  /** The JWKS URL for messages: configured, or discovered last; before discovery, the first document discovery asks. */
  private get location(): string {
    const { jwksUri } = this.options;
    if (typeof jwksUri === 'string') return jwksUri;
    const discovery = this.discovery as IssuerDiscovery;
    return discovery.current ?? discovery.firstDocumentUrl;
  }

  /**
   * The key for `kid`: synchronously when it can be served without waiting, else a Promise settled within `timeoutMs`.
   * Fails with a {@link DualAuthError}: `ERR_KID_UNKNOWN`, or an `ERR_JWKS_…` code when no key set can be served.
   */
  getKey(kid: string): KeyObject | Promise<KeyObject> {
    // Hot path: one map lookup and one clock read.
    const key = this.keys.get(kid);
    if (key !== undefined && this.now() < this.freshUntil) return key;
    return this.getKeySlowly(kid);
  }

  /** Loads the key set now, cooldown or not (warm-up at start). Rejects with the failure's {@link DualAuthError}. */
  async prefetch(): Promise<void> {
    if (this.closed) throw this.closedError();
    const failure = await this.refresh();
    if (failure) throw copyFailure(failure);
  }

  /** Aborts an in-flight fetch (its deadline timer goes with it) and stops fetching; fresh keys still answer. */
  close(): void {
    this.closed = true;
    this.abortFetch?.abort();
  }

  /** The key of `kid` in the key set last loaded, without fetching: a live SQL login's check (sql-login/proofs.ts). */
  heldKey(kid: string): KeyObject | undefined {
    return this.keys.get(kid);
  }

  /** The keys of the current key set (for forgetting what a rotation removed). */
  signingKeys(): readonly KeyObject[] {
    return [...this.keys.values()];
  }

  describe(): KeyStoreState {
    const failure = this.lastFailure;
    return {
      jwksUri: typeof this.options.jwksUri === 'string' ? this.options.jwksUri : this.discovery?.current,
      issuer: this.options.issuer,
      discovery: this.discovery?.describe(),
      status: this.status(this.now()),
      kids: [...this.keys.keys()],
      skippedKeys: this.skipped,
      fetchedAt: this.fetchedAt,
      lastError: failure && { code: failure.error.code, message: failure.error.detail, at: failure.at },
      fetches: { ...this.counts },
      refreshing: this.inflight !== undefined,
      closed: this.closed,
    };
  }

  private getKeySlowly(kid: string): KeyObject | Promise<KeyObject> {
    if (this.closed) return Promise.reject(this.closedError());
    const now = this.now();
    const key = now < this.servableUntil ? this.keys.get(kid) : undefined;
    if (key !== undefined) {
      // Stale but servable: answer now and refresh behind the request, so nobody waits for the IdP.
      if (this.inflight === undefined && now >= this.nextFetchAt) void this.refresh();
      return key;
    }
    if (this.inflight !== undefined || now >= this.nextFetchAt) {
      return this.refresh().then((failure) => this.keyAfterRefresh(kid, failure));
    }
    return Promise.reject(this.refusal(kid, now));
  }

  private keyAfterRefresh(kid: string, failure: JwksFailure | undefined): KeyObject {
    const servable = this.now() < this.servableUntil;
    const key = servable ? this.keys.get(kid) : undefined;
    if (key !== undefined) return key;
    if (!servable && failure) throw copyFailure(failure);
    throw kidUnknown(this.location, kid, { refreshFailure: failure });
  }

  /** Why `kid` is refused without a fetch: the cooldown since the last one has not passed. */
  private refusal(kid: string, now: number): DualAuthError {
    const failure = this.lastFailure?.error;
    // With no key set to look in, the outage is the answer; with one, the missing kid is.
    if (failure && now >= this.servableUntil) return copyFailure(failure);
    return kidUnknown(this.location, kid, { refreshFailure: failure, retryInMs: this.nextFetchAt - now });
  }

  /** Single flight: every caller during a fetch shares it. Never rejects; resolves to the failure, if any. */
  private refresh(): Promise<JwksFailure | undefined> {
    this.inflight ??= this.load().finally(() => {
      this.inflight = undefined;
    });
    return this.inflight;
  }

  private async load(): Promise<JwksFailure | undefined> {
    const { algorithms, timeoutMs, maxResponseBytes } = this.options;
    const started = this.now();
    const abort = new AbortController();
    this.abortFetch = abort;
    this.counts.started++;
    let jwksUri = this.location;
    try {
      let timeLeftMs = timeoutMs;
      if (this.discovery) {
        // One deadline for discovery and the key set together (real time, as the fetches' own timers are).
        const deadline = performance.now() + timeoutMs;
        jwksUri = await this.discovery.jwksUri({ timeoutMs, maxResponseBytes, signal: abort.signal });
        timeLeftMs = Math.max(1, Math.round(deadline - performance.now()));
      }
      const { document, maxAgeMs } = await fetchJwks(jwksUri, {
        timeoutMs: timeLeftMs,
        maxResponseBytes,
        signal: abort.signal,
      });
      const set = await usableKeys(document, jwksUri, algorithms);
      if (set.keys.size === 0) {
        const found = document.keys.length;
        throw jwksInvalid(
          jwksUri,
          `no usable signing keys for ${algorithms.join(', ')} (${found} ${found === 1 ? 'key' : 'keys'} in the set)`,
        );
      }
      this.accept(set, started, maxAgeMs);
      return undefined;
    } catch (error) {
      // Anything but a JwksFailure would be a bug in parsing; its text (jwks-rsa, node:crypto) holds no key material.
      const failure = isJwksFailure(error)
        ? error
        : jwksInvalid(jwksUri, error instanceof Error ? error.message : 'unreadable key set');
      this.fail(failure, started);
      return failure;
    } finally {
      this.abortFetch = undefined;
    }
  }

  /** @param answeredMaxAgeMs the answer's own `Cache-Control` lifetime, kept between the cooldown and `maxAgeMs` */
  private accept(set: UsableKeySet, started: number, answeredMaxAgeMs: number | undefined): void {
    const now = this.now();
    const { cooldownMs, maxAgeMs } = this.options;
    this.keys = set.keys;
    this.skipped = set.skipped;
    this.fetchedAt = new Date();
    this.freshUntil =
      now + (answeredMaxAgeMs === undefined ? maxAgeMs : Math.min(maxAgeMs, Math.max(cooldownMs, answeredMaxAgeMs)));
    this.servableUntil = this.freshUntil + this.options.staleIfErrorMs;
    this.nextFetchAt = now + this.options.cooldownMs;
    this.lastFailure = undefined;
    this.counts.succeeded++;
    this.report({
      type: 'jwks-refreshed',
      jwksUri: this.location,
      ...(this.options.issuer !== undefined && { issuer: this.options.issuer }),
      kids: [...set.keys.keys()],
      skipped: set.skipped,
      durationMs: Math.round(now - started),
    });
  }

  private fail(error: JwksFailure, started: number): void {
    const now = this.now();
    this.lastFailure = { error, at: new Date() };
    this.nextFetchAt = now + this.options.cooldownMs;
    this.counts.failed++;
    this.report({
      type: 'jwks-refresh-failed',
      jwksUri: this.location,
      ...(this.options.issuer !== undefined && { issuer: this.options.issuer }),
      code: error.code,
      message: error.detail,
      servingStale: now < this.servableUntil,
      durationMs: Math.round(now - started),
    });
  }

  /** A store being shut down is not an IdP failure worth an operator's attention. */
  private report(event: AuthEvent): void {
    if (!this.closed) emit(this.options.onEvent, event);
  }

  private status(now: number): KeyStoreState['status'] {
    if (this.fetchedAt === undefined) return 'empty';
    if (now < this.freshUntil) return 'fresh';
    return now < this.servableUntil ? 'stale' : 'expired';
  }

  private closedError(): JwksFailure {
    return jwksUnreachable(this.location, 'key store closed');
  }
}
