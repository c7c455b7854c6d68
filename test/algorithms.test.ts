import { describe, expect, it } from 'vitest';
import { algorithmFacts, isKeySetAlgorithm, KEY_SET_ALGORITHMS } from '../src/algorithms';

describe('algorithm facts', () => {
  it('offers the key-set path asymmetric algorithms only', () => {
    expect(KEY_SET_ALGORITHMS.filter((alg) => /^(HS|none)/i.test(alg))).toEqual([]);
    expect(['HS256', 'none', 'EdDSA', '__proto__'].filter(isKeySetAlgorithm)).toEqual([]);
    expect(KEY_SET_ALGORITHMS.every(isKeySetAlgorithm)).toBe(true);
  });

  it('has facts for every algorithm verified, and none for any other name', () => {
    expect([...KEY_SET_ALGORITHMS, 'HS256'].filter((alg) => algorithmFacts(alg) === undefined)).toEqual([]);
    expect(['none', 'EdDSA', 'HS384', 'rs256', '__proto__', 'constructor', 'toString'].map(algorithmFacts)).toEqual(
      Array(7).fill(undefined),
    );
  });

  it.each([
    ['ES256', 64],
    ['ES384', 96],
    ['ES512', 132],
  ])('an %s signature is the curve order twice (%i bytes), so it has one length as base64url', (alg, bytes) => {
    expect(algorithmFacts(alg)?.signatureLength).toBe(Buffer.alloc(bytes).toString('base64url').length);
  });

  it('knows one signature length only for ECDSA', () => {
    expect(KEY_SET_ALGORITHMS.filter((alg) => algorithmFacts(alg)?.signatureLength !== undefined)).toEqual([
      'ES256',
      'ES384',
      'ES512',
    ]);
  });
});
