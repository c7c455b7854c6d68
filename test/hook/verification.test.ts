import { createHmac, createSecretKey, generateKeyPairSync } from 'node:crypto';
import { NotBeforeError, TokenExpiredError, verify as jsonwebtokenVerify, type VerifyOptions } from 'jsonwebtoken';
import { describe, expect, it } from 'vitest';
import type { ClaimPolicy } from '../../src/hook/claims';
import { DualAuthError } from '../../src/errors';
import { recordKeyFacts } from '../../src/keys/key-facts';
import { decodeToken } from '../../src/hook/token';
import { JSONWEBTOKEN_MESSAGES, TokenVerifier } from '../../src/hook/verification';
import { randomSecret } from '../support/claims';
import { generateKeyPair, type KeyAlgorithm } from '../support/keys';
import { refusalOf } from '../support/requests';
import { base64url, signToken } from '../support/tokens';

const secret = randomSecret();
const key = createSecretKey(Buffer.from(secret));
const NOW = 1_800_000_000;
const policy: ClaimPolicy = {
  path: 'key-set',
  clockTolerance: 5,
  maxTokenAge: undefined,
  audience: ['cube-api'],
  issuer: ['https://idp.example/'],
  subject: 'svc',
};
const good = { aud: 'cube-api', iss: 'https://idp.example/', sub: 'svc', iat: NOW - 10, exp: NOW + 300 };
const badSignature = () => new DualAuthError('ERR_SIGNATURE_INVALID', 'the path says: bad signature', 'key-set');

function verifyAt(
  payload: Record<string, unknown>,
  options: { policy?: Partial<ClaimPolicy>; nowSeconds?: number; secret?: string } = {},
): number {
  const verifier = new TokenVerifier('HS256', { ...policy, ...options.policy }, badSignature);
  const token = decodeToken(signToken(payload, { alg: 'HS256', key: options.secret ?? secret }));
  return verifier.verify(token, key, (options.nowSeconds ?? NOW) * 1000).refusedFrom;
}

function refusal(...args: Parameters<typeof verifyAt>): DualAuthError {
  return refusalOf(() => verifyAt(...args));
}

describe('TokenVerifier: jsonwebtoken.verify with every error mapped', () => {
  it('accepts a good token and returns the moment from which it is refused: exp plus the tolerance', () => {
    expect(verifyAt(good)).toBe((NOW + 300 + 5) * 1000);
    expect(verifyAt({ ...good, exp: undefined })).toBe(Infinity);
  });

  it('with a maximum age, refuses from the earlier of exp and iat + age, each with the tolerance', () => {
    expect(verifyAt(good, { policy: { maxTokenAge: 60 } })).toBe((NOW - 10 + 60 + 5) * 1000);
    expect(verifyAt({ ...good, exp: NOW + 20 }, { policy: { maxTokenAge: 60 } })).toBe((NOW + 20 + 5) * 1000);
  });

  it('refuses exactly from that moment, as jsonwebtoken compares it', () => {
    const refusedFrom = verifyAt(good) / 1000;
    expect(() => verifyAt(good, { nowSeconds: refusedFrom - 0.001 })).not.toThrow();
    expect(refusal(good, { nowSeconds: refusedFrom })).toMatchObject({
      code: 'ERR_TOKEN_EXPIRED',
      message: 'Token expired at 2027-01-15T08:05:00Z',
    });
    const tooOldFrom = verifyAt(good, { policy: { maxTokenAge: 60 } }) / 1000;
    expect(() => verifyAt(good, { policy: { maxTokenAge: 60 }, nowSeconds: tooOldFrom - 0.001 })).not.toThrow();
    expect(refusal(good, { policy: { maxTokenAge: 60 }, nowSeconds: tooOldFrom })).toMatchObject({
      code: 'ERR_TOKEN_TOO_OLD',
      detail: 'Token issued at 2027-01-15T07:59:50Z is older than the maximum age of 60 s',
    });
  });

  it.each([
    [
      'a signature by another secret',
      { ...good },
      { secret: randomSecret() },
      'ERR_SIGNATURE_INVALID',
      'the path says: bad signature',
    ],
    [
      'nbf in the future',
      { ...good, nbf: NOW + 60 },
      {},
      'ERR_TOKEN_NOT_YET_VALID',
      'Token not valid before 2027-01-15T08:01:00Z',
    ],
    [
      'exp that is not a number',
      { ...good, exp: 'tomorrow' },
      {},
      'ERR_CLAIM_INVALID',
      'Claim "exp" must be a number of seconds since 1970',
    ],
    [
      'nbf that is not a number',
      { ...good, nbf: 'now' },
      {},
      'ERR_CLAIM_INVALID',
      'Claim "nbf" must be a number of seconds since 1970',
    ],
    [
      'iat missing under a maximum age',
      { ...good, iat: undefined },
      { policy: { maxTokenAge: 60 } },
      'ERR_CLAIM_INVALID',
      'Claim "iat" is required: tokens older than the maximum token age are refused',
    ],
    [
      'iat not a number under a maximum age',
      { ...good, iat: 'x' },
      { policy: { maxTokenAge: 60 } },
      'ERR_CLAIM_INVALID',
      'Claim "iat" must be a number of seconds since 1970',
    ],
    [
      'another audience',
      { ...good, aud: ['a', 'b'] },
      {},
      'ERR_AUDIENCE_MISMATCH',
      'Audience mismatch: expected "cube-api", the token has "[\\"a\\",\\"b\\"]"',
    ],
    [
      'no issuer',
      { ...good, iss: undefined },
      {},
      'ERR_ISSUER_MISMATCH',
      'Issuer mismatch: expected "https://idp.example/", the token has none',
    ],
    [
      'another subject',
      { ...good, sub: 'someone' },
      {},
      'ERR_SUBJECT_MISMATCH',
      'Subject mismatch: expected "svc", the token has "someone"',
    ],
  ] as const)('maps %s to %s with our message', (_, payload, options, code, message) => {
    expect(refusal(payload, options)).toMatchObject({ code, detail: message, path: 'key-set' });
  });

  it.each([
    ['exp', '"exp":1e400'],
    ['nbf', '"nbf":-1e400'],
    ['iat', '"iat":"yesterday"'],
  ])('refuses a %s that jsonwebtoken lets through (not a finite number)', (claim, member) => {
    // JSON.stringify cannot write 1e400, so the payload is signed as text.
    const signingInput = `${base64url('{"alg":"HS256","typ":"JWT"}')}.${base64url(`{"aud":"cube-api","iss":"https://idp.example/","sub":"svc",${member}}`)}`;
    const raw = `${signingInput}.${createHmac('sha256', secret).update(signingInput).digest('base64url')}`;
    const verifier = new TokenVerifier('HS256', policy, badSignature);
    expect(() => verifier.verify(decodeToken(raw), key, NOW * 1000)).toThrow(
      expect.objectContaining({
        code: 'ERR_CLAIM_INVALID',
        message: `Claim "${claim}" must be a number of seconds since 1970`,
      }),
    );
  });

  it('refuses a key unfit for the algorithm with ERR_ALG_NOT_ALLOWED, before jsonwebtoken sees it', () => {
    const verifier = new TokenVerifier('HS256', policy, badSignature);
    const token = decodeToken(signToken(good, { alg: 'HS256', key: secret }));
    expect(() => verifier.verify(token, generateKeyPair('RS256').publicKey, NOW * 1000)).toThrow(
      expect.objectContaining({
        code: 'ERR_ALG_NOT_ALLOWED',
        message: 'Algorithm "HS256" cannot be verified with this key',
      }),
    );
  });

  it('refuses an RSA-PSS key that jsonwebtoken would refuse with a plain Error (not one of its own), never an internal error', () => {
    const pair = generateKeyPairSync('rsa-pss', { modulusLength: 2048 });
    const verifier = new TokenVerifier('PS256', policy, badSignature);
    const token = decodeToken(signToken(good, { alg: 'PS256', key: pair.privateKey }));
    expect(() => verifier.verify(token, pair.publicKey, NOW * 1000)).toThrow(
      expect.objectContaining({
        code: 'ERR_ALG_NOT_ALLOWED',
        message: 'Algorithm "PS256" cannot be verified with this key',
      }),
    );
  });

  it("hands a key bound by its JWK to another algorithm to the path's own rejection, with the reason", () => {
    const pair = generateKeyPair('RS256');
    recordKeyFacts(pair.publicKey, 'RS256');
    const misfits: unknown[] = [];
    const misfitKey = (_: unknown, misfit: unknown) => (
      misfits.push(misfit),
      new DualAuthError('ERR_ALG_NOT_ALLOWED', 'the path says: misfit', 'key-set')
    );
    const verifier = new TokenVerifier('PS256', policy, badSignature, misfitKey);
    const token = decodeToken(signToken(good, { alg: 'PS256', key: pair.privateKey }));
    expect(() => verifier.verify(token, pair.publicKey, NOW * 1000)).toThrow(
      expect.objectContaining({ message: 'the path says: misfit' }),
    );
    expect(misfits).toEqual([{ kind: 'bound', alg: 'RS256' }]);
  });

  it('names an expired time as the token has it, where a Date cannot hold it', () => {
    expect(refusal({ ...good, exp: -1e300 })).toMatchObject({
      code: 'ERR_TOKEN_EXPIRED',
      message: 'Token expired at -1e+300',
    });
  });

  it('with a maximum age, refuses an iat later than now plus the tolerance (it would stretch the age)', () => {
    const maxAge = { policy: { maxTokenAge: 60 } };
    expect(() => verifyAt({ ...good, iat: NOW + 5 }, maxAge)).not.toThrow();
    expect(refusal({ ...good, iat: NOW + 6 }, maxAge)).toMatchObject({
      code: 'ERR_CLAIM_INVALID',
      message: 'Claim "iat" is in the future (2027-01-15T08:00:06Z): the issuer\'s clock is ahead',
    });
  });

  it.each([
    ['iss', { iss: ['https://idp.example/', 'https://other.example/'] }],
    ['sub', { sub: ['svc'] }],
    ['iss', { iss: 42 }],
  ] as const)('refuses a %s that is not a single string, checked against a value or not', (claim, member) => {
    const unchecked = { policy: { issuer: undefined, subject: undefined } };
    expect(refusal({ ...good, ...member }, unchecked)).toMatchObject({
      code: 'ERR_CLAIM_INVALID',
      message: `Claim "${claim}" must be a single string`,
    });
    expect(refusal({ ...good, ...member }).code).toMatch(/^ERR_(ISSUER|SUBJECT)_MISMATCH$/);
  });
});

describe('TokenVerifier: a signature of any shape or length is an invalid signature, never an internal error', () => {
  const ALGORITHMS: KeyAlgorithm[] = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512'];

  /** The DER encoding (SEQUENCE of two INTEGERs) of a JWS ECDSA signature: what OpenSSL makes, which JWS does not use. */
  function der(ieee: Buffer): Buffer {
    const integer = (half: Buffer) => {
      const trimmed = half.subarray(half.findIndex((byte) => byte !== 0));
      const body =
        trimmed[0] !== undefined && trimmed[0] >= 0x80 ? Buffer.concat([Buffer.from([0]), trimmed]) : trimmed;
      return Buffer.concat([Buffer.from([0x02, body.length]), body]);
    };
    const content = Buffer.concat([
      integer(ieee.subarray(0, ieee.length / 2)),
      integer(ieee.subarray(ieee.length / 2)),
    ]);
    const length = content.length < 0x80 ? Buffer.from([content.length]) : Buffer.from([0x81, content.length]);
    return Buffer.concat([Buffer.from([0x30]), length, content]);
  }

  it.each(ALGORITHMS)('%s: too short, too long, zeros, DER-shaped: ERR_SIGNATURE_INVALID; empty: malformed', (alg) => {
    const pair = generateKeyPair(alg);
    const verifier = new TokenVerifier(alg as 'RS256', policy, badSignature);
    const token = signToken(good, { key: pair });
    const signingInput = token.slice(0, token.lastIndexOf('.'));
    const valid = Buffer.from(token.slice(token.lastIndexOf('.') + 1), 'base64url');
    expect(verifier.verify(decodeToken(token), pair.publicKey, NOW * 1000).payload).toMatchObject({ sub: 'svc' });
    const shapes: [string, Buffer][] = [
      ['an 8-byte DER r = s = 0', Buffer.from('3006020100020100', 'hex')],
      ['one byte', Buffer.alloc(1)],
      ['one byte short', valid.subarray(0, -1)],
      ['one byte long', Buffer.concat([valid, Buffer.alloc(1)])],
      ['twice as long', Buffer.concat([valid, valid])],
      ['all zeros, of the right length', Buffer.alloc(valid.length)],
      ['1 KiB', Buffer.alloc(1024, 0xff)],
    ];
    if (alg.startsWith('ES')) shapes.push(['the valid signature DER-encoded', der(valid)]);
    for (const [shape, signature] of shapes) {
      const forged = decodeToken(`${signingInput}.${signature.toString('base64url')}`);
      expect(() => verifier.verify(forged, pair.publicKey, NOW * 1000), shape).toThrow(
        expect.objectContaining({ code: 'ERR_SIGNATURE_INVALID', message: 'the path says: bad signature' }),
      );
    }
    expect(() => decodeToken(`${signingInput}.`)).toThrow(
      expect.objectContaining({ code: 'ERR_TOKEN_MALFORMED', message: 'Malformed token: signature is missing' }),
    );
  });

  it('still names a malformed token first when its signature also has the wrong length', () => {
    const pair = generateKeyPair('ES256');
    const verifier = new TokenVerifier('ES256', policy, badSignature);
    const token = signToken(good, { key: pair });
    // A character outside base64url in the signature: decoding checks only its end, the full check names it.
    const forged = decodeToken(`${token.slice(0, token.lastIndexOf('.'))}.AA+A`);
    expect(() => verifier.verify(forged, pair.publicKey, NOW * 1000)).toThrow(
      expect.objectContaining({ code: 'ERR_TOKEN_MALFORMED', message: 'Malformed token: signature is not base64url' }),
    );
  });
});

describe('the messages of jsonwebtoken the mapping reads, as the installed jsonwebtoken says them', () => {
  const pinned: VerifyOptions = { algorithms: ['HS256'], clockTimestamp: NOW };
  const hs = (payload: Record<string, unknown>) => signToken(payload, { alg: 'HS256', key: secret });
  const unsigned = hs(good).split('.').slice(0, 2).join('.');
  /** For each message of the table, a call that makes jsonwebtoken say it. */
  const causes: Record<string, () => unknown> = {
    'maxAge exceeded': () => jsonwebtokenVerify(hs({ iat: NOW - 120 }), key, { ...pinned, maxAge: 60 }),
    'invalid signature': () => jsonwebtokenVerify(hs(good), createSecretKey(Buffer.from(randomSecret())), pinned),
    'invalid exp value': () => jsonwebtokenVerify(hs({ exp: 'tomorrow' }), key, pinned),
    'invalid nbf value': () => jsonwebtokenVerify(hs({ nbf: 'now' }), key, pinned),
    'iat required when maxAge is specified': () => jsonwebtokenVerify(hs({}), key, { ...pinned, maxAge: 60 }),
    'jwt audience invalid': () => jsonwebtokenVerify(hs({ aud: 'other' }), key, { ...pinned, audience: ['cube-api'] }),
    'jwt issuer invalid': () =>
      jsonwebtokenVerify(hs({ iss: 'other' }), key, { ...pinned, issuer: ['https://idp.example/'] }),
    'jwt subject invalid': () => jsonwebtokenVerify(hs({ sub: 'other' }), key, { ...pinned, subject: 'svc' }),
    'jwt malformed': () => jsonwebtokenVerify(unsigned, key, pinned),
    'invalid token': () => jsonwebtokenVerify('!.!.!', key, pinned),
    'jwt signature is required': () => jsonwebtokenVerify(`${unsigned}.`, key, pinned),
  };

  function thrownBy(cause: (() => unknown) | undefined): Error {
    try {
      cause?.();
    } catch (error) {
      return error as Error;
    }
    throw new Error('jsonwebtoken accepted the token');
  }

  it('has a cause for every message of the table, and no more', () => {
    expect(Object.keys(causes).sort()).toEqual(JSONWEBTOKEN_MESSAGES.map(({ text }) => text).sort());
  });

  it.each(JSONWEBTOKEN_MESSAGES.map((entry) => [entry.text, entry] as const))(
    'jsonwebtoken still says %j, with the class the table expects',
    (text, entry) => {
      const error = thrownBy(causes[text]);
      expect(error).toBeInstanceOf(entry.error);
      if (entry.prefix) expect(error.message.startsWith(text), error.message).toBe(true);
      else expect(error.message).toBe(text);
      expect(
        JSONWEBTOKEN_MESSAGES.filter((other) => error instanceof other.error && error.message.startsWith(other.text)),
      ).toEqual([entry]);
    },
  );

  it('jsonwebtoken still reports exp with a TokenExpiredError and nbf with a NotBeforeError, which are mapped by their class', () => {
    const expired = thrownBy(() => jsonwebtokenVerify(hs({ exp: NOW - 60 }), key, pinned));
    expect(expired).toBeInstanceOf(TokenExpiredError);
    expect(JSONWEBTOKEN_MESSAGES.filter(({ text }) => expired.message.startsWith(text))).toEqual([]);
    expect(thrownBy(() => jsonwebtokenVerify(hs({ nbf: NOW + 60 }), key, pinned))).toBeInstanceOf(NotBeforeError);
  });
});
