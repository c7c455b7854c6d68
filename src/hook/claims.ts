/**
 * Registered claims, in one place: the policy each path applies, the checks left to jsonwebtoken (as its options),
 * the rules it does not have, and the rejections (messages) for every claim failure, whoever found it.
 * verification.ts maps jsonwebtoken's errors onto the rejections made here.
 */
import type { VerifyOptions } from 'jsonwebtoken';
import type { ResolvedOptions } from '../config/options';
import { DualAuthError, quote, type AuthPath } from '../errors';
import type { IdentityProvider } from '../config/identity-providers';
import { own, ownValue } from './token';

/** The registered-claim checks one path applies. */
export interface ClaimPolicy {
  readonly path: AuthPath;
  /** Seconds of allowed clock skew. */
  readonly clockTolerance: number;
  readonly maxTokenAge: number | undefined;
  readonly audience: readonly string[] | undefined;
  readonly issuer: readonly string[] | undefined;
  readonly subject: string | undefined;
}

/**
 * The shared-secret path checks times only; audience, issuer and subject describe an identity provider's tokens, so
 * the key-set path passes the provider that verifies them.
 */
export function claimPolicy(options: ResolvedOptions, provider?: IdentityProvider): ClaimPolicy {
  const { clockTolerance, maxTokenAge } = options;
  if (provider === undefined)
    return {
      path: 'shared-secret',
      clockTolerance,
      maxTokenAge,
      audience: undefined,
      issuer: undefined,
      subject: undefined,
    };
  return {
    path: 'key-set',
    clockTolerance,
    maxTokenAge,
    audience: provider.audience,
    issuer: provider.issuers,
    subject: provider.subject,
  };
}

/**
 * What jsonwebtoken checks for the policy: `exp` and `nbf` when present, with the clock tolerance, `aud`, `iss` and
 * `sub` when the policy names them, and the age by `iat` under a maximum. The clock is the verifier's, per call.
 */
export function jsonwebtokenChecks(policy: ClaimPolicy): VerifyOptions {
  const { audience, issuer, subject, maxTokenAge, clockTolerance } = policy;
  return {
    clockTolerance,
    ...(audience && { audience: audience as [string] }),
    ...(issuer && { issuer: issuer as [string] }),
    ...(subject !== undefined && { subject }),
    ...(maxTokenAge !== undefined && { maxAge: maxTokenAge }),
  };
}

type TimeClaim = 'exp' | 'nbf' | 'iat';

function iso(seconds: unknown): string {
  const date = new Date(Number(seconds) * 1000);
  return Number.isNaN(date.getTime()) ? String(seconds) : date.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

function notNumericDate(claim: TimeClaim, { path }: ClaimPolicy): DualAuthError {
  return new DualAuthError('ERR_CLAIM_INVALID', `Claim "${claim}" must be a number of seconds since 1970`, path);
}

/**
 * The rejection for each claim failure, whoever found it. Times are named from the token's own claims, not from the
 * dates on jsonwebtoken's errors: a Date holds no time beyond 8.64e15 ms either side of 1970, and a claim such as
 * `"exp": -1e300`, which jsonwebtoken finds expired, is still named as the token has it.
 */
export const claimRejections = {
  expired: (payload: Record<string, unknown>, { path }: ClaimPolicy) =>
    new DualAuthError('ERR_TOKEN_EXPIRED', `Token expired at ${iso(own(payload, 'exp'))}`, path),
  notYetValid: (payload: Record<string, unknown>, { path }: ClaimPolicy) =>
    new DualAuthError('ERR_TOKEN_NOT_YET_VALID', `Token not valid before ${iso(own(payload, 'nbf'))}`, path),
  tooOld: (payload: Record<string, unknown>, { path, maxTokenAge }: ClaimPolicy) => {
    const issued = `Token issued at ${iso(own(payload, 'iat'))} is older than`;
    return new DualAuthError(
      'ERR_TOKEN_TOO_OLD',
      `${issued} this deployment accepts`,
      path,
      `${issued} the maximum age of ${maxTokenAge} s`,
    );
  },
  notNumericDate,
  /** jsonwebtoken needs a numeric `iat` under a maximum age: missing, or not a number. */
  iatRequired: (payload: Record<string, unknown>, policy: ClaimPolicy) =>
    own(payload, 'iat') === undefined
      ? new DualAuthError(
          'ERR_CLAIM_INVALID',
          'Claim "iat" is required: tokens older than the maximum token age are refused',
          policy.path,
        )
      : notNumericDate('iat', policy),
  iatInFuture: (payload: Record<string, unknown>, { path }: ClaimPolicy) =>
    new DualAuthError(
      'ERR_CLAIM_INVALID',
      `Claim "iat" is in the future (${iso(own(payload, 'iat'))}): the issuer's clock is ahead`,
      path,
    ),
  notString: (claim: 'iss' | 'sub', { path }: ClaimPolicy) =>
    new DualAuthError('ERR_CLAIM_INVALID', `Claim "${claim}" must be a single string`, path),
  audience: (payload: Record<string, unknown>, policy: ClaimPolicy) =>
    mismatch('aud', own(payload, 'aud'), policy.audience, policy.path),
  issuer: (payload: Record<string, unknown>, policy: ClaimPolicy) =>
    mismatch('iss', own(payload, 'iss'), policy.issuer, policy.path),
  subject: (payload: Record<string, unknown>, policy: ClaimPolicy) =>
    mismatch('sub', own(payload, 'sub'), policy.subject === undefined ? undefined : [policy.subject], policy.path),
};

const MISMATCH = {
  aud: ['ERR_AUDIENCE_MISMATCH', 'Audience'],
  iss: ['ERR_ISSUER_MISMATCH', 'Issuer'],
  sub: ['ERR_SUBJECT_MISMATCH', 'Subject'],
} as const;

function mismatch(
  claim: keyof typeof MISMATCH,
  actual: unknown,
  expected: readonly string[] = [],
  path: AuthPath,
): DualAuthError {
  const [code, label] = MISMATCH[claim];
  const got = actual === undefined ? 'the token has none' : `the token has ${quote(actual)}`;
  return new DualAuthError(
    code,
    `${label} mismatch: ${got}, which this deployment does not accept`,
    path,
    `${label} mismatch: expected ${expected.map((e) => JSON.stringify(e)).join(' or ')}, ${got}`,
  );
}

/**
 * The claim rules jsonwebtoken lacks, at `nowSeconds` (docs/security.md, "How a request is verified", step 6).
 * Returns the epoch ms from which verification refuses the token, Infinity when nothing expires it: the cache's end.
 */
export function checkClaims(payload: Record<string, unknown>, policy: ClaimPolicy, nowSeconds: number): number {
  // Read by name here, where V8 reads them as fields of the payload's shape (see ownValue).
  const { exp: expRead, nbf, iat: iatRead, iss, sub } = payload;
  const exp = numericDate(payload, 'exp', expRead, policy);
  numericDate(payload, 'nbf', nbf, policy);
  const iat = numericDate(payload, 'iat', iatRead, policy);
  const { clockTolerance, maxTokenAge } = policy;
  singleString(payload, 'iss', iss, policy);
  singleString(payload, 'sub', sub, policy);
  let refusedFrom = exp === undefined ? Infinity : exp + clockTolerance;
  if (maxTokenAge !== undefined && iat !== undefined) {
    if (iat > nowSeconds + clockTolerance) throw claimRejections.iatInFuture(payload, policy);
    const tooOldFrom = iat + maxTokenAge + clockTolerance;
    // jsonwebtoken reads an `iat` of 0 as "issued now" (`iat || Date.now()`), so it never finds such a token too old.
    if (nowSeconds >= tooOldFrom) throw claimRejections.tooOld(payload, policy);
    refusedFrom = Math.min(refusedFrom, tooOldFrom);
  }
  return refusedFrom * 1000;
}

/** @param read the claim as read from the payload */
function singleString(
  payload: Record<string, unknown>,
  claim: 'iss' | 'sub',
  read: unknown,
  policy: ClaimPolicy,
): void {
  const value = ownValue(payload, claim, read);
  if (value !== undefined && typeof value !== 'string') throw claimRejections.notString(claim, policy);
}

/** @param read the claim as read from the payload */
function numericDate(
  payload: Record<string, unknown>,
  claim: TimeClaim,
  read: unknown,
  policy: ClaimPolicy,
): number | undefined {
  const value = ownValue(payload, claim, read);
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isFinite(value)) throw notNumericDate(claim, policy);
  return value;
}
