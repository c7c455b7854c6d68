import { beforeAll, describe, expect, it } from 'vitest';
import { usableKeys } from '../../src/keys/usable-keys';
import { generateKeyPair, jwks, publicJwk, type TestKeyPair } from '../support/keys';

const URI = 'https://idp.example/.well-known/jwks.json';

let rsa: TestKeyPair;
let other: TestKeyPair;
beforeAll(() => {
  rsa = generateKeyPair('RS256', { kid: 'rsa' });
  other = generateKeyPair('RS256', { kid: 'other' });
});

async function kidsOf(
  document: { keys: unknown[] },
  algorithms: readonly string[] = ['RS256'],
): Promise<{ kids: string[]; skipped: number }> {
  const set = await usableKeys(document, URI, algorithms);
  return { kids: [...set.keys.keys()], skipped: set.skipped };
}

describe('usableKeys', () => {
  it('converts each usable key to a public KeyObject, by kid', async () => {
    const set = await usableKeys(jwks(rsa, other), URI, ['RS256']);
    expect([...set.keys.keys()]).toEqual(['rsa', 'other']);
    expect(set.skipped).toBe(0);
    const key = set.keys.get('rsa');
    expect(key?.type).toBe('public');
    expect(key?.export({ format: 'jwk' })).toEqual(rsa.publicKey.export({ format: 'jwk' }));
  });

  it('accepts keys without `use` and without `alg`', async () => {
    const bare = publicJwk(rsa.publicKey, { kid: 'bare' });
    expect(await kidsOf({ keys: [bare] })).toEqual({ kids: ['bare'], skipped: 0 });
  });

  it('skips malformed, unusable and repeated-kid keys one by one, keeping the rest of the set', async () => {
    const good = rsa.jwk;
    const privateJwk = { ...other.privateKey.export({ format: 'jwk' }), kid: 'private' };
    const weak = generateKeyPair('RS256', { kid: 'weak', modulusLength: 1024 });
    const document = {
      keys: [
        good,
        null,
        42,
        'a string',
        [],
        { ...other.jwk, kid: 'no-n', n: undefined },
        { ...other.jwk, kid: 'bad-n', n: '!!not base64url!!' },
        { ...other.jwk, kid: 'n-number', n: 12345 },
        { kty: 'oct', kid: 'hmac', k: 'c2VjcmV0' },
        { ...other.jwk, kid: 'encryption', use: 'enc' },
        { ...other.jwk, kid: undefined },
        { ...other.jwk, kid: '' },
        { ...other.jwk, kid: 7 },
        { ...other.jwk, kid: 'unknown-kty', kty: 'XYZ' },
        privateJwk,
        weak.jwk,
        { ...other.jwk, kid: 'rsa' },
      ],
    };
    const set = await usableKeys(document, URI, ['RS256']);
    expect([...set.keys.keys()]).toEqual(['rsa']);
    expect(set.keys.get('rsa')?.export({ format: 'jwk' })).toEqual(rsa.publicKey.export({ format: 'jwk' }));
    expect(set.skipped).toBe(document.keys.length - 1);
  });

  it('returns an empty set (not an error) when nothing is usable', async () => {
    expect(await kidsOf({ keys: [] })).toEqual({ kids: [], skipped: 0 });
    expect(await kidsOf({ keys: [{ kty: 'oct', k: 'c2VjcmV0', kid: 'x' }, null] })).toEqual({ kids: [], skipped: 2 });
  });

  describe('fit for the allowed algorithms', () => {
    let es256: TestKeyPair;
    let es384: TestKeyPair;
    let ed25519: TestKeyPair;
    let ed448: TestKeyPair;
    beforeAll(() => {
      es256 = generateKeyPair('ES256', { kid: 'es256' });
      es384 = generateKeyPair('ES384', { kid: 'es384' });
      ed25519 = generateKeyPair('EdDSA', { kid: 'ed25519' });
      ed448 = generateKeyPair('EdDSA', { kid: 'ed448', edCurve: 'ed448' });
    });

    const strip = (pair: TestKeyPair) => publicJwk(pair.publicKey, { kid: pair.kid });

    it.each([
      [['RS256'], ['rsa']],
      [['PS256'], ['rsa']],
      [['ES256'], ['es256']],
      [['ES384'], ['es384']],
      [['ES512'], []],
      // jsonwebtoken cannot verify EdDSA, so Ed25519 and Ed448 keys are never usable.
      [['EdDSA'], []],
      [
        ['RS256', 'ES256', 'EdDSA'],
        ['rsa', 'es256'],
      ],
    ])('with %j (keys without alg) keeps %j', async (algorithms, expected) => {
      const document = { keys: [strip(rsa), strip(es256), strip(es384), strip(ed25519), strip(ed448)] };
      expect((await kidsOf(document, algorithms)).kids).toEqual(expected);
    });

    it('a key whose JWK alg is not allowed is skipped even when its type fits', async () => {
      const rs512 = { ...rsa.jwk, kid: 'rs512', alg: 'RS512' };
      const ps256 = { ...rsa.jwk, kid: 'ps256', alg: 'PS256' };
      expect(await kidsOf({ keys: [rs512, ps256, rsa.jwk] }, ['RS256'])).toEqual({ kids: ['rsa'], skipped: 2 });
      expect((await kidsOf({ keys: [rs512, ps256, rsa.jwk] }, ['PS256', 'RS512'])).kids).toEqual(['rs512', 'ps256']);
    });

    it('a key whose JWK alg contradicts its type is skipped', async () => {
      const lying = { ...es256.jwk, kid: 'lying', alg: 'RS256' };
      expect(await kidsOf({ keys: [lying] }, ['RS256', 'ES256'])).toEqual({ kids: [], skipped: 1 });
    });
  });
});
