import {
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  randomUUID,
  type JsonWebKey,
  type KeyObject,
} from 'node:crypto';

/** Asymmetric JWS algorithms a test key can be made for. */
export type KeyAlgorithm =
  'RS256' | 'RS384' | 'RS512' | 'PS256' | 'PS384' | 'PS512' | 'ES256' | 'ES384' | 'ES512' | 'EdDSA';

/** A public JWK as a JWKS serves it. */
export type PublicJwk = JsonWebKey & { kid: string; alg?: string; use?: string };

/** A generated key pair with its `kid` and public JWK. */
export interface TestKeyPair {
  readonly kid: string;
  readonly alg: KeyAlgorithm;
  readonly privateKey: KeyObject;
  readonly publicKey: KeyObject;
  /** Public JWK with `kid`, `alg` and `use: "sig"`. */
  readonly jwk: PublicJwk;
}

export interface KeyPairOptions {
  /** Default: a random UUID. */
  kid?: string;
  /** RSA modulus size in bits. Default 2048. */
  modulusLength?: number;
  /** Curve for EdDSA. Default Ed25519. */
  edCurve?: 'ed25519' | 'ed448';
}

const EC_CURVE: Partial<Record<KeyAlgorithm, string>> = { ES256: 'P-256', ES384: 'P-384', ES512: 'P-521' };

/** Generates a key pair for `alg` (node:crypto, synchronous: RSA 2048 takes tens of milliseconds). */
export function generateKeyPair(alg: KeyAlgorithm = 'RS256', options: KeyPairOptions = {}): TestKeyPair {
  const { privateKey, publicKey } = generate(alg, options);
  const kid = options.kid ?? randomUUID();
  return { kid, alg, privateKey, publicKey, jwk: publicJwk(publicKey, { kid, alg, use: 'sig' }) };
}

/**
 * The pair imported again from DER, so that no key the tests export shares its lock with a generation job: on Node
 * 20.20.2 a JWK export of an EC key from `generateKeyPairSync` deadlocks when a garbage collection during the export
 * frees the key's generation job (docs/development.md#deadlines).
 */
function generate(alg: KeyAlgorithm, options: KeyPairOptions): { privateKey: KeyObject; publicKey: KeyObject } {
  const pair = generated(alg, options);
  return {
    privateKey: createPrivateKey({
      key: pair.privateKey.export({ type: 'pkcs8', format: 'der' }),
      format: 'der',
      type: 'pkcs8',
    }),
    publicKey: createPublicKey({
      key: pair.publicKey.export({ type: 'spki', format: 'der' }),
      format: 'der',
      type: 'spki',
    }),
  };
}

function generated(alg: KeyAlgorithm, options: KeyPairOptions): { privateKey: KeyObject; publicKey: KeyObject } {
  const curve = EC_CURVE[alg];
  if (curve) return generateKeyPairSync('ec', { namedCurve: curve });
  if (alg === 'EdDSA')
    return options.edCurve === 'ed448' ? generateKeyPairSync('ed448') : generateKeyPairSync('ed25519');
  return generateKeyPairSync('rsa', { modulusLength: options.modulusLength ?? 2048 });
}

/** The public JWK of `publicKey` with the given members added (pass `undefined` to leave one out). */
export function publicJwk(publicKey: KeyObject, members: { kid: string; alg?: string; use?: string }): PublicJwk {
  const jwk: PublicJwk = { ...publicKey.export({ format: 'jwk' }), ...members };
  for (const name of Object.keys(jwk) as (keyof PublicJwk)[]) if (jwk[name] === undefined) delete jwk[name];
  return jwk;
}

/** A JWKS document. */
export function jwks(...keys: (TestKeyPair | object)[]): { keys: object[] } {
  return { keys: keys.map((key) => ('jwk' in key ? key.jwk : key)) };
}
