import { describe, expect, it } from 'vitest';
import { JsonTooDeepError, MAX_JSON_DEPTH, nestsDeeperThan, parseOutsideJson } from '../../src/http/json';
import { randomText, seeded } from '../support/random';

/** The nesting depth of a parsed value, walked without recursion. */
function depthOf(value: unknown): number {
  let deepest = 0;
  const stack: [unknown, number][] = [[value, 0]];
  for (let item = stack.pop(); item !== undefined; item = stack.pop()) {
    const [node, depth] = item;
    if (typeof node !== 'object' || node === null) continue;
    deepest = Math.max(deepest, depth + 1);
    for (const child of Object.values(node)) stack.push([child, depth + 1]);
  }
  return deepest;
}

describe('parseOutsideJson: JSON from outside, bounded in depth', () => {
  it('parses what JSON.parse parses within the limit, and refuses deeper nesting naming the limit', () => {
    expect(parseOutsideJson('{"keys":[{"kid":"a"}]}')).toEqual({ keys: [{ kid: 'a' }] });
    const deep = `${'['.repeat(MAX_JSON_DEPTH + 1)}${']'.repeat(MAX_JSON_DEPTH + 1)}`;
    expect(() => parseOutsideJson(deep)).toThrow(JsonTooDeepError);
    expect(() => parseOutsideJson(deep)).toThrow('it nests deeper than 64 levels (the limit)');
    expect(parseOutsideJson(deep.slice(1, -1))).toHaveLength(1);
    // Brackets inside strings, escaped quotes included, are text.
    expect(parseOutsideJson(`{"a":"\\"${'['.repeat(200)}"}`)).toEqual({ a: `"${'['.repeat(200)}` });
  });

  it('refuses a 100,000-deep body without walking it (a fixed seed of random bodies agrees with JSON.parse)', () => {
    expect(nestsDeeperThan('['.repeat(100_000), 64)).toBe(true);
    const random = seeded(43);
    const pieces = ['[', ']', '{', '}', '"a"', ':', ',', '1', '"[', '\\"', '"', ' ', 'null'];
    for (let run = 0; run < 2_000; run++) {
      const text = randomText(random, pieces, 1 + random.int(40));
      let parsed: { value: unknown } | undefined;
      try {
        parsed = { value: JSON.parse(text) as unknown };
      } catch {
        parsed = undefined;
      }
      const limit = 1 + random.int(6);
      if (parsed === undefined) {
        expect(() => parseOutsideJson(text, limit)).toThrow();
      } else if (depthOf(parsed.value) > limit) {
        expect(() => parseOutsideJson(text, limit)).toThrow(JsonTooDeepError);
      } else {
        expect(parseOutsideJson(text, limit)).toEqual(parsed.value);
      }
    }
  });
});
