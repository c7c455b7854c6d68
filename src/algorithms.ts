/** The one table of algorithm facts; whether a key may verify one is decided by `keyMisfit` (keys/key-facts.ts). */

export interface AlgorithmFacts {
  /** Digest the signature is computed over (RSA-PSS keys restrict theirs). */
  readonly hash: 'sha256' | 'sha384' | 'sha512';
  /** `KeyObject` types that can hold the key: `secret` for HMAC, `asymmetricKeyType` otherwise. */
  readonly keyTypes: readonly string[];
  readonly curve?: string;
  /** Smallest RSA modulus accepted, as NIST SP 800-131A and jsonwebtoken's signing side require. */
  readonly minRsaBits?: number;
  /** Characters of an ECDSA signature's base64url text: R and S, each as long as the curve's order (RFC 7518 3.4). */
  readonly signatureLength?: number;
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
  ES256: { hash: 'sha256', keyTypes: ['ec'], curve: 'prime256v1', signatureLength: 86 },
  ES384: { hash: 'sha384', keyTypes: ['ec'], curve: 'secp384r1', signatureLength: 128 },
  ES512: { hash: 'sha512', keyTypes: ['ec'], curve: 'secp521r1', signatureLength: 176 },
} as const satisfies Record<string, AlgorithmFacts>;

export type Algorithm = keyof typeof FACTS;

/** The facts of `alg`; undefined for an algorithm the package never verifies (`none`, `EdDSA`, `__proto__`…). */
export function algorithmFacts(alg: string): AlgorithmFacts | undefined {
  return Object.hasOwn(FACTS, alg) ? FACTS[alg as Algorithm] : undefined;
}

/** The shared-secret path's only algorithm: the service signs with the API secret. */
export const SHARED_SECRET_ALGORITHM = 'HS256' satisfies Algorithm;

/** Algorithms of the key-set path: asymmetric only; no EdDSA, which jsonwebtoken cannot verify. */
export const KEY_SET_ALGORITHMS = [
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
  'ES256',
  'ES384',
  'ES512',
] as const;
export type KeySetAlgorithm = (typeof KEY_SET_ALGORITHMS)[number];

export function isKeySetAlgorithm(value: unknown): value is KeySetAlgorithm {
  return (KEY_SET_ALGORITHMS as readonly unknown[]).includes(value);
}
