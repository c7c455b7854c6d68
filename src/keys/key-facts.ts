/**
 * What a key set said about each key, kept beside its `KeyObject` (the key store hands out `KeyObject`s only):
 * the one algorithm its JWK names, if any, and a thumbprint of the key itself, so that a key replaced under the
 * same `kid` is told apart from the one it replaced.
 */
import { createHash, type KeyObject } from 'node:crypto';

export interface KeyFacts {
  /** The JWK's `alg`: the key verifies tokens of that algorithm only (RFC 8725 3.1, RFC 7517 4.4). */
  readonly alg: string | undefined;
  /** SHA-256 of the public key's SPKI encoding, base64url. */
  readonly thumbprint: string;
}

const facts = new WeakMap<KeyObject, KeyFacts>();

/** Records what the JWK of `key` said; called once per key when a key set is loaded. */
export function recordKeyFacts(key: KeyObject, alg: string | undefined): void {
  const thumbprint = createHash('sha256').update(key.export({ type: 'spki', format: 'der' })).digest('base64url');
  facts.set(key, { alg, thumbprint });
}

/** What was recorded for `key`; undefined for a key that did not come from a key set. */
export function keyFactsOf(key: KeyObject): KeyFacts | undefined {
  return facts.get(key);
}
