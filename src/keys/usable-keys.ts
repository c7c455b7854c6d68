import { createPublicKey, type KeyObject } from 'node:crypto';
import { keyMisfit, recordKeyFacts } from './key-facts';
import type { JwksDocument } from './fetch-jwks';

/** The signing keys of one JWKS answer that can verify tokens of the allowed algorithms, by `kid`. */
export interface UsableKeySet {
  readonly keys: ReadonlyMap<string, KeyObject>;
  /**
   * Keys of the answer left out: not for signatures, no `kid`, malformed, private, unfit for the allowed algorithms, or
   * a repeated `kid`.
   */
  readonly skipped: number;
}

/** What jwks-rsa really returns: its typings promise `kid` and `alg`, but it sets them only when the JWK has them. */
interface ParsedKey {
  readonly kid?: string;
  readonly alg?: string;
  getPublicKey(): string;
}

/**
 * Picks the usable keys of a JWKS and converts each to a `KeyObject` once, so that verifying a token
 * never parses key material again.
 */
export async function usableKeys(
  document: JwksDocument,
  jwksUri: string,
  algorithms: readonly string[],
): Promise<UsableKeySet> {
  const keys = new Map<string, KeyObject>();
  for (const parsed of await parseSigningKeys(document, jwksUri)) {
    // First one wins on a repeated kid: a token names a key by kid alone, so a second one would be a guess.
    if (parsed.kid === undefined || keys.has(parsed.kid)) continue;
    const key = createPublicKey(parsed.getPublicKey());
    // Recorded first: the algorithm its JWK names is part of what the key may verify.
    recordKeyFacts(key, parsed.alg);
    if (!algorithms.some((alg) => keyMisfit(key, alg) === undefined)) continue;
    keys.set(parsed.kid, key);
  }
  return { keys, skipped: document.keys.length - keys.size };
}

/**
 * jwks-rsa keeps keys whose `use` is `sig` or absent and whose `kty` is RSA, EC or OKP, imports each one
 * and drops those that fail to import or are private. Our fetcher hands it the document we already fetched.
 */
async function parseSigningKeys(document: JwksDocument, jwksUri: string): Promise<readonly ParsedKey[]> {
  // jwks-rsa destructures every entry, so a single `null` in the array would make it throw for the whole set.
  const keys = document.keys
    .filter((key): key is Record<string, unknown> => typeof key === 'object' && key !== null)
    .filter(forVerifying);
  // Loaded on the first key set, not with the package: a Cube process that never sees a JWKS never loads it
  // (docs/performance.md).
  const { JwksClient } = await import('jwks-rsa');
  const client = new JwksClient({ jwksUri, cache: false, rateLimit: false, fetcher: () => Promise.resolve({ keys }) });
  try {
    return await client.getSigningKeys();
  } catch (error) {
    // jwks-rsa throws when nothing is left; the key store reports an empty set with the JWKS URL.
    if (error instanceof Error && error.name === 'JwksError') return [];
    throw error;
  }
}

/**
 * A key is for verifying signatures unless its JWK says otherwise: `use` other than `sig`, or `key_ops` without
 * `verify` (RFC 7517 4.2, 4.3). jwks-rsa reads `use` but not `key_ops`.
 */
function forVerifying(jwk: Record<string, unknown>): boolean {
  if (jwk.use !== undefined && jwk.use !== 'sig') return false;
  const ops = jwk.key_ops;
  return ops === undefined || (Array.isArray(ops) && ops.includes('verify'));
}
