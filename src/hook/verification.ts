/**
 * Verification by jsonwebtoken: signature, `exp`, `nbf`, `aud`, `iss`, `sub` and the maximum age, with a key
 * prepared once as a `KeyObject`, judged fit for the algorithm first, and the algorithm pinned by the path. Every
 * error it throws is mapped onto a stable code and our own message, so no text of the library reaches a caller.
 */
import type { KeyObject } from 'node:crypto';
import { JsonWebTokenError, NotBeforeError, TokenExpiredError, verify, type VerifyOptions } from 'jsonwebtoken';
import { algorithmFacts, type Algorithm } from '../algorithms';
import { checkClaims, claimRejections, jsonwebtokenChecks, type ClaimPolicy } from './claims';
import { DualAuthError, quote } from '../errors';
import { keyMisfit, type KeyMisfit } from '../keys/key-facts';
import { malformed, type DecodedToken } from './token';

type Payload = Record<string, unknown>;

/** A path's rejection of a token whose signature does not match the key. */
type SignatureRejection = (token: DecodedToken) => DualAuthError;
/** A path's rejection of a key that may not verify the token's algorithm, and why ({@link keyMisfit}). */
type MisfitRejection = (token: DecodedToken, misfit: KeyMisfit) => DualAuthError;

type Meaning = (token: DecodedToken, policy: ClaimPolicy, invalidSignature: SignatureRejection) => DualAuthError;

const INVALID_SIGNATURE = 'invalid signature';

const notCompact = (path: ClaimPolicy['path']): DualAuthError => malformed('not a compact JWS', path);

/**
 * The messages of jsonwebtoken 9 the mapping reads where one error class stands for several failures, matched whole or
 * by `prefix`. Its test makes the installed jsonwebtoken say each, so a rewording fails CI, not a refusal.
 */
export const JSONWEBTOKEN_MESSAGES: readonly {
  readonly error: new (...args: never[]) => JsonWebTokenError;
  readonly text: string;
  readonly prefix?: true;
  readonly means: Meaning;
}[] = [
  {
    error: TokenExpiredError,
    text: 'maxAge exceeded',
    means: (token, policy) => claimRejections.tooOld(token.payload, policy),
  },
  { error: JsonWebTokenError, text: INVALID_SIGNATURE, means: (token, _, invalidSignature) => invalidSignature(token) },
  {
    error: JsonWebTokenError,
    text: 'invalid exp value',
    means: (_, policy) => claimRejections.notNumericDate('exp', policy),
  },
  {
    error: JsonWebTokenError,
    text: 'invalid nbf value',
    means: (_, policy) => claimRejections.notNumericDate('nbf', policy),
  },
  {
    error: JsonWebTokenError,
    text: 'iat required when maxAge is specified',
    means: (token, policy) => claimRejections.iatRequired(token.payload, policy),
  },
  {
    error: JsonWebTokenError,
    text: 'jwt audience invalid',
    prefix: true,
    means: (token, policy) => claimRejections.audience(token.payload, policy),
  },
  {
    error: JsonWebTokenError,
    text: 'jwt issuer invalid',
    prefix: true,
    means: (token, policy) => claimRejections.issuer(token.payload, policy),
  },
  {
    error: JsonWebTokenError,
    text: 'jwt subject invalid',
    prefix: true,
    means: (token, policy) => claimRejections.subject(token.payload, policy),
  },
  // The token's form, which decoding has vetted before: should jsonwebtoken still find fault with it, it is malformed.
  { error: JsonWebTokenError, text: 'jwt malformed', means: (_, { path }) => notCompact(path) },
  { error: JsonWebTokenError, text: 'invalid token', means: (_, { path }) => notCompact(path) },
  { error: JsonWebTokenError, text: 'jwt signature is required', means: (_, { path }) => notCompact(path) },
];

/** Verifies tokens of one algorithm for one path's claim policy. */
export class TokenVerifier {
  /** jsonwebtoken's options: only `clockTimestamp` changes, set just before the synchronous `verify` copies them. */
  private readonly options: VerifyOptions & { clockTimestamp: number };
  /**
   * The only length a signature of this algorithm can have, checked here: jsonwebtoken's ECDSA check throws a
   * `TypeError` for any other length instead of saying the signature is invalid.
   */
  private readonly signatureLength: number | undefined;

  /**
   * @param alg the one algorithm accepted (the path has already matched the token's header against it)
   * @param policy the claims to check
   * @param invalidSignature the path's own rejection for a signature that does not match
   * @param misfitKey the path's own rejection for a key that may not verify `alg`; without one, the key is not named
   */
  constructor(
    private readonly alg: Algorithm,
    private readonly policy: ClaimPolicy,
    private readonly invalidSignature: SignatureRejection,
    private readonly misfitKey?: MisfitRejection,
  ) {
    this.signatureLength = algorithmFacts(alg)?.signatureLength;
    this.options = { ...jsonwebtokenChecks(policy), algorithms: [alg], clockTimestamp: 0 };
  }

  /**
   * Verifies `token` with `key` at `nowMs` (epoch ms). Returns the verified payload (jsonwebtoken's own parse) and
   * the moment (epoch ms) from which the token must be refused; throws a {@link DualAuthError}, or the library's
   * error when it is none that jsonwebtoken documents.
   */
  verify(
    token: DecodedToken,
    key: KeyObject,
    nowMs: number,
  ): { readonly payload: Payload; readonly refusedFrom: number } {
    const misfit = keyMisfit(key, this.alg);
    if (misfit !== undefined) {
      throw (
        this.misfitKey?.(token, misfit) ??
        new DualAuthError(
          'ERR_ALG_NOT_ALLOWED',
          `Algorithm ${quote(this.alg)} cannot be verified with this key`,
          this.policy.path,
        )
      );
    }
    const nowSeconds = nowMs / 1000;
    this.options.clockTimestamp = nowSeconds;
    let payload: unknown;
    try {
      if (this.signatureLength !== undefined && token.signatureLength !== this.signatureLength)
        throw new JsonWebTokenError(INVALID_SIGNATURE);
      payload = verify(token.raw, key, this.options);
    } catch (error) {
      throw this.rejection(error, token);
    }
    // A payload that opened like an object but was not valid JSON comes back from jsonwebtoken as a string.
    if (typeof payload !== 'object' || payload === null || Array.isArray(payload))
      throw token.malformation() ?? notCompact(this.policy.path);
    return { payload: payload as Payload, refusedFrom: checkClaims(payload as Payload, this.policy, nowSeconds) };
  }

  private rejection(error: unknown, token: DecodedToken): unknown {
    // The token's own faults first: the library reports a malformed token as whatever check it failed.
    const malformation = token.malformation();
    if (malformation) return malformation;
    if (error instanceof NotBeforeError) return claimRejections.notYetValid(token.payload, this.policy);
    if (!(error instanceof JsonWebTokenError)) return error;
    const { message } = error;
    const known = JSONWEBTOKEN_MESSAGES.find(
      ({ error: type, text, prefix }) =>
        error instanceof type && (prefix ? message.startsWith(text) : message === text),
    );
    if (known) return known.means(token, this.policy, this.invalidSignature);
    // A `TokenExpiredError` that is not the maximum age's is `exp`'s.
    return error instanceof TokenExpiredError ? claimRejections.expired(token.payload, this.policy) : error;
  }
}
