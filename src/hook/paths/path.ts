import type { DecodedToken } from '../token';

/** What a path makes of a token it verified. */
export interface Verified {
  /** The security context before any `securityContext` function: the payload, or its namespace claim. */
  readonly context: Record<string, unknown>;
  /** The whole verified payload. */
  readonly payload: Record<string, unknown>;
  /** `kid` of the key that verified the token (key-set path only). */
  readonly kid: string | undefined;
  /** Thumbprint of that key itself: a key replaced under the same `kid` is another key. */
  readonly thumbprint?: string;
  /** Epoch ms from which verification would refuse the token (Infinity when never): the cache answers until then. */
  readonly refusedFrom: number;
  /** The identity provider that verified the token (key-set path only). */
  readonly provider?: ProviderChoice;
  /** The claim that held the security context (key-set path only, when one is set). */
  readonly claimsNamespace?: string;
}

/** The identity provider chosen for a token, and why, as `explain` reports it. */
export interface ProviderChoice {
  /** Its place among the configured identity providers (0 when there is one). */
  readonly index: number;
  /** Its issuer, when one is configured. */
  readonly issuer: string | undefined;
  /** Its configured JWKS URL; undefined when discovered from the issuer. */
  readonly jwksUri: string | undefined;
  /** Why tokens go to it. */
  readonly reason: string;
}

/** One way of verifying a token: synchronous unless keys are fetched; refuses with a `DualAuthError`. */
export interface VerificationPath {
  /** @param now epoch ms the request is judged at; a path that has to wait for keys judges at the time they arrive */
  verify(token: DecodedToken, now: number): Verified | Promise<Verified>;
}
