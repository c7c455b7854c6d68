import type { AuthPath } from '../errors';
import type { ProviderChoice, Verified } from './paths/path';
import { decodeToken, own } from './token';

interface Entry {
  /** The verified token: an entry answers for exactly this text. */
  readonly token: string;
  readonly path: AuthPath;
  /** A private copy of the context; undefined until asked for, since most tokens are seen once and the token has it. */
  context: Record<string, unknown> | undefined;
  /** With no context kept yet: the claim of the payload that is the security context, if not the whole payload. */
  readonly claim: string | undefined;
  readonly kid: string | undefined;
  /** Thumbprint of the key (key-set path) or API secret (shared-secret path) that verified the token. */
  readonly thumbprint: string | undefined;
  readonly provider: ProviderChoice | undefined;
  /** Epoch ms after which the entry must not answer. */
  readonly validUntil: number;
}

/** What a hit returns: a private copy of the security context, and the kid and identity provider that verified it. */
interface CachedVerification {
  readonly context: Record<string, unknown>;
  readonly kid: string | undefined;
  readonly provider: ProviderChoice | undefined;
}

/** What the cache keeps of a verification besides the context. */
type Remembered = Pick<Verified, 'refusedFrom'> &
  Partial<Pick<Verified, 'kid' | 'thumbprint' | 'provider' | 'claimsNamespace'>>;

type Container = Record<string, unknown> | unknown[];

/** A new empty container like `value` (array, or object of its prototype); undefined when `value` is shared as is. */
function emptyLike(value: unknown): Container | undefined {
  if (Array.isArray(value)) return new Array<unknown>(value.length);
  if (typeof value !== 'object' || value === null) return undefined;
  const prototype: unknown = Object.getPrototypeOf(value);
  if (prototype === Object.prototype) return {};
  return prototype === null ? (Object.create(null) as Record<string, unknown>) : undefined;
}

/** Sets a member as JSON.parse does: an own `"__proto__"` key stays a key and never replaces the prototype. */
function define(target: Container, key: string, value: unknown): void {
  if (key === '__proto__')
    Object.defineProperty(target, key, { value, writable: true, enumerable: true, configurable: true });
  else (target as Record<string, unknown>)[key] = value;
}

/**
 * A private copy of a security context, indistinguishable from the original for every JSON value (own `"__proto__"`
 * keys, null prototypes); anything else is shared. Iterative, so deep nesting cannot overflow the stack.
 */
function copy<T>(value: T): T {
  const top = emptyLike(value);
  if (top === undefined) return value;
  const work: [Container, Container][] = [[value as Container, top]];
  for (let item = work.pop(); item !== undefined; item = work.pop()) {
    const [source, target] = item;
    for (const key of Object.keys(source)) {
      const member = (source as Record<string, unknown>)[key];
      const inner = emptyLike(member);
      define(target, key, inner ?? member);
      if (inner !== undefined) work.push([member as Container, inner]);
    }
  }
  return top as T;
}

/** The security context a verified token's payload gives: decoded from the token as verification decoded it. */
function payloadContext(token: string, claim: string | undefined): Record<string, unknown> {
  const { payload } = decodeToken(token);
  return claim === undefined ? payload : (own(payload, claim) as Record<string, unknown>);
}

/**
 * The number a token is filed under: its length and the end of its signature, so no lookup hashes a whole new string.
 * Two tokens may share one: an entry answers only for its own token, and the newer replaces the older.
 */
function fingerprint(token: string): number {
  let hash = token.length;
  for (let i = Math.max(0, token.length - 8); i < token.length; i++)
    hash = (Math.imul(hash, 31) + token.charCodeAt(i)) | 0;
  // 30 bits: a small integer, which V8 keeps unboxed.
  return hash & 0x3fffffff;
}

/**
 * Verified tokens by the whole token string, answering only on their path until `exp`, the maximum age or the cache's
 * own; least recently used dropped first, in two generations (docs/performance.md#the-verified-token-cache).
 */
export class TokenCache {
  private current = new Map<number, Entry>();
  private previous = new Map<number, Entry>();
  private readonly generationSize: number;

  /**
   * @param maxEntries most tokens kept
   * @param maxAgeMs longest an entry answers, whatever the token's `exp`
   */
  constructor(
    maxEntries: number,
    private readonly maxAgeMs: number,
  ) {
    this.generationSize = Math.max(1, Math.floor(maxEntries / 2));
  }

  get size(): number {
    return this.current.size + this.previous.size;
  }

  /** A hit re-checks expiry against `now` (epoch ms). */
  get(token: string, path: AuthPath, now: number): CachedVerification | undefined {
    const number = fingerprint(token);
    let entry = this.current.get(number);
    if (entry?.token !== token) {
      entry = this.previous.get(number);
      if (entry?.token !== token) return undefined;
      this.previous.delete(number);
      if (now < entry.validUntil) this.add(number, entry);
    }
    if (entry.path !== path) return undefined;
    if (now >= entry.validUntil) {
      if (this.current.get(number) === entry) this.current.delete(number);
      return undefined;
    }
    entry.context ??= payloadContext(token, entry.claim);
    return { context: copy(entry.context), kid: entry.kid, provider: entry.provider };
  }

  /**
   * Remembers a verified token until `verified.refusedFrom` or the cache's maximum age from `now`, whichever is first.
   * @param shaped the context a `securityContext` function made (a copy is kept); else the payload or its namespace
   */
  set(token: string, path: AuthPath, verified: Remembered, now: number, shaped?: Record<string, unknown>): void {
    const validUntil = Math.min(verified.refusedFrom, now + this.maxAgeMs);
    if (validUntil <= now) return;
    const { kid, thumbprint, provider, claimsNamespace: claim } = verified;
    this.add(fingerprint(token), {
      token,
      path,
      context: shaped && copy(shaped),
      claim,
      kid,
      thumbprint,
      provider,
      validUntil,
    });
  }

  /** Forgets tokens verified by a key the key set no longer has, judged by the key, not its `kid` (rotation). */
  forgetKeysOtherThan(thumbprints: ReadonlySet<string>): void {
    this.forgetOtherThan('key-set', thumbprints);
  }

  /**
   * Forgets the tokens of `path` verified by a key or secret whose thumbprint is not in `thumbprints`: a secret removed
   * from the secrets directory verifies nothing more, from the cache neither. Returns how many were dropped.
   */
  forgetOtherThan(path: AuthPath, thumbprints: ReadonlySet<string>): number {
    let dropped = 0;
    for (const generation of [this.current, this.previous]) {
      for (const [number, entry] of generation)
        if (entry.path === path && entry.thumbprint !== undefined && !thumbprints.has(entry.thumbprint)) {
          generation.delete(number);
          dropped += 1;
        }
    }
    return dropped;
  }

  private add(number: number, entry: Entry): void {
    if (this.current.size >= this.generationSize && !this.current.has(number)) {
      this.previous = this.current;
      this.current = new Map();
    }
    this.current.set(number, entry);
  }
}
