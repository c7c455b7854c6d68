import { createSecretKey, generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { isKeySetAlgorithm, KEY_SET_ALGORITHMS, keyFitsAlgorithm } from '../src/algorithms';
import { generateKeyPair } from './support/keys';

describe('algorithm facts', () => {
  const rsa = generateKeyPair('RS256').publicKey;
  const p256 = generateKeyPair('ES256').publicKey;
  const p384 = generateKeyPair('ES384').publicKey;
  const weakRsa = generateKeyPair('RS256', { modulusLength: 1024 }).publicKey;
  const pssSha256 = generateKeyPairSync('rsa-pss', { modulusLength: 2048, hashAlgorithm: 'sha256', mgf1HashAlgorithm: 'sha256' }).publicKey;

  it('offers the key-set path asymmetric algorithms only', () => {
    expect(KEY_SET_ALGORITHMS.filter((alg) => /^(HS|none)/i.test(alg))).toEqual([]);
    expect(['HS256', 'none', 'EdDSA', '__proto__'].filter(isKeySetAlgorithm)).toEqual([]);
    expect(KEY_SET_ALGORITHMS.every(isKeySetAlgorithm)).toBe(true);
  });

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
    expect(keyFitsAlgorithm(alg, key)).toBe(fits);
    expect(keyFitsAlgorithm(alg, key)).toBe(fits);
  });
});
