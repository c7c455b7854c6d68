import type { AuthPath } from './errors';
import type { ProviderChoice, Verified } from './paths/path';

/**
 * A verified payload kept as its JSON text, with the claim that is the security context when a claims namespace
 * applies. Each hit parses it anew: the answer is exactly what verification gave, private to the request, and
 * storing it costs no copy (most tokens are seen once).
 */
export class PayloadJson {
  constructor(
    readonly text: string,
    readonly claim?: string,
  ) {}

  context(): Record<string, unknown> {
    const payload = JSON.parse(this.text) as Record<string, unknown>;
    return this.claim === undefined ? payload : (payload[this.claim] as Record<string, unknown>);
  }
}

interface Entry {
  readonly path: AuthPath;
  /** The payload's text, or a private copy of what a `securityContext` function returned. */
  readonly context: PayloadJson | Record<string, unknown>;
  readonly kid: string | undefined;
  /** Thumbprint of the key that verified the token (key-set path). */
  readonly key: string | undefined;
  readonly provider: ProviderChoice | undefined;
  /** Epoch ms after which the entry must not answer. */
  readonly validUntil: number;
}

/** What a hit returns: a private copy of the security context, and the kid and identity provider that verified it. */
export interface CachedVerification {
  readonly context: Record<string, unknown>;
  readonly kid: string | undefined;
  readonly provider: ProviderChoice | undefined;
}

/** What the cache keeps of a verification besides the context. */
export type Remembered = Pick<Verified, 'refusedFrom'> & Partial<Pick<Verified, 'kid' | 'key' | 'provider'>>;

type Container = Record<string, unknown> | unknown[];

/** A new empty container like `value` (array, or plain object with the same prototype), or undefined when `value` is shared as it is. */
function emptyLike(value: unknown): Container | undefined {
  if (Array.isArray(value)) return new Array<unknown>(value.length);
  if (typeof value !== 'object' || value === null) return undefined;
  const prototype: unknown = Object.getPrototypeOf(value);
  if (prototype === Object.prototype) return {};
  return prototype === null ? (Object.create(null) as Record<string, unknown>) : undefined;
}

/** Sets a member as JSON.parse does: an own `"__proto__"` key stays a key and never replaces the prototype. */
function define(target: Container, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(target, key, { value, writable: true, enumerable: true, configurable: true });
  else (target as Record<string, unknown>)[key] = value;
}

/**
 * A private copy of a security context, indistinguishable from the original for every JSON value: arrays and plain
 * objects (null-prototype ones too) are copied member by member in order, own `"__proto__"` keys included; anything
 * else a `securityContext` function put there (a Date, a class instance) is shared. Iterative, so a payload nested
 * thousands of levels deep (a token may be 16 KiB) is copied, not a stack overflow.
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

/**
 * Verified tokens, keyed by the whole token string (signature included), the least recently used dropped first.
 * An entry answers only on the path that verified it and only until the earliest of: the token's `exp` (plus the
 * clock tolerance the verification allowed), its maximum age by `iat`, and the cache's own maximum age.
 *
 * Two generations of half the size each, as in quick-lru: a hit in the older one moves the entry to the newer one,
 * and a full newer generation replaces the older one whole. Evicting one entry at a time from a single `Map` would
 * walk the holes that deletions leave at its front, which made every miss under churn cost microseconds.
 */
export class TokenCache {
  private current = new Map<string, Entry>();
  private previous = new Map<string, Entry>();
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
    let entry = this.current.get(token);
    if (entry === undefined) {
      entry = this.previous.get(token);
      if (entry === undefined) return undefined;
      this.previous.delete(token);
      if (now < entry.validUntil) this.add(token, entry);
    }
    if (entry.path !== path) return undefined;
    if (now >= entry.validUntil) {
      this.current.delete(token);
      return undefined;
    }
    const { context } = entry;
    return { context: context instanceof PayloadJson ? context.context() : copy(context), kid: entry.kid, provider: entry.provider };
  }

  /**
   * Remembers a verified token until `verified.refusedFrom`, the epoch ms at which verification itself would start
   * refusing it (Infinity when never), or the cache's maximum age from `now`, whichever comes first.
   */
  set(token: string, path: AuthPath, context: PayloadJson | Record<string, unknown>, verified: Remembered, now: number): void {
    const validUntil = Math.min(verified.refusedFrom, now + this.maxAgeMs);
    if (validUntil <= now) return;
    const { kid, key, provider } = verified;
    this.add(token, { path, context: context instanceof PayloadJson ? context : copy(context), kid, key, provider, validUntil });
  }

  /**
   * Forgets tokens verified by a key the key set no longer has (rotation), judged by the key itself: a key replaced
   * under the same `kid` takes the tokens it verified with it.
   */
  forgetKeysOtherThan(keys: ReadonlySet<string>): void {
    for (const generation of [this.current, this.previous]) {
      for (const [token, entry] of generation) {
        if (entry.key !== undefined && !keys.has(entry.key)) generation.delete(token);
      }
    }
  }

  private add(token: string, entry: Entry): void {
    if (this.current.size >= this.generationSize && !this.current.has(token)) {
      this.previous = this.current;
      this.current = new Map();
    }
    this.current.set(token, entry);
  }
}
