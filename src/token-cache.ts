import type { AuthPath } from './errors';

interface Entry {
  readonly path: AuthPath;
  readonly context: Record<string, unknown>;
  readonly kid: string | undefined;
  /** Epoch ms after which the entry must not answer. */
  readonly validUntil: number;
}

/** What a hit returns: a private copy of the security context, and the kid that verified it. */
export interface CachedVerification {
  readonly context: Record<string, unknown>;
  readonly kid: string | undefined;
}

/**
 * Copies the JSON-shaped parts of a security context so a caller's changes never reach the cache. Plain objects
 * and arrays are copied; anything else a `securityContext` function put there (a Date, a class instance) is shared.
 */
function copy<T>(value: T): T {
  if (Array.isArray(value)) return value.map(copy) as T;
  if (typeof value !== 'object' || value === null || Object.getPrototypeOf(value) !== Object.prototype) return value;
  const out: Record<string, unknown> = {};
  for (const key in value) out[key] = copy((value as Record<string, unknown>)[key]);
  return out as T;
}

/**
 * Verified tokens, keyed by the whole token string (signature included), least recently used evicted first.
 * An entry answers only on the path that verified it and only until the earliest of: the token's `exp` (plus the
 * clock tolerance the verification allowed), its maximum age by `iat`, and the cache's own maximum age.
 */
export class TokenCache {
  private readonly entries = new Map<string, Entry>();

  /**
   * @param maxEntries most tokens kept; the least recently used is dropped beyond it
   * @param maxAgeMs longest an entry answers, whatever the token's `exp`
   */
  constructor(
    private readonly maxEntries: number,
    private readonly maxAgeMs: number,
  ) {}

  get size(): number {
    return this.entries.size;
  }

  /** A hit re-checks expiry against `now` (epoch ms) and refreshes the entry's recency. */
  get(token: string, path: AuthPath, now: number): CachedVerification | undefined {
    const entry = this.entries.get(token);
    if (entry === undefined || entry.path !== path) return undefined;
    this.entries.delete(token);
    if (now >= entry.validUntil) return undefined;
    this.entries.set(token, entry);
    return { context: copy(entry.context), kid: entry.kid };
  }

  /**
   * Remembers a verified token. `expiresAt` is the epoch ms at which verification itself would start refusing it
   * (Infinity when the token never expires).
   */
  set(token: string, path: AuthPath, context: Record<string, unknown>, kid: string | undefined, expiresAt: number, now: number): void {
    const validUntil = Math.min(expiresAt, now + this.maxAgeMs);
    if (validUntil <= now) return;
    this.entries.delete(token);
    this.entries.set(token, { path, context: copy(context), kid, validUntil });
    if (this.entries.size > this.maxEntries) {
      const oldest = this.entries.keys().next().value as string;
      this.entries.delete(oldest);
    }
  }

  /** Forgets key-set tokens verified by a key that the JWKS no longer has (rotation), so they are verified again. */
  forgetKeysOtherThan(kids: readonly string[]): void {
    const kept = new Set(kids);
    for (const [token, entry] of this.entries) {
      if (entry.kid !== undefined && !kept.has(entry.kid)) this.entries.delete(token);
    }
  }
}
