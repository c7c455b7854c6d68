import { describe, expect, it } from 'vitest';
import { resolveOptions } from '../../src/config/options';
import { checkClaims, claimPolicy, claimRejections, jsonwebtokenChecks, type ClaimPolicy } from '../../src/hook/claims';
import { DualAuthError } from '../../src/errors';
import { randomSecret } from '../support/claims';

const NOW = 1_800_000_000;
const policy: ClaimPolicy = {
  path: 'key-set',
  clockTolerance: 5,
  maxTokenAge: undefined,
  audience: ['cube-api'],
  issuer: ['https://idp.example/'],
  subject: 'svc',
};
const withMaxAge: ClaimPolicy = { ...policy, maxTokenAge: 60 };

/** Expects `checkClaims` to refuse `payload` with a `DualAuthError` that has `fields`. */
function expectRefusal(
  payload: Record<string, unknown>,
  fields: Partial<DualAuthError>,
  given: ClaimPolicy = policy,
): void {
  expect(() => checkClaims(payload, given, NOW)).toThrow(expect.objectContaining({ name: 'DualAuthError', ...fields }));
}

describe('claimPolicy', () => {
  const options = resolveOptions({
    apiSecret: randomSecret(),
    jwksUri: 'https://idp.example/jwks.json',
    audience: 'cube-api',
    issuer: 'https://idp.example/',
    subject: 'svc',
    clockTolerance: 7,
    maxTokenAge: 600,
  });

  it('checks times only on the shared-secret path', () => {
    expect(claimPolicy(options)).toEqual({
      path: 'shared-secret',
      clockTolerance: 7,
      maxTokenAge: 600,
      audience: undefined,
      issuer: undefined,
      subject: undefined,
    });
  });

  it("checks the identity provider's audience, issuer and subject on the key-set path", () => {
    expect(claimPolicy(options, options.identityProviders[0])).toEqual({
      path: 'key-set',
      clockTolerance: 7,
      maxTokenAge: 600,
      audience: ['cube-api'],
      issuer: ['https://idp.example/'],
      subject: 'svc',
    });
  });
});

describe('jsonwebtokenChecks: what jsonwebtoken is asked to check', () => {
  it('passes the tolerance always, and audience, issuer, subject and maximum age when the policy names them', () => {
    expect(jsonwebtokenChecks(withMaxAge)).toEqual({
      clockTolerance: 5,
      audience: ['cube-api'],
      issuer: ['https://idp.example/'],
      subject: 'svc',
      maxAge: 60,
    });
    const timesOnly: ClaimPolicy = {
      path: 'shared-secret',
      clockTolerance: 0,
      maxTokenAge: undefined,
      audience: undefined,
      issuer: undefined,
      subject: undefined,
    };
    expect(jsonwebtokenChecks(timesOnly)).toEqual({ clockTolerance: 0 });
  });
});

describe('checkClaims: the rules jsonwebtoken does not have', () => {
  it('returns the moment from which verification refuses the token: exp plus the tolerance, or Infinity', () => {
    expect(checkClaims({ exp: NOW + 300 }, policy, NOW)).toBe((NOW + 305) * 1000);
    expect(checkClaims({}, policy, NOW)).toBe(Infinity);
    expect(checkClaims({ iat: NOW - 10 }, policy, NOW)).toBe(Infinity);
  });

  it('with a maximum age, refuses a token issued at 0, which jsonwebtoken reads as issued now', () => {
    expectRefusal(
      { iat: 0, exp: NOW + 300 },
      {
        code: 'ERR_TOKEN_TOO_OLD',
        message: 'Token issued at 1970-01-01T00:00:00Z is older than this deployment accepts',
      },
      withMaxAge,
    );
    expectRefusal({ iat: NOW - 66, exp: NOW + 300 }, { code: 'ERR_TOKEN_TOO_OLD' }, withMaxAge);
    expect(checkClaims({ iat: NOW - 64, exp: NOW + 300 }, withMaxAge, NOW)).toBe((NOW + 1) * 1000);
  });

  it('with a maximum age, the earlier of that and iat plus the age plus the tolerance', () => {
    expect(checkClaims({ iat: NOW - 10, exp: NOW + 300 }, withMaxAge, NOW)).toBe((NOW - 10 + 60 + 5) * 1000);
    expect(checkClaims({ iat: NOW - 10, exp: NOW + 20 }, withMaxAge, NOW)).toBe((NOW + 20 + 5) * 1000);
  });

  it.each([
    ['exp', Infinity],
    ['nbf', -Infinity],
    ['iat', NaN],
    ['iat', 'yesterday'],
    ['exp', null],
  ])('refuses a %s of %s: time claims are finite numbers', (claim, value) => {
    expectRefusal(
      { [claim]: value },
      { code: 'ERR_CLAIM_INVALID', message: `Claim "${claim}" must be a number of seconds since 1970` },
    );
  });

  it('refuses an iat later than now plus the tolerance under a maximum age only', () => {
    expect(() => checkClaims({ iat: NOW + 5 }, withMaxAge, NOW)).not.toThrow();
    const message = 'Claim "iat" is in the future (2027-01-15T08:00:06Z): the issuer\'s clock is ahead';
    expectRefusal({ iat: NOW + 6 }, { code: 'ERR_CLAIM_INVALID', message }, withMaxAge);
    expect(() => checkClaims({ iat: NOW + 600 }, policy, NOW)).not.toThrow();
  });

  it.each([
    ['iss', ['https://idp.example/']],
    ['sub', 42],
    ['sub', { id: 'svc' }],
  ])('refuses a %s that is not a single string', (claim, value) => {
    expectRefusal(
      { [claim]: value },
      { code: 'ERR_CLAIM_INVALID', message: `Claim "${claim}" must be a single string` },
    );
  });

  it('reads claims as own properties only', () => {
    const inherited = Object.create({ exp: 'tomorrow', iss: 42 }) as Record<string, unknown>;
    expect(checkClaims(inherited, policy, NOW)).toBe(Infinity);
  });
});

describe('claimRejections', () => {
  it('names the times as the token has them, also where a Date cannot hold them', () => {
    expect(claimRejections.expired({ exp: NOW }, policy).message).toBe('Token expired at 2027-01-15T08:00:00Z');
    expect(claimRejections.expired({ exp: -1e300 }, policy).message).toBe('Token expired at -1e+300');
    expect(claimRejections.notYetValid({ nbf: NOW + 0.5 }, policy).message).toBe(
      'Token not valid before 2027-01-15T08:00:00Z',
    );
  });

  it('says whether the iat a maximum age needs is missing or not a number', () => {
    expect(claimRejections.iatRequired({}, withMaxAge)).toMatchObject({
      code: 'ERR_CLAIM_INVALID',
      message: 'Claim "iat" is required: tokens older than the maximum token age are refused',
    });
    expect(claimRejections.iatRequired({ iat: '1' }, withMaxAge)).toMatchObject({
      code: 'ERR_CLAIM_INVALID',
      message: 'Claim "iat" must be a number of seconds since 1970',
    });
    expect(
      claimRejections.iatRequired(Object.create({ iat: 'inherited' }) as Record<string, unknown>, withMaxAge).message,
    ).toMatch(/is required/);
  });

  it('tells the caller what failed and the log what was expected', () => {
    expect(claimRejections.audience({ aud: 'other' }, policy)).toMatchObject({
      code: 'ERR_AUDIENCE_MISMATCH',
      message: 'Audience mismatch: the token has "other", which this deployment does not accept',
      detail: 'Audience mismatch: expected "cube-api", the token has "other"',
    });
    expect(claimRejections.tooOld({ iat: NOW - 120 }, withMaxAge)).toMatchObject({
      code: 'ERR_TOKEN_TOO_OLD',
      message: 'Token issued at 2027-01-15T07:58:00Z is older than this deployment accepts',
      detail: 'Token issued at 2027-01-15T07:58:00Z is older than the maximum age of 60 s',
    });
  });
});
