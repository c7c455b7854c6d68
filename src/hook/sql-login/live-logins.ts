/**
 * The live logins of the SQL API, per process, which Cube's re-authentication is answered from: no token, only each
 * login's user, identity, end and id, bounded per user name and in all (docs/security.md#one-name-one-identity).
 */
import { createHash } from 'node:crypto';
import type { SecurityContext } from '../security-context';
import type { Proof } from './proofs';

/** How many live logins a process keeps at most, unless told otherwise: at the cap a new login is refused. */
export const LIVE_LOGIN_CAP = 10_000;

/** How many live logins one user name keeps at most, unless told otherwise: its own oldest leave first. */
export const LIVE_LOGINS_PER_USER = 20;

/** Claims that change whenever a credential is issued, whoever issued it: never compared. */
const RENEWED_CLAIMS: readonly string[] = ['iat', 'nbf', 'exp', 'jti', 'auth_time'];

/** What signed a login in: an identity-provider token or a SQL key. */
export type CredentialKind = 'token' | 'key';

/** A login as it is remembered: what a token login or a key login leaves, never the credential itself. */
export interface LoginRecord {
  /** The SQL user name the client signed in with. */
  readonly user: string;
  /** The security context the login gave Cube; re-authentication answers with a copy of it. */
  readonly securityContext: SecurityContext;
  /** What the login signed in with; default `token`. Part of the login's identity. */
  readonly kind?: CredentialKind;
  /** Who the credential names (a token's issuer and `sub`, a key's user); default the user name. */
  readonly subject?: string;
  /** Seconds since the epoch at which the credential expires (its `exp`); undefined when it names none. */
  readonly expiresAt?: number;
  /** Seconds since the epoch at which the credential was issued (its `iat`), read with `maxAge`. */
  readonly issuedAt?: number;
  /** The most seconds a credential may live from `issuedAt` (`CUBE_DUAL_AUTH_MAX_TOKEN_AGE`); undefined: no limit. */
  readonly maxAge?: number;
  /** The credential's id (`jti`), which the `isRevoked` option is asked about before the login serves again. */
  readonly id?: string;
  /** What verified the credential, shared by every login it verified; `stillProved` is asked about it. */
  readonly proof?: Proof;
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
  /** What proved the login (a secret, a key, a password) is no longer in force. */
  | { readonly reason: 'withdrawn'; readonly proof: Proof }
  /** Several subjects signed in under the user name: it names no one identity. */
  | { readonly reason: 'ambiguous' }
  /** One subject signed in under the name with another credential kind or context: a session would move. */
  | { readonly reason: 'drift' };

/** The answer to a re-authentication: the live login's record, or why there is none. */
export type Lookup = { readonly found: true; readonly login: LoginRecord } | ({ readonly found: false } & MissingLogin);

/** Whether a login was kept: at the cap it is not, and its sign-in is refused (docs/security.md). */
export type Remembered = { readonly remembered: true } | { readonly remembered: false; readonly reason: 'capacity' };

export interface LiveLoginsOptions {
  /** Epoch milliseconds: the hook's clock, the one its tokens are judged by. */
  readonly clock: () => number;
  /** Seconds of clock skew allowed, as for the token's own `exp` and age (`CUBE_DUAL_AUTH_CLOCK_TOLERANCE`). */
  readonly clockTolerance?: number;
  /** The most logins kept; default {@link LIVE_LOGIN_CAP}. */
  readonly cap?: number;
  /** The most logins kept per user name; default {@link LIVE_LOGINS_PER_USER}. */
  readonly perUser?: number;
  /** Per-token claims never compared between two logins (`CUBE_DUAL_AUTH_SQL_PER_TOKEN_CLAIMS`), beside `iat`… */
  readonly perTokenClaims?: readonly string[];
  /** Members of a context that are copies of it (claims namespaces): compared as the context is. */
  readonly namespaces?: readonly string[];
  /** Whether a credential id has been revoked since its login: a revoked login never serves again. */
  readonly isRevoked?: (id: string) => boolean;
  /** Whether what proved a login is still in force: a login whose proof left never serves again. */
  readonly stillProved?: (proof: Proof) => boolean;
}

interface Entry {
  readonly key: string;
  readonly login: LoginRecord;
  /** Epoch ms from which the login is no longer live. */
  readonly liveUntil: number;
  readonly tooOldFirst: boolean;
}

/**
 * What one user name holds: its logins, and the identities and subjects seen since it last had none live, which
 * outlive the logins that left them (docs/security.md#one-name-one-identity).
 */
interface Name {
  readonly entries: Map<string, Entry>;
  /** Kept to two at most: all that matters is whether there is more than one. */
  readonly identities: Set<string>;
  readonly subjects: Set<string>;
}

/** Expired entries are swept out at most this often (clock ms); a lookup removes its user's own at once. */
const SWEEP_INTERVAL_MS = 60_000;
/** At the cap, ended entries are swept out at most this often (clock ms) to make room. */
const CAP_SWEEP_INTERVAL_MS = 1_000;

const wholeAtLeastOne = (value: number, what: string): number => {
  if (!Number.isInteger(value) || value < 1) throw new RangeError(`The ${what} must be a whole number ≥ 1`);
  return value;
};

/** A bounded, per-process memory of live logins, judged by the clock it is given. */
export class LiveLogins {
  private readonly cap: number;
  private readonly perUser: number;
  private readonly tolerance: number;
  private readonly ignored: ReadonlySet<string>;
  private readonly entries = new Map<string, Entry>();
  private readonly names = new Map<string, Name>();
  private sweptAt: number;

  constructor(private readonly options: LiveLoginsOptions) {
    const { cap = LIVE_LOGIN_CAP, perUser = LIVE_LOGINS_PER_USER, clockTolerance = 0 } = options;
    this.cap = wholeAtLeastOne(cap, 'cap of live logins');
    this.perUser = wholeAtLeastOne(perUser, 'bound of live logins per user');
    this.tolerance = clockTolerance;
    this.ignored = new Set([...RENEWED_CLAIMS, ...(options.perTokenClaims ?? [])]);
    this.sweptAt = options.clock();
  }

  /** How many logins are held, live or not yet swept out. */
  get size(): number {
    return this.entries.size;
  }

  /**
   * Remembers a login until its credential ends, replacing one of the same identity and id. A name over its bound
   * loses its own oldest; at the cap the login is not kept, and no other user's leaves for it.
   */
  remember(login: LoginRecord): Remembered {
    const now = this.options.clock();
    this.sweepIfDue(now);
    const { liveUntil, tooOldFirst } = this.endOf(login);
    if (liveUntil <= now) return { remembered: true };
    const identity = this.identityOf(login);
    const key = `${login.user.length}:${login.user}\n${identity}\n${login.id ?? ''}`;
    let name = this.names.get(login.user);
    const replaces = name?.entries.has(key) === true;
    const full = name !== undefined && name.entries.size >= this.perUser;
    if (!replaces && !full && this.entries.size >= this.cap) {
      // At most one sweep a second at the cap: a flood of refused logins must not sweep 10,000 entries each.
      if (now - this.sweptAt >= CAP_SWEEP_INTERVAL_MS) this.sweep(now);
      name = this.names.get(login.user);
      if (this.entries.size >= this.cap) return { remembered: false, reason: 'capacity' };
    }
    if (name === undefined) {
      name = { entries: new Map(), identities: new Set(), subjects: new Set() };
      this.names.set(login.user, name);
    }
    this.drop(key, false);
    if (name.entries.size >= this.perUser) this.drop(name.entries.keys().next().value as string, false);
    const entry: Entry = { key, login, liveUntil, tooOldFirst };
    this.entries.set(key, entry);
    name.entries.set(key, entry);
    addBounded(name.identities, identity);
    addBounded(name.subjects, subjectOf(login));
    return { remembered: true };
  }

  /** The live login that lives longest of `user`'s, while every login under the name is one identity. Never guesses. */
  find(user: string): Lookup {
    const name = this.names.get(user);
    if (name === undefined) return { found: false, reason: 'none' };
    const now = this.options.clock();
    const live: Entry[] = [];
    let ended: Entry | undefined;
    let revoked = false;
    let withdrawn: Proof | undefined;
    for (const entry of [...name.entries.values()]) {
      const { id, proof } = entry.login;
      if (entry.liveUntil <= now) {
        if (ended === undefined || entry.liveUntil > ended.liveUntil) ended = entry;
        this.drop(entry.key, true);
      } else if (id !== undefined && this.options.isRevoked?.(id) === true) {
        revoked = true;
        this.drop(entry.key, true);
      } else if (proof !== undefined && this.options.stillProved?.(proof) === false) {
        withdrawn = proof;
        this.drop(entry.key, true);
      } else live.push(entry);
    }
    if (live.length === 0) {
      if (withdrawn !== undefined) return { found: false, reason: 'withdrawn', proof: withdrawn };
      if (revoked) return { found: false, reason: 'revoked' };
      if (ended === undefined) return { found: false, reason: 'none' };
      return { found: false, reason: 'expired', endedAt: ended.liveUntil / 1000, tooOld: ended.tooOldFirst };
    }
    if (name.subjects.size > 1) return { found: false, reason: 'ambiguous' };
    if (name.identities.size > 1) return { found: false, reason: 'drift' };
    const longest = live.reduce((best, entry) => (entry.liveUntil > best.liveUntil ? entry : best));
    return { found: true, login: longest.login };
  }

  /** The moment (epoch ms) the credential is refused from, as verification judges it (claims.ts, checkClaims). */
  private endOf({ expiresAt, issuedAt, maxAge }: LoginRecord): { liveUntil: number; tooOldFirst: boolean } {
    const expiry = expiresAt === undefined ? Infinity : expiresAt + this.tolerance;
    const tooOldFrom = maxAge === undefined || issuedAt === undefined ? Infinity : issuedAt + maxAge + this.tolerance;
    return { liveUntil: Math.min(expiry, tooOldFrom) * 1000, tooOldFirst: tooOldFrom < expiry };
  }

  /** Forgets an entry, and its name with its last entry only when it `ended`: the identities seen stay till then. */
  private drop(key: string, ended: boolean): void {
    const entry = this.entries.get(key);
    if (entry === undefined) return;
    this.entries.delete(key);
    const name = this.names.get(entry.login.user);
    name?.entries.delete(key);
    if (ended && name?.entries.size === 0) this.names.delete(entry.login.user);
  }

  private sweepIfDue(now: number): void {
    if (now - this.sweptAt >= SWEEP_INTERVAL_MS) this.sweep(now);
  }

  private sweep(now: number): void {
    this.sweptAt = now;
    for (const entry of [...this.entries.values()]) if (entry.liveUntil <= now) this.drop(entry.key, true);
  }

  /** The kind, the subject and a digest of the context without its per-token claims (inside namespaces too). */
  private identityOf(login: LoginRecord): string {
    const namespaces = new Set(this.options.namespaces ?? []);
    const lasting = (value: Record<string, unknown>, top: boolean): Record<string, unknown> =>
      Object.fromEntries(
        Object.entries(value)
          .filter(([name]) => !this.ignored.has(name))
          .map(([name, member]) => [
            name,
            top && namespaces.has(name) && isObject(member) ? lasting(member, false) : member,
          ]),
      );
    const context = createHash('sha256')
      .update(canonicalJson(lasting(login.securityContext, true)))
      .digest('base64');
    return `${login.kind ?? 'token'}\n${subjectOf(login)}\n${context}`;
  }
}

const subjectOf = (login: LoginRecord): string => login.subject ?? login.user;

/** Adds to a set kept at two members at most: enough to tell one from several. */
function addBounded(set: Set<string>, value: string): void {
  if (set.size < 2) set.add(value);
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
