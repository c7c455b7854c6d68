/** A claim's place in a payload: a claim name or an RFC 6901 JSON Pointer, parsed once at start. */
import type { Fail } from './option-checks';

/** A claim's place in the payload: the text configured, and the member names to follow from the payload down. */
export interface ClaimPointer {
  readonly text: string;
  readonly path: readonly string[];
}

const ARRAY_INDEX = /^(?:0|[1-9]\d*)$/;

/** Parses a configured claim: text starting with `/` is a JSON Pointer, anything else the name of a top-level claim. */
export function claimPointer(value: unknown, fail: Fail): ClaimPointer {
  if (typeof value !== 'string' || value.trim() === '')
    fail('must be a claim name or a JSON Pointer (RFC 6901) such as "/realm_access/roles"');
  if (!value.startsWith('/')) return { text: value, path: [value] };
  const path = value
    .slice(1)
    .split('/')
    .map((token) => {
      // RFC 6901 3: "~" is escaped as "~0" and "/" as "~1"; a "~" before anything else is no pointer.
      if (/~(?![01])/.test(token))
        fail(`is not a JSON Pointer (RFC 6901): ${JSON.stringify(value)} has a "~" that is not "~0" or "~1"`);
      return token.replace(/~1/g, '/').replace(/~0/g, '~');
    });
  return { text: value, path };
}

/** The value at a claim's place, or undefined: own members only, so `/__proto__` never reads the prototype. */
export function readClaim(payload: Readonly<Record<string, unknown>>, claim: ClaimPointer): unknown {
  let value: unknown = payload;
  for (const name of claim.path) {
    if (typeof value !== 'object' || value === null) return undefined;
    if (Array.isArray(value) && !ARRAY_INDEX.test(name)) return undefined;
    if (!Object.hasOwn(value, name)) return undefined;
    value = (value as Record<string, unknown>)[name];
  }
  return value;
}
