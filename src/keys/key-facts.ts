/** What a key's JWK said, kept beside its `KeyObject`, and the one rule for whether it may verify an algorithm. */
import { createHash, type KeyObject } from 'node:crypto';
import { algorithmFacts, type Algorithm, type AlgorithmFacts } from '../algorithms';

interface KeyFacts {
  /** SHA-256 of the public key's SPKI encoding, base64url: a key replaced under the same `kid` is told apart by it. */
  readonly thumbprint: string;
}

interface Recorded extends KeyFacts {
  /** The JWK's `alg`: the key verifies tokens of that algorithm only (RFC 8725 3.1, RFC 7517 4.4). */
  readonly boundTo: string | undefined;
}

const recorded = new WeakMap<KeyObject, Recorded>();

/** Records what the JWK of `key` said (`alg` its `alg`), once per key when its key set is loaded. */
export function recordKeyFacts(key: KeyObject, alg: string | undefined): void {
  const thumbprint = createHash('sha256')
    .update(key.export({ type: 'spki', format: 'der' }))
    .digest('base64url');
  recorded.set(key, { boundTo: alg, thumbprint });
}

/** What was recorded for `key`; undefined for a key that did not come from a key set. */
export function keyFactsOf(key: KeyObject): KeyFacts | undefined {
  return recorded.get(key);
}

/** Why a key may not verify tokens of an algorithm. */
export type KeyMisfit =
  /** Its type, curve, size or RSA-PSS parameters do not fit the algorithm, or the algorithm is never verified. */
  | { readonly kind: 'unfit' }
  /** Its JWK names another algorithm, the only one it verifies. */
  | { readonly kind: 'bound'; readonly alg: string };

const UNFIT: KeyMisfit = { kind: 'unfit' };

/** Verdicts by key and algorithm: reading a key's details crosses into C++ and allocates, on every verification. */
const verdicts = new WeakMap<KeyObject, Partial<Record<Algorithm, KeyMisfit | null>>>();

/**
 * Whether `key` may verify tokens of `alg`: undefined when it may, else why not (type, curve, size, RSA-PSS
 * parameters; a JWK's own `alg`). Never looser than jsonwebtoken's check, which would throw a plain `Error`.
 */
export function keyMisfit(key: KeyObject, alg: string): KeyMisfit | undefined {
  const facts = algorithmFacts(alg);
  if (facts === undefined) return UNFIT;
  let known = verdicts.get(key);
  if (known === undefined) verdicts.set(key, (known = {}));
  let verdict = known[alg as Algorithm];
  if (verdict === undefined) known[alg as Algorithm] = verdict = misfitOf(key, alg, facts) ?? null;
  return verdict ?? undefined;
}

function misfitOf(key: KeyObject, alg: string, facts: AlgorithmFacts): KeyMisfit | undefined {
  if (!fits(key, facts)) return UNFIT;
  const boundTo = recorded.get(key)?.boundTo;
  return boundTo === undefined || boundTo === alg ? undefined : { kind: 'bound', alg: boundTo };
}

function fits(key: KeyObject, facts: AlgorithmFacts): boolean {
  // A private key never verifies: HMAC needs a secret, the others a public key.
  const type = key.type === 'secret' ? 'secret' : key.type === 'public' ? key.asymmetricKeyType : undefined;
  if (type === undefined || !facts.keyTypes.includes(type)) return false;
  const details = key.asymmetricKeyDetails;
  if (facts.curve !== undefined && details?.namedCurve !== facts.curve) return false;
  if (facts.minRsaBits !== undefined && (details?.modulusLength ?? 0) < facts.minRsaBits) return false;
  if (type !== 'rsa-pss') return true;
  // jsonwebtoken verifies with an RSA-PSS key only the algorithm of the digest the key is restricted to (so with an
  // unrestricted one, none), and only when the key's salt is no longer than that digest.
  const digestBytes = Number(facts.hash.slice(3)) / 8;
  return (
    details?.hashAlgorithm === facts.hash &&
    details.mgf1HashAlgorithm === facts.hash &&
    (details.saltLength ?? 0) <= digestBytes
  );
}
