/** How strong an API secret is, never returning it (docs/security.md#security-notes). */

/** Least key material of an API secret, in bytes: the HS256 hash output (RFC 7518 3.2). */
export const MIN_SECRET_BYTES = 32;

/** What to do about a weak secret: said the same way by the hook, `doctor`, `verify` and the README. */
export const SECRET_ADVICE = `anyone can choose the shared-secret path, so use at least ${MIN_SECRET_BYTES} random bytes (openssl rand -hex 32)`;

/** Fewer distinct characters than this is a pattern, not randomness (hex has 16, base64 64). */
const MIN_DISTINCT_CHARACTERS = 10;

/** A word as people write one: lower case, Capitalized, camelCase or UPPER CASE. */
const WORD = /^[a-z]*(?:[A-Z][a-z]+)*$|^[A-Z]+$/;

/** Values copied from examples and templates. */
const PLACEHOLDER = /secret|passw|changeme|example|default|qwerty|123456|letmein|admin/i;

/** Bits a character carries, by the smallest alphabet the secret is written in (hex 4, base64 6). */
const ALPHABETS: readonly (readonly [RegExp, number, string])[] = [
  [/^[0-9a-f]+$/i, 4, 'hex digits'],
  [/^[A-Za-z0-9+/_-]+={0,2}$/, 6, 'base64 characters'],
  [/^[\x20-\x7e]+$/, Math.log2(95), 'printable characters'],
];

/** What a secret's length and alphabet measure: the key material its characters carry. */
export interface SecretStrength {
  /** Characters counted (base64 padding left out). */
  readonly characters: number;
  /** The smallest alphabet it is written in: `hex digits`, `base64 characters`, `printable characters` or `bytes`. */
  readonly alphabet: string;
  /** Whole bits the characters carry. */
  readonly bits: number;
  /** Whole bytes of key material. */
  readonly bytes: number;
}

/**
 * The key material a secret carries, measured from its length and alphabet; {@link secretWeakness} finds patterns.
 * @example
 * secretStrength('9f'.repeat(32)); // { characters: 64, alphabet: 'hex digits', bits: 256, bytes: 32 }
 */
export function secretStrength(secret: string): SecretStrength {
  const found = ALPHABETS.find(([alphabet]) => alphabet.test(secret));
  if (found === undefined) {
    const bytes = Buffer.byteLength(secret, 'utf8');
    return { characters: bytes, alphabet: 'bytes', bits: bytes * 8, bytes };
  }
  const characters = secret.replace(/=+$/, '').length;
  const bits = Math.floor(characters * found[1]);
  return { characters, alphabet: found[2], bits, bytes: Math.floor(bits / 8) };
}

/** The key material of a secret, in whole bytes ({@link secretStrength}). */
export function keyMaterialBytes(secret: string): number {
  return secretStrength(secret).bytes;
}

/** The measure as said in a message: `64 hex digits, 32 bytes: 256 bits` (never the secret). */
export function describeStrength({ characters, alphabet, bits, bytes }: SecretStrength): string {
  return alphabet === 'bytes'
    ? `${bytes} bytes of text: ${bits} bits`
    : `${characters} ${alphabet}, ${bytes} bytes: ${bits} bits`;
}

/** Why a secret is guessable or too short, or undefined when it can be a good HS256 key. */
export function secretWeakness(secret: string): string | undefined {
  const strength = secretStrength(secret);
  if (strength.bytes < MIN_SECRET_BYTES)
    return `is ${describeStrength(strength)} of key material, under ${MIN_SECRET_BYTES} bytes`;
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
