import { constants, createHmac, createPrivateKey, KeyObject, sign } from 'node:crypto';
import type { TestKeyPair } from './keys';

export interface SignTokenOptions {
  /**
   * Algorithm used to sign AND written to the header (unless `header.alg` overrides it). `none` gives an
   * empty signature. Default: the key pair's `alg`, else RS256.
   */
  alg?: string;
  /**
   * A generated key pair (its private key signs; its kid and alg are the defaults), a private key, or an HMAC
   * secret. For the algorithm-confusion attack, pass the RSA public key's PEM text as the HS256 secret.
   */
  key?: TestKeyPair | KeyObject | string | Buffer;
  /** Default: the key pair's kid; none otherwise. */
  kid?: string;
  /** Merged into the header last: add anything (`jku`, `x5u`, `crit`...), override `alg`/`typ`, or remove a member with `undefined`. */
  header?: Record<string, unknown>;
}

const HASH: Record<string, string> = { '256': 'sha256', '384': 'sha384', '512': 'sha512' };

/**
 * Builds a compact JWS from scratch with node:crypto, so tests can make tokens that no well-behaved
 * library would (alg `none`, HS256 keyed with an RSA public key, lying headers). Nothing is added to the
 * payload: set `iat`/`exp` yourself.
 */
export function signToken(payload: unknown, options: SignTokenOptions = {}): string {
  const pair = isKeyPair(options.key) ? options.key : undefined;
  const alg = options.alg ?? pair?.alg ?? 'RS256';
  const kid = options.kid ?? pair?.kid;
  const header: Record<string, unknown> = { alg, typ: 'JWT', ...(kid === undefined ? {} : { kid }), ...options.header };
  for (const name of Object.keys(header)) if (header[name] === undefined) delete header[name];
  const signingInput = `${base64url(JSON.stringify(header))}.${base64url(JSON.stringify(payload))}`;
  const key = isKeyPair(options.key) ? options.key.privateKey : options.key;
  return `${signingInput}.${signature(alg, signingInput, key)}`;
}

function signature(alg: string, signingInput: string, key: KeyObject | string | Buffer | undefined): string {
  if (alg === 'none') return '';
  if (key === undefined) throw new TypeError(`signToken: alg ${alg} needs a key`);
  const hash = HASH[alg.slice(2)] ?? 'sha256';
  const data = Buffer.from(signingInput);
  if (alg.startsWith('HS')) return createHmac(hash, key).update(data).digest('base64url');
  const privateKey = key instanceof KeyObject ? key : createPrivateKey(key);
  switch (alg.slice(0, 2)) {
    case 'PS':
      return sign(hash, data, {
        key: privateKey,
        padding: constants.RSA_PKCS1_PSS_PADDING,
        saltLength: constants.RSA_PSS_SALTLEN_DIGEST,
      }).toString('base64url');
    case 'ES':
      return sign(hash, data, { key: privateKey, dsaEncoding: 'ieee-p1363' }).toString('base64url');
    case 'Ed':
      return sign(null, data, privateKey).toString('base64url');
    default:
      return sign(hash, data, privateKey).toString('base64url');
  }
}

function isKeyPair(key: SignTokenOptions['key']): key is TestKeyPair {
  return typeof key === 'object' && !Buffer.isBuffer(key) && 'privateKey' in key;
}

export function base64url(text: string): string {
  return Buffer.from(text).toString('base64url');
}
