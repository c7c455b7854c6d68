/**
 * The live logins of the SQL API, per process: what Cube's re-authentication (`checkSqlAuth(req, user, null)`, every
 * `CUBESQL_AUTH_EXPIRE_SECS`) is answered from. Holds no token, only each login's user, security context, the moment
 * its credential stops being accepted and its id; bounded by a cap. docs/sql-api.md ("How long a session lives") and
 * docs/cube-lines.md ("The SQL API's re-authentication") say how Cube calls it.
 */
import { createHash } from 'node:crypto';
import type { SecurityContext } from './security-context';

/** How many live logins a process keeps at most, unless told otherwise: the least recently used leave first. */
export const LIVE_LOGIN_CAP = 10_000;

/** Claims that change when the same login is renewed (a fresh token, a second tool): never compared. */
const RENEWED_CLAIMS: readonly string[] = ['iat', 'nbf', 'exp', 'jti', 'auth_time'];

/** A login as it is remembered: what a token login or a key login leaves, never the credential itself. */
export interface LoginRecord {
  /** The SQL user name the client signed in with. */
  readonly user: string;
  /** The security context the login gave Cube; re-authentication answers with it. */
  readonly securityContext: SecurityContext;
  /** Seconds since the epoch at which the credential expires (its `exp`); undefined when it names none. */
  readonly expiresAt?: number;
  /** Seconds since the epoch at which the credential was issued (its `iat`), read with `maxAge`. */
  readonly issuedAt?: number;
  /** The most seconds a credential may live from `issuedAt` (`CUBE_DUAL_AUTH_MAX_TOKEN_AGE`); undefined: no limit. */
  readonly maxAge?: number;
  /** The credential's id (`jti`), which the `isRevoked` option is asked about before the login serves again. */
  readonly id?: string;
}

/** Why a re-authentication found no login to answer with. */
export type MissingLogin =
  | {
      readonly reason: 'expired';
      /** Seconds since the epoch at which the last of the user's logins stopped being live. */
      readonly endedAt: number;
      /** True when the age limit ended it, not the credential's expiry. */
      readonly tooOld: boolean;
    }
  | { readonly reason: 'none' }
  | { readonly reason: 'revoked' }
  | { readonly reason: 'ambiguous'; readonly contexts: number };

/** The answer to a re-authentication: the live login's record, or why there is none. */
export type Lookup = { readonly found: true; readonly login: LoginRecord } | ({ readonly found: false } & MissingLogin);

export interface LiveLoginsOptions {
  /** Epoch milliseconds: the hook's clock, the one its tokens are judged by. */
  readonly clock: () => number;
  /** Seconds of clock skew allowed, as for the token's own `exp` and age (`CUBE_DUAL_AUTH_CLOCK_TOLERANCE`). */
  readonly clockTolerance?: number;
  /** The most logins kept; default {@link LIVE_LOGIN_CAP}. */
  readonly cap?: number;
  /** Members of a context that are copies of it (claims namespaces): compared as the context is. */
  readonly namespaces?: readonly string[];
  /** Whether a credential id has been revoked since its login: a revoked login never serves again. */
  readonly isRevoked?: (id: string) => boolean;
}

interface Entry {
  readonly key: string;
  readonly login: LoginRecord;
  /** Epoch ms from which the login is no longer live. */
  readonly liveUntil: number;
  readonly tooOldFirst: boolean;
  /** A digest of the context without its renewed claims: equal digests, the same context. */
  readonly sameness: string;
}

/** Expired entries are swept out at most this often (clock ms); a lookup removes its user's own at once. */
const SWEEP_INTERVAL_MS = 60_000;

/** A bounded, per-process memory of live logins, judged by the clock it is given. */
export class LiveLogins {
  private readonly cap: number;
  private readonly tolerance: number;
  /** Every entry, least recently used first: the order of eviction. */
  private readonly entries = new Map<string, Entry>();
  private readonly byUser = new Map<string, Map<string, Entry>>();
  private sweptAt: number;

  constructor(private readonly options: LiveLoginsOptions) {
    const { cap = LIVE_LOGIN_CAP, clockTolerance = 0 } = options;
    if (!Number.isInteger(cap) || cap < 1) throw new RangeError(`The cap of live logins must be a whole number ≥ 1`);
    this.cap = cap;
    this.tolerance = clockTolerance;
    this.sweptAt = options.clock();
  }

  /** How many logins are held, live or not yet swept out. */
  get size(): number {
    return this.entries.size;
  }

  /**
   * Remembers a login until its credential expires or grows too old. The same user with the same context and id
   * replaces the earlier entry; a login already past its end is not kept.
   */
  remember(login: LoginRecord): void {
    const now = this.options.clock();
    this.sweepIfDue(now);
    const { liveUntil, tooOldFirst } = this.endOf(login);
    if (liveUntil <= now) return;
    const sameness = this.samenessOf(login.securityContext);
    const key = `${login.user.length}:${login.user}${sameness}${login.id ?? ''}`;
    this.drop(key);
    const entry: Entry = { key, login, liveUntil, tooOldFirst, sameness };
    this.entries.set(key, entry);
    let mine = this.byUser.get(login.user);
    if (mine === undefined) this.byUser.set(login.user, (mine = new Map()));
    mine.set(key, entry);
    while (this.entries.size > this.cap) this.drop(this.entries.keys().next().value as string);
  }

  /**
   * The login that re-authenticates `user`: the live one, or among several the one that lives longest, when all carry
   * the same context. Never guesses between contexts that differ (two tenants under one user name).
   */
  find(user: string): Lookup {
    const mine = this.byUser.get(user);
    if (mine === undefined) return { found: false, reason: 'none' };
    const now = this.options.clock();
    const live: Entry[] = [];
    let ended: Entry | undefined;
    let revoked = false;
    for (const entry of [...mine.values()]) {
      if (entry.liveUntil <= now) {
        if (ended === undefined || entry.liveUntil > ended.liveUntil) ended = entry;
        this.drop(entry.key);
      } else if (entry.login.id !== undefined && this.options.isRevoked?.(entry.login.id) === true) {
        revoked = true;
        this.drop(entry.key);
      } else live.push(entry);
    }
    if (live.length === 0) {
      if (revoked) return { found: false, reason: 'revoked' };
      if (ended === undefined) return { found: false, reason: 'none' };
      return { found: false, reason: 'expired', endedAt: ended.liveUntil / 1000, tooOld: ended.tooOldFirst };
    }
    const contexts = new Set(live.map((entry) => entry.sameness)).size;
    if (contexts > 1) return { found: false, reason: 'ambiguous', contexts };
    const longest = live.reduce((best, entry) => (entry.liveUntil > best.liveUntil ? entry : best));
    // Used now: the last to be evicted.
    this.entries.delete(longest.key);
    this.entries.set(longest.key, longest);
    return { found: true, login: longest.login };
  }

  /** The moment (epoch ms) the credential is refused from, as verification judges it (claims.ts, checkClaims). */
  private endOf({ expiresAt, issuedAt, maxAge }: LoginRecord): { liveUntil: number; tooOldFirst: boolean } {
    const expiry = expiresAt === undefined ? Infinity : expiresAt + this.tolerance;
    const tooOldFrom = maxAge === undefined || issuedAt === undefined ? Infinity : issuedAt + maxAge + this.tolerance;
    return { liveUntil: Math.min(expiry, tooOldFrom) * 1000, tooOldFirst: tooOldFrom < expiry };
  }

  private drop(key: string): void {
    const entry = this.entries.get(key);
    if (entry === undefined) return;
    this.entries.delete(key);
    const mine = this.byUser.get(entry.login.user);
    mine?.delete(key);
    if (mine?.size === 0) this.byUser.delete(entry.login.user);
  }

  private sweepIfDue(now: number): void {
    if (now - this.sweptAt < SWEEP_INTERVAL_MS) return;
    this.sweptAt = now;
    for (const entry of [...this.entries.values()]) if (entry.liveUntil <= now) this.drop(entry.key);
  }

  /** The context without its renewed claims (also inside its namespaces), as a digest of its canonical JSON. */
  private samenessOf(context: SecurityContext): string {
    const namespaces = new Set(this.options.namespaces ?? []);
    const lasting = (value: Record<string, unknown>, top: boolean): Record<string, unknown> =>
      Object.fromEntries(
        Object.entries(value)
          .filter(([name]) => !RENEWED_CLAIMS.includes(name))
          .map(([name, member]) => [
            name,
            top && namespaces.has(name) && isObject(member) ? lasting(member, false) : member,
          ]),
      );
    return createHash('sha256')
      .update(canonicalJson(lasting(context, true)))
      .digest('base64');
  }
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** JSON with every object's members in name order, so that equal contexts give equal text. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map((item) => canonicalJson(item ?? null)).join(',')}]`;
  if (isObject(value)) {
    const members = Object.keys(value)
      .filter((name) => value[name] !== undefined && typeof value[name] !== 'function')
      .sort()
      .map((name) => `${JSON.stringify(name)}:${canonicalJson(value[name])}`);
    return `{${members.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}
