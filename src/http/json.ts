/**
 * Whether a value parsed from JSON that came from outside (an answer's body, a token's header or payload) is an
 * object with members: not null, and not an array, which `typeof` calls an object too.
 */
export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
