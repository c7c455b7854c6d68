/** JSON from outside: whether a value is an object with members (not null, not an array), and a bounded parse. */
export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** How deep JSON from outside may nest before walks overflow the stack (docs/cli.md#faults-and-limits). */
export const MAX_JSON_DEPTH = 64;

/** JSON from outside refused for its shape: it nests deeper than the limit. */
export class JsonTooDeepError extends Error {
  override readonly name = 'JsonTooDeepError';
  readonly code = 'ERR_JSON_TOO_DEEP';
  constructor(readonly maxDepth: number) {
    super(`it nests deeper than ${maxDepth} levels (the limit)`);
  }
}

/** Whether JSON text opens more than `maxDepth` arrays and objects inside each other: one pass, strings skipped. */
export function nestsDeeperThan(text: string, maxDepth: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (inString) {
      if (code === 0x5c)
        i++; // a backslash escapes the next character
      else if (code === 0x22) inString = false;
    } else if (code === 0x22) {
      inString = true;
    } else if (code === 0x5b || code === 0x7b) {
      if (++depth > maxDepth) return true;
    } else if (code === 0x5d || code === 0x7d) {
      depth--;
    }
  }
  return false;
}

/**
 * `JSON.parse` for text from outside, linear in time and at most `maxDepth` deep, else {@link JsonTooDeepError}.
 * @example `parseOutsideJson('{"keys":[]}')` is `{ keys: [] }`; 100 `[` then 100 `]` throw JsonTooDeepError
 */
export function parseOutsideJson(text: string, maxDepth = MAX_JSON_DEPTH): unknown {
  if (nestsDeeperThan(text, maxDepth)) throw new JsonTooDeepError(maxDepth);
  return JSON.parse(text) as unknown;
}
