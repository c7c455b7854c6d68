/** Least length of an API secret: HS256 keys shorter than the hash output (32 bytes) weaken it (RFC 7518, 3.2). */
export const MIN_SECRET_BYTES = 32;

/** Fewer distinct characters than this is a pattern, not randomness (hex has 16, base64 64). */
const MIN_DISTINCT_CHARACTERS = 10;

/** Letters and separators with at most a short number at the end: words or a passphrase. */
const WORDS = /^[a-z\s_.-]+[0-9]{0,4}$/i;

/** Values copied from examples and templates. */
const PLACEHOLDER = /secret|passw|changeme|example|default|qwerty|123456/i;

/**
 * Why a secret looks guessable, or undefined when it looks random enough. Anyone can choose the shared-secret
 * path, so a guessable secret lets anyone mint tokens. The answer never contains the secret.
 */
export function secretWeakness(secret: string): string | undefined {
  const bytes = Buffer.byteLength(secret, 'utf8');
  if (bytes < MIN_SECRET_BYTES) return `is ${bytes} bytes, under ${MIN_SECRET_BYTES}`;
  const distinct = new Set(secret).size;
  if (distinct < MIN_DISTINCT_CHARACTERS) return `has only ${distinct} distinct characters`;
  if (WORDS.test(secret)) return 'looks like words, not random bytes';
  if (PLACEHOLDER.test(secret)) return 'contains a placeholder word such as "secret", "password" or "changeme"';
  return undefined;
}
