/**
 * The one table of algorithm facts: for each JWS algorithm the package verifies, the key it needs. A leaf
 * module: everything that asks "may this key verify that algorithm?" asks here.
 */
import type { KeyObject } from 'node:crypto';

interface AlgorithmFacts {
  /** Digest the signature is computed over (RSA-PSS keys restrict theirs). */
  readonly hash: 'sha256' | 'sha384' | 'sha512';
  /** `KeyObject` types that can hold the key: `secret` for HMAC, `asymmetricKeyType` otherwise. */
  readonly keyTypes: readonly string[];
  /** Named curve an EC key must be on. */
  readonly curve?: string;
  /** Smallest RSA modulus accepted, as NIST SP 800-131A and jsonwebtoken's signing side require. */
  readonly minRsaBits?: number;
}

const RSA = { keyTypes: ['rsa'], minRsaBits: 2048 } as const;
const RSA_PSS = { keyTypes: ['rsa', 'rsa-pss'], minRsaBits: 2048 } as const;

const FACTS = {
  HS256: { hash: 'sha256', keyTypes: ['secret'] },
  RS256: { hash: 'sha256', ...RSA },
  RS384: { hash: 'sha384', ...RSA },
  RS512: { hash: 'sha512', ...RSA },
  PS256: { hash: 'sha256', ...RSA_PSS },
  PS384: { hash: 'sha384', ...RSA_PSS },
  PS512: { hash: 'sha512', ...RSA_PSS },
  ES256: { hash: 'sha256', keyTypes: ['ec'], curve: 'prime256v1' },
  ES384: { hash: 'sha384', keyTypes: ['ec'], curve: 'secp384r1' },
  ES512: { hash: 'sha512', keyTypes: ['ec'], curve: 'secp521r1' },
} as const satisfies Record<string, AlgorithmFacts>;

export type Algorithm = keyof typeof FACTS;

/** The shared-secret path's only algorithm: the service signs with the API secret. */
export const SHARED_SECRET_ALGORITHM = 'HS256' satisfies Algorithm;

/**
 * Algorithms the key-set path can be configured with: asymmetric only, never HS* or `none`. EdDSA is left out
 * because jsonwebtoken, which verifies every token, does not implement it (nor does Cube's own JWT auth).
 */
export const KEY_SET_ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512'] as const;
export type KeySetAlgorithm = (typeof KEY_SET_ALGORITHMS)[number];

export function isKeySetAlgorithm(value: unknown): value is KeySetAlgorithm {
  return (KEY_SET_ALGORITHMS as readonly unknown[]).includes(value);
}

/** Answers of {@link keyFitsAlgorithm} per key: reading a key's details crosses into C++ and allocates. */
const fits = new WeakMap<KeyObject, Partial<Record<Algorithm, boolean>>>();

/** True when `key` is of the type (and curve, size and RSA-PSS digest) that `alg` requires. */
export function keyFitsAlgorithm(alg: Algorithm, key: KeyObject): boolean {
  let known = fits.get(key);
  if (known === undefined) fits.set(key, (known = {}));
  return (known[alg] ??= inspect(FACTS[alg], key));
}

function inspect(facts: AlgorithmFacts, key: KeyObject): boolean {
  const type = key.type === 'secret' ? 'secret' : key.asymmetricKeyType;
  if (type === undefined || !facts.keyTypes.includes(type)) return false;
  const details = key.asymmetricKeyDetails;
  if (facts.curve !== undefined && details?.namedCurve !== facts.curve) return false;
  if (facts.minRsaBits !== undefined && (details?.modulusLength ?? 0) < facts.minRsaBits) return false;
  // An RSA-PSS key may be restricted to one digest; it then verifies only the algorithm of that digest.
  return type !== 'rsa-pss' || details?.hashAlgorithm === undefined || (details.hashAlgorithm === facts.hash && details.mgf1HashAlgorithm === facts.hash);
}
