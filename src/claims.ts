/**
 * Registered claims: the policy each path applies, the rejections (messages) for every claim failure, and the
 * rules jsonwebtoken does not have. jsonwebtoken checks `exp`, `nbf`, `aud`, `iss`, `sub` and the maximum age;
 * verification.ts maps its errors onto the rejections made here.
 */
import type { ResolvedOptions } from './config';
import { DualAuthError, quote, type AuthPath } from './errors';

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

/** The shared-secret path checks times only; audience, issuer and subject describe the identity provider's tokens. */
export function claimPolicy(options: ResolvedOptions, path: AuthPath): ClaimPolicy {
  const { clockTolerance, maxTokenAge } = options;
  if (path === 'shared-secret') return { path, clockTolerance, maxTokenAge, audience: undefined, issuer: undefined, subject: undefined };
  return { path, clockTolerance, maxTokenAge, audience: options.audience, issuer: options.issuer, subject: options.subject };
}

type TimeClaim = 'exp' | 'nbf' | 'iat';

function iso(seconds: unknown): string {
  const date = new Date(Number(seconds) * 1000);
  return Number.isNaN(date.getTime()) ? String(seconds) : date.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** The rejection for each claim failure, whoever found it. */
export const claimRejections = {
  expired: (payload: Record<string, unknown>, { path }: ClaimPolicy) =>
    new DualAuthError('ERR_TOKEN_EXPIRED', `Token expired at ${iso(payload.exp)}`, path),
  notYetValid: (payload: Record<string, unknown>, { path }: ClaimPolicy) =>
    new DualAuthError('ERR_TOKEN_NOT_YET_VALID', `Token not valid before ${iso(payload.nbf)}`, path),
  tooOld: (payload: Record<string, unknown>, { path, maxTokenAge }: ClaimPolicy) =>
    new DualAuthError('ERR_TOKEN_TOO_OLD', `Token issued at ${iso(payload.iat)} is older than the maximum age of ${maxTokenAge} s`, path),
  notNumericDate: (claim: TimeClaim, { path }: ClaimPolicy) =>
    new DualAuthError('ERR_CLAIM_INVALID', `Claim "${claim}" must be a number of seconds since 1970`, path),
  iatMissing: ({ path }: ClaimPolicy) =>
    new DualAuthError('ERR_CLAIM_INVALID', 'Claim "iat" is required: tokens older than the maximum token age are refused', path),
  audience: (payload: Record<string, unknown>, policy: ClaimPolicy) => mismatch('aud', payload.aud, policy.audience, policy.path),
  issuer: (payload: Record<string, unknown>, policy: ClaimPolicy) => mismatch('iss', payload.iss, policy.issuer, policy.path),
  subject: (payload: Record<string, unknown>, policy: ClaimPolicy) =>
    mismatch('sub', payload.sub, policy.subject === undefined ? undefined : [policy.subject], policy.path),
};

const MISMATCH = {
  aud: ['ERR_AUDIENCE_MISMATCH', 'Audience'],
  iss: ['ERR_ISSUER_MISMATCH', 'Issuer'],
  sub: ['ERR_SUBJECT_MISMATCH', 'Subject'],
} as const;

function mismatch(claim: keyof typeof MISMATCH, actual: unknown, expected: readonly string[] = [], path: AuthPath): DualAuthError {
  const [code, label] = MISMATCH[claim];
  const got = actual === undefined ? 'the token has none' : `the token has ${quote(actual)}`;
  return new DualAuthError(code, `${label} mismatch: expected ${expected.map((e) => JSON.stringify(e)).join(' or ')}, ${got}`, path);
}

/**
 * The rules jsonwebtoken lacks, applied after it accepted the token: every time claim present is a finite number
 * (JSON's `1e400` parses to Infinity, which jsonwebtoken takes as "never expires"), `iat` included when no maximum
 * age asks for it. Returns the moment (epoch ms) from which verification refuses the token: `exp`, or `iat` plus
 * the maximum token age, each with the clock tolerance, exactly as jsonwebtoken compares them; Infinity when
 * neither applies. The verified-token cache answers until then and no longer.
 */
export function checkClaims(payload: Record<string, unknown>, policy: ClaimPolicy): number {
  const exp = numericDate(payload, 'exp', policy);
  numericDate(payload, 'nbf', policy);
  const iat = numericDate(payload, 'iat', policy);
  const { clockTolerance, maxTokenAge } = policy;
  let refusedFrom = exp === undefined ? Infinity : exp + clockTolerance;
  if (maxTokenAge !== undefined && iat !== undefined) refusedFrom = Math.min(refusedFrom, iat + maxTokenAge + clockTolerance);
  return refusedFrom * 1000;
}

function numericDate(payload: Record<string, unknown>, claim: TimeClaim, policy: ClaimPolicy): number | undefined {
  const value = payload[claim];
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isFinite(value)) throw claimRejections.notNumericDate(claim, policy);
  return value;
}
