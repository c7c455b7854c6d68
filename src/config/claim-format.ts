/**
 * How a token writes its tenant or groups claim (docs/authorization.md#claim-formats): JSON values (`array`), a string
 * holding JSON (`json`, Cognito), or a space-separated string (`space`, OAuth's `scope`). Declared per provider.
 */
import type { Fail } from './option-checks';

/** The claim formats, `array` (the value as it is) first: the default. */
export const CLAIM_FORMATS = ['array', 'json', 'space'] as const;

/** How a claim's value is written. */
export type ClaimFormat = (typeof CLAIM_FORMATS)[number];

/** The longest claim text read as JSON or names: a claim is a few names, a header line a few KB behind proxies. */
export const MAX_CLAIM_TEXT_CHARS = 8192;

/** Checks a configured format (any case): one of {@link CLAIM_FORMATS}. */
export function claimFormat(value: unknown, fail: Fail): ClaimFormat {
  const given = typeof value === 'string' ? value.trim().toLowerCase() : undefined;
  const known = CLAIM_FORMATS.find((format) => format === given);
  if (known === undefined) fail(`must be one of ${CLAIM_FORMATS.join(', ')}`);
  return known;
}

/** A claim's value as its format reads it, or what it is instead (never the value), after "it is". */
export type DecodedClaim = { readonly value: unknown } | { readonly problem: string };

/** A string claim's text, bounded before it is read. */
function boundedText(value: unknown): DecodedClaim {
  if (typeof value !== 'string') return { problem: Array.isArray(value) ? 'a list, not a string' : 'not a string' };
  if (value.length > MAX_CLAIM_TEXT_CHARS) return { problem: `longer than ${MAX_CLAIM_TEXT_CHARS} characters` };
  return { value };
}

/**
 * Reads a claim's value in its declared format: `array` leaves it as it is; `json` parses a string into a list or a
 * string; `space` splits a string at white space into a list (an empty string: an empty list).
 * @example
 * ```ts
 * decodeClaim('["analyst","admin"]', 'json'); // { value: ['analyst', 'admin'] }
 * decodeClaim('openid analyst', 'space'); // { value: ['openid', 'analyst'] }
 * decodeClaim('analyst', 'json'); // { problem: 'not JSON' }
 * ```
 */
export function decodeClaim(value: unknown, format: ClaimFormat): DecodedClaim {
  if (format === 'array') return { value };
  const text = boundedText(value);
  if (!('value' in text)) return text;
  const given = text.value as string;
  if (format === 'space') {
    const trimmed = given.trim();
    return { value: trimmed === '' ? [] : trimmed.split(/[\t\n\r ]+/) };
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(given);
  } catch {
    return { problem: 'not JSON' };
  }
  if (typeof parsed !== 'string' && !Array.isArray(parsed))
    return { problem: 'JSON that is neither a list nor a string' };
  return { value: parsed };
}

/**
 * Reads a tenant claim's value in its declared format: as {@link decodeClaim}, and a list of one name that `json` or
 * `space` makes is that one tenant (a list of several stays a list, which no tenant is).
 * @example
 * ```ts
 * decodeTenant('acme', 'space'); // { value: 'acme' }
 * decodeTenant('["acme"]', 'json'); // { value: 'acme' }
 * ```
 */
export function decodeTenant(value: unknown, format: ClaimFormat): DecodedClaim {
  const result = decodeClaim(value, format);
  if (format === 'array' || !('value' in result)) return result;
  const list = result.value;
  return Array.isArray(list) && list.length === 1 ? { value: list[0] } : result;
}
