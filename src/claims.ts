import { DualAuthError, quote, type AuthPath, type RejectionCode } from './errors';

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

function iso(seconds: number): string {
  const date = new Date(seconds * 1000);
  return Number.isNaN(date.getTime()) ? String(seconds) : date.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

function numericDate(payload: Record<string, unknown>, claim: 'exp' | 'nbf' | 'iat', path: AuthPath): number | undefined {
  const value = payload[claim];
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isFinite(value)) {
    throw new DualAuthError('ERR_CLAIM_INVALID', `Claim "${claim}" must be a number of seconds since 1970`, path);
  }
  return value;
}

function expectOneOf(
  actual: unknown,
  expected: readonly string[],
  claim: 'aud' | 'iss' | 'sub',
  code: RejectionCode,
  path: AuthPath,
): void {
  const values = Array.isArray(actual) ? actual : [actual];
  if (values.some((value) => typeof value === 'string' && expected.includes(value))) return;
  const label = { aud: 'Audience', iss: 'Issuer', sub: 'Subject' }[claim];
  const got = actual === undefined ? 'the token has none' : `the token has ${quote(actual)}`;
  throw new DualAuthError(code, `${label} mismatch: expected ${expected.map((e) => JSON.stringify(e)).join(' or ')}, ${got}`, path);
}

/** Checks exp, nbf, iat (with maxTokenAge), aud, iss and sub. `now` is in seconds. */
export function checkClaims(payload: Record<string, unknown>, policy: ClaimPolicy, now: number): void {
  const { path, clockTolerance } = policy;
  const exp = numericDate(payload, 'exp', path);
  if (exp !== undefined && now >= exp + clockTolerance) {
    throw new DualAuthError('ERR_TOKEN_EXPIRED', `Token expired at ${iso(exp)}`, path);
  }
  const nbf = numericDate(payload, 'nbf', path);
  if (nbf !== undefined && now + clockTolerance < nbf) {
    throw new DualAuthError('ERR_TOKEN_NOT_YET_VALID', `Token not valid before ${iso(nbf)}`, path);
  }
  const iat = numericDate(payload, 'iat', path);
  if (policy.maxTokenAge !== undefined) {
    if (iat === undefined) {
      throw new DualAuthError('ERR_CLAIM_INVALID', 'Claim "iat" is required: tokens older than the maximum token age are refused', path);
    }
    if (now - iat > policy.maxTokenAge + clockTolerance) {
      throw new DualAuthError('ERR_TOKEN_TOO_OLD', `Token issued at ${iso(iat)} is older than the maximum age of ${policy.maxTokenAge} s`, path);
    }
  }
  if (policy.audience) expectOneOf(payload.aud, policy.audience, 'aud', 'ERR_AUDIENCE_MISMATCH', path);
  if (policy.issuer) expectOneOf(payload.iss, policy.issuer, 'iss', 'ERR_ISSUER_MISMATCH', path);
  if (policy.subject !== undefined) expectOneOf(payload.sub, [policy.subject], 'sub', 'ERR_SUBJECT_MISMATCH', path);
}

/**
 * Epoch ms from which a verified token would be refused for its age: `exp`, or `iat` plus the maximum token
 * age, with the clock tolerance that verification allows. Infinity when neither applies.
 */
export function refusedFrom(payload: Record<string, unknown>, clockTolerance: number, maxTokenAge: number | undefined): number {
  const { exp, iat } = payload;
  let until = typeof exp === 'number' ? exp + clockTolerance : Infinity;
  if (maxTokenAge !== undefined && typeof iat === 'number') until = Math.min(until, iat + maxTokenAge + clockTolerance);
  return until * 1000;
}
