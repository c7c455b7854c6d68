/**
 * Verification by jsonwebtoken: signature, `exp`, `nbf`, `aud`, `iss`, `sub` and the maximum age, with a key
 * prepared once as a `KeyObject` and the algorithm pinned by the path. Every error it throws is mapped onto a
 * stable code and our own message, so no text of the library reaches a caller.
 */
import type { KeyObject } from 'node:crypto';
import { JsonWebTokenError, NotBeforeError, TokenExpiredError, verify, type Algorithm, type VerifyOptions } from 'jsonwebtoken';
import { checkClaims, claimRejections, type ClaimPolicy } from './claims';
import { DualAuthError, quote } from '../errors';
import type { DecodedToken } from './token';

type Payload = Record<string, unknown>;
type Mapping = (payload: Payload, policy: ClaimPolicy, alg: string) => DualAuthError;

const malformed: Mapping = (_, { path }) => new DualAuthError('ERR_TOKEN_MALFORMED', 'Malformed token: not a compact JWS', path);
const unfitKey: Mapping = (_, { path }, alg) => new DualAuthError('ERR_ALG_NOT_ALLOWED', `Algorithm ${quote(alg)} cannot be verified with this key`, path);

/** jsonwebtoken 9's `JsonWebTokenError` messages, each with the rejection it means. */
const BY_MESSAGE: ReadonlyMap<string, Mapping> = new Map<string, Mapping>([
  ['invalid exp value', (_, policy) => claimRejections.notNumericDate('exp', policy)],
  ['invalid nbf value', (_, policy) => claimRejections.notNumericDate('nbf', policy)],
  [
    'iat required when maxAge is specified',
    (payload, policy) => (payload.iat === undefined ? claimRejections.iatMissing(policy) : claimRejections.notNumericDate('iat', policy)),
  ],
  ['invalid algorithm', unfitKey],
  ['jwt malformed', malformed],
  ['invalid token', malformed],
  ['jwt signature is required', malformed],
]);

/** Messages that jsonwebtoken completes with the expected values. */
const BY_PREFIX: readonly (readonly [string, Mapping])[] = [
  ['jwt audience invalid', claimRejections.audience],
  ['jwt issuer invalid', claimRejections.issuer],
  ['jwt subject invalid', claimRejections.subject],
  ['secretOrPublicKey must be', unfitKey],
];

/**
 * Characters of an ECDSA signature's base64url text (RFC 7518 3.4: R and S side by side, each as long as the curve's
 * order, 32, 48 and 66 bytes). jsonwebtoken's ECDSA check throws a `TypeError` for any other length instead of
 * saying the signature is invalid, so the length is checked here first.
 */
const ECDSA_SIGNATURE_LENGTH: Readonly<Partial<Record<Algorithm, number>>> = { ES256: 86, ES384: 128, ES512: 176 };

/** Verifies tokens of one algorithm for one path's claim policy. */
export class TokenVerifier {
  /**
   * jsonwebtoken's options. Only `clockTimestamp` changes per call: set just before the synchronous `verify`,
   * which copies its options first, so one object serves every request without an allocation.
   */
  private readonly options: VerifyOptions & { clockTimestamp: number };
  /** The only length a signature of this algorithm can have, where jsonwebtoken would fail on another. */
  private readonly signatureLength: number | undefined;

  /**
   * @param alg the one algorithm accepted (the path has already matched the token's header against it)
   * @param policy the claims to check
   * @param invalidSignature the path's own rejection for a signature that does not match
   */
  constructor(
    private readonly alg: Algorithm,
    private readonly policy: ClaimPolicy,
    private readonly invalidSignature: (token: DecodedToken) => DualAuthError,
  ) {
    const { audience, issuer, subject, maxTokenAge, clockTolerance } = policy;
    this.signatureLength = ECDSA_SIGNATURE_LENGTH[alg];
    this.options = {
      algorithms: [alg],
      clockTolerance,
      clockTimestamp: 0,
      ...(audience && { audience: audience as [string] }),
      ...(issuer && { issuer: issuer as [string] }),
      ...(subject !== undefined && { subject }),
      ...(maxTokenAge !== undefined && { maxAge: maxTokenAge }),
    };
  }

  /**
   * Verifies `token` with `key` at `nowMs` (epoch ms). Returns the verified payload (jsonwebtoken's own parse) and
   * the moment (epoch ms) from which the token must be refused; throws a {@link DualAuthError}, or the library's
   * error when it is none that jsonwebtoken documents.
   */
  verify(token: DecodedToken, key: KeyObject, nowMs: number): { readonly payload: Payload; readonly refusedFrom: number } {
    const nowSeconds = nowMs / 1000;
    this.options.clockTimestamp = nowSeconds;
    let payload: unknown;
    try {
      if (this.signatureLength !== undefined && token.signatureLength !== this.signatureLength) throw new JsonWebTokenError('invalid signature');
      payload = verify(token.raw, key, this.options);
    } catch (error) {
      throw this.rejection(error, token);
    }
    // A payload that opened like an object but was not valid JSON comes back from jsonwebtoken as a string.
    if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) throw token.malformation() ?? malformed({}, this.policy, this.alg);
    return { payload: payload as Payload, refusedFrom: checkClaims(payload as Payload, this.policy, nowSeconds) };
  }

  private rejection(error: unknown, token: DecodedToken): unknown {
    // The token's own faults first: the library reports a malformed token as whatever check it failed.
    const malformation = token.malformation();
    if (malformation) return malformation;
    const { payload } = token;
    if (error instanceof TokenExpiredError) {
      return error.message === 'maxAge exceeded' ? claimRejections.tooOld(payload, this.policy) : claimRejections.expired(payload, this.policy);
    }
    if (error instanceof NotBeforeError) return claimRejections.notYetValid(payload, this.policy);
    if (!(error instanceof JsonWebTokenError)) return error;
    if (error.message === 'invalid signature') return this.invalidSignature(token);
    const mapping = BY_MESSAGE.get(error.message) ?? BY_PREFIX.find(([prefix]) => error.message.startsWith(prefix))?.[1];
    return mapping ? mapping(payload, this.policy, this.alg) : error;
  }
}
