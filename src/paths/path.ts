import type { AuthPath } from '../errors';
import type { DecodedToken } from '../token';

/** What a path makes of a token it verified. */
export interface Verified {
  /** The security context before any `securityContext` function: the payload, or on the key-set path its namespace claim. */
  readonly context: Record<string, unknown>;
  /** The whole verified payload. */
  readonly payload: Record<string, unknown>;
  /** `kid` of the key that verified the token (key-set path only). */
  readonly kid: string | undefined;
  /** Thumbprint of that key itself: a key replaced under the same `kid` is another key. */
  readonly key?: string;
  /** Epoch ms from which verification would refuse the token (Infinity when never): the cache answers until then. */
  readonly refusedFrom: number;
}

/**
 * One way of verifying a token. Answers synchronously when nothing has to be fetched, else with a promise;
 * a refusal is a thrown (or rejected) `DualAuthError`.
 */
export interface VerificationPath {
  readonly name: AuthPath;
  verify(token: DecodedToken): Verified | Promise<Verified>;
}
