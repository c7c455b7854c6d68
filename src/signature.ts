import { constants, createHmac, timingSafeEqual, verify, type KeyObject } from 'node:crypto';
import type { KeySetAlgorithm } from './config';

/** True when `signature` is the HS256 MAC of `signingInput` under `key` (compared in constant time). */
export function hs256Matches(key: KeyObject, signingInput: string, signature: Buffer): boolean {
  const expected = createHmac('sha256', key).update(signingInput, 'latin1').digest();
  return expected.length === signature.length && timingSafeEqual(expected, signature);
}

const HASH: Record<KeySetAlgorithm, string | null> = {
  RS256: 'sha256', RS384: 'sha384', RS512: 'sha512',
  PS256: 'sha256', PS384: 'sha384', PS512: 'sha512',
  ES256: 'sha256', ES384: 'sha384', ES512: 'sha512',
  EdDSA: null,
};

const CURVE: Partial<Record<KeySetAlgorithm, string>> = { ES256: 'prime256v1', ES384: 'secp384r1', ES512: 'secp521r1' };

/** Smallest RSA modulus accepted, as in jsonwebtoken 9 and NIST SP 800-131A. */
const MIN_RSA_BITS = 2048;

/** Answers of {@link keyFitsAlgorithm} per key: reading a key's details crosses into C++ and allocates. */
const fits = new WeakMap<KeyObject, Partial<Record<KeySetAlgorithm, boolean>>>();

/** True when `key` is of the type (and curve, and size) that `alg` requires. */
export function keyFitsAlgorithm(alg: KeySetAlgorithm, key: KeyObject): boolean {
  let known = fits.get(key);
  if (known === undefined) fits.set(key, (known = {}));
  return (known[alg] ??= inspectKey(alg, key));
}

function inspectKey(alg: KeySetAlgorithm, key: KeyObject): boolean {
  const type = key.asymmetricKeyType;
  switch (alg[0]) {
    case 'R':
    case 'P':
      return (type === 'rsa' || (alg[0] === 'P' && type === 'rsa-pss')) && (key.asymmetricKeyDetails?.modulusLength ?? 0) >= MIN_RSA_BITS;
    case 'E':
      if (alg === 'EdDSA') return type === 'ed25519' || type === 'ed448';
      return type === 'ec' && key.asymmetricKeyDetails?.namedCurve === CURVE[alg];
    default:
      return false;
  }
}

/** Verifies an asymmetric JWS signature; the key must already fit the algorithm. */
export function asymmetricSignatureMatches(alg: KeySetAlgorithm, key: KeyObject, signingInput: string, signature: Buffer): boolean {
  const data = Buffer.from(signingInput, 'latin1');
  const hash = HASH[alg];
  switch (alg[0]) {
    case 'P':
      return verify(hash, data, { key, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: constants.RSA_PSS_SALTLEN_DIGEST }, signature);
    case 'E':
      return alg === 'EdDSA' ? verify(null, data, key, signature) : verify(hash, data, { key, dsaEncoding: 'ieee-p1363' }, signature);
    default:
      return verify(hash, data, key, signature);
  }
}
