/**
 * How strong an API secret is. Anyone can choose the shared-secret path, so a guessable secret lets anyone mint
 * tokens: RFC 7518 3.2 requires an HS256 key of at least 256 bits. Used by `doctor` (a FAIL) and by the hook
 * (one warning at start). Nothing here ever returns the secret.
 */

/** Least key material of an API secret, in bytes: the HS256 hash output (RFC 7518 3.2). */
export const MIN_SECRET_BYTES = 32;

/** What to do about a weak secret: said the same way by the hook, `doctor`, `verify` and the README. */
export const SECRET_ADVICE =
  `anyone can choose the shared-secret path, so use at least ${MIN_SECRET_BYTES} random bytes (openssl ` +
  `rand -hex 32)`;

/** Fewer distinct characters than this is a pattern, not randomness (hex has 16, base64 64). */
const MIN_DISTINCT_CHARACTERS = 10;

/**
 * A word as people write one: lower case, Capitalized, camelCase or UPPER CASE. Random letters mix the cases inside
 * a word, though 18 of 20,000 random base64url secrets hold only letters, `-`, `_` and a short number at the end.
 */
const WORD = /^[a-z]*(?:[A-Z][a-z]+)*$|^[A-Z]+$/;

/** Values copied from examples and templates. */
const PLACEHOLDER = /secret|passw|changeme|example|default|qwerty|123456|letmein|admin/i;

/**
 * Bits each character can carry, by the smallest alphabet the secret is written in: what `openssl rand -hex`
 * and `-base64` print carries 4 and 6 bits a character, not the 8 of a byte of text.
 */
const ALPHABETS: readonly (readonly [RegExp, number])[] = [
  [/^[0-9a-f]+$/i, 4],
  [/^[A-Za-z0-9+/_-]+={0,2}$/, 6],
  [/^[\x20-\x7e]+$/, Math.log2(95)],
];

/**
 * The key material a secret can hold, in whole bytes, judged by the alphabet it is written in: an upper bound (two
 * UUIDs joined count 54, though they hold about 30.5 random bytes), so messages say "at most".
 */
export function keyMaterialBytes(secret: string): number {
  const text = secret.replace(/=+$/, '');
  const bits = ALPHABETS.find(([alphabet]) => alphabet.test(secret))?.[1];
  return bits === undefined ? Buffer.byteLength(secret, 'utf8') : Math.floor((text.length * bits) / 8);
}

/** Why a secret is guessable or too short, or undefined when it can be a good HS256 key. */
export function secretWeakness(secret: string): string | undefined {
  const bytes = keyMaterialBytes(secret);
  if (bytes < MIN_SECRET_BYTES) return `holds at most ${bytes} bytes of key material, under ${MIN_SECRET_BYTES}`;
  const distinct = new Set(secret).size;
  if (distinct < MIN_DISTINCT_CHARACTERS) return `has only ${distinct} distinct characters`;
  if (looksLikeWords(secret)) return 'looks like words, not random bytes';
  if (PLACEHOLDER.test(secret)) return 'contains a placeholder word such as "secret", "password" or "changeme"';
  return undefined;
}

/** Words or a passphrase: words joined by spaces or `_.-`, with at most a short number at the end. */
function looksLikeWords(secret: string): boolean {
  const text = secret.replace(/[0-9]{1,4}$/, '');
  return /^[A-Za-z\s_.-]+$/.test(text) && text.split(/[\s_.-]+/).every((word) => WORD.test(word));
}
