import { createHash, createPublicKey, createSecretKey, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { verify, type Algorithm } from 'jsonwebtoken';
import { describe, expect, it } from 'vitest';
import { KEY_SET_ALGORITHMS, SHARED_SECRET_ALGORITHM } from '../../src/algorithms';
import { keyFactsOf, keyMisfit, recordKeyFacts } from '../../src/keys/key-facts';
import { generateKeyPair } from '../support/keys';
import { signToken } from '../support/tokens';

/** An RSA-PSS key pair, restricted to a digest (and a shortest salt) when given one. */
function pss(hashAlgorithm?: string, saltLength?: number): { privateKey: KeyObject; publicKey: KeyObject } {
  const restriction =
    hashAlgorithm === undefined
      ? {}
      : { hashAlgorithm, mgf1HashAlgorithm: hashAlgorithm, ...(saltLength !== undefined && { saltLength }) };
  return generateKeyPairSync('rsa-pss', { modulusLength: 2048, ...restriction });
}

describe('keyMisfit: whether a key may verify an algorithm', () => {
  const rsa = generateKeyPair('RS256').publicKey;
  const p256 = generateKeyPair('ES256').publicKey;
  const p384 = generateKeyPair('ES384').publicKey;
  const weakRsa = generateKeyPair('RS256', { modulusLength: 1024 }).publicKey;
  const pssSha256 = pss('sha256').publicKey;

  it.each([
    ['RS256', 'an RSA key of 2048 bits', rsa, true],
    ['PS512', 'an RSA key of 2048 bits', rsa, true],
    ['RS256', 'an RSA key of 1024 bits', weakRsa, false],
    ['ES256', 'a P-256 key', p256, true],
    ['ES256', 'a P-384 key', p384, false],
    ['RS256', 'a P-256 key', p256, false],
    ['PS256', 'an RSA-PSS key bound to SHA-256', pssSha256, true],
    ['PS384', 'an RSA-PSS key bound to SHA-256', pssSha256, false],
    ['RS256', 'an RSA-PSS key', pssSha256, false],
    ['HS256', 'a secret', createSecretKey(Buffer.alloc(32, 1)), true],
    ['HS256', 'an RSA key', rsa, false],
  ] as const)('%s with %s: %s', (alg, _, key, fits) => {
    expect(keyMisfit(key, alg) === undefined).toBe(fits);
    expect(keyMisfit(key, alg) === undefined).toBe(fits);
  });

  it.each([
    ['PS256', 'an RSA-PSS key restricted to no digest', pss().publicKey],
    ['PS256', 'an RSA-PSS key whose salt is longer than the digest', pss('sha256', 64).publicKey],
    ['RS256', 'a private RSA key', generateKeyPair('RS256').privateKey],
    ['ES256', 'a private P-256 key', generateKeyPair('ES256').privateKey],
    ['RS256', 'a secret', createSecretKey(Buffer.alloc(32, 1))],
    ['EdDSA', 'an Ed25519 key (jsonwebtoken has no EdDSA)', generateKeyPair('EdDSA').publicKey],
    ['none', 'an RSA key', rsa],
    ['__proto__', 'an RSA key', rsa],
  ] as const)('%s with %s: unfit', (alg, _, key) => {
    expect(keyMisfit(key, alg)).toEqual({ kind: 'unfit' });
  });

  it('a key whose JWK names an algorithm verifies that one only; an unfit type is named before the binding', () => {
    const jwk = rsa.export({ format: 'jwk' });
    const bound = createPublicKey({ key: jwk, format: 'jwk' });
    recordKeyFacts(bound, 'RS256');
    expect(keyMisfit(bound, 'RS256')).toBeUndefined();
    expect(keyMisfit(bound, 'PS256')).toEqual({ kind: 'bound', alg: 'RS256' });
    expect(keyMisfit(bound, 'ES256')).toEqual({ kind: 'unfit' });
    const unbound = createPublicKey({ key: jwk, format: 'jwk' });
    recordKeyFacts(unbound, undefined);
    expect(keyMisfit(unbound, 'PS256')).toBeUndefined();
  });

  it('is never looser than jsonwebtoken: every key it lets verify an algorithm, jsonwebtoken verifies with', () => {
    const pairs: { name: string; privateKey: KeyObject | Buffer; publicKey: KeyObject }[] = [
      ...(['RS256', 'ES256', 'ES384', 'ES512', 'EdDSA'] as const).map((alg) => ({
        name: alg,
        ...generateKeyPair(alg),
      })),
      { name: 'RSA 1024', ...generateKeyPair('RS256', { modulusLength: 1024 }) },
      ...([[], ['sha256'], ['sha384'], ['sha512'], ['sha256', 64], ['sha512', 20]] as [string?, number?][]).map(
        ([hash, salt]) => ({
          name: `RSA-PSS restricted to ${hash ?? 'no digest'}${salt === undefined ? '' : `, salt ${salt}`}`,
          ...pss(hash, salt),
        }),
      ),
      { name: 'secret', privateKey: Buffer.alloc(32, 7), publicKey: createSecretKey(Buffer.alloc(32, 7)) },
    ];
    const algorithms = [SHARED_SECRET_ALGORITHM, ...KEY_SET_ALGORITHMS];
    let admitted = 0;
    for (const { name, privateKey, publicKey } of pairs) {
      for (const alg of algorithms) {
        if (keyMisfit(publicKey, alg) !== undefined) continue;
        admitted++;
        const token = signToken({ sub: 'x' }, { alg, key: privateKey });
        expect(() => verify(token, publicKey, { algorithms: [alg as Algorithm] }), `${alg} with ${name}`).not.toThrow();
      }
    }
    // Six RSA, three EC, four RSA-PSS and one secret: the matrix does reach jsonwebtoken.
    expect(admitted).toBe(14);
  });
});

describe('keyFactsOf', () => {
  it('gives the thumbprint recorded for a key of a key set: SHA-256 of its SPKI encoding', () => {
    const { publicKey } = generateKeyPair('ES256');
    expect(keyFactsOf(publicKey)).toBeUndefined();
    recordKeyFacts(publicKey, 'ES256');
    const spki = publicKey.export({ type: 'spki', format: 'der' });
    expect(keyFactsOf(publicKey)?.thumbprint).toBe(createHash('sha256').update(spki).digest('base64url'));
  });

  it('tells a key replaced under the same kid from the one it replaced, and the same key loaded again from itself', () => {
    const [first, second] = [generateKeyPair('RS256', { kid: 'k' }), generateKeyPair('RS256', { kid: 'k' })];
    const [a, again, b] = [first.jwk, first.jwk, second.jwk].map((jwk) =>
      createPublicKey({ key: jwk, format: 'jwk' }),
    ) as [KeyObject, KeyObject, KeyObject];
    for (const key of [a, again, b]) recordKeyFacts(key, 'RS256');
    expect(keyFactsOf(a)?.thumbprint).toBe(keyFactsOf(again)?.thumbprint);
    expect(keyFactsOf(a)?.thumbprint).not.toBe(keyFactsOf(b)?.thumbprint);
  });
});
