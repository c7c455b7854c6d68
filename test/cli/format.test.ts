import { describe, expect, it } from 'vitest';
import {
  asNumericDate,
  checklist,
  describeNumericDate,
  isoSeconds,
  plural,
  relative,
  rows,
  shortenToken,
} from '../../src/cli/format';
import type { Style } from '../../src/cli/io';

/** A painter that shows where it painted: `<style>text</style>`. */
const marked = (style: Style, text: string): string => `<${style}>${text}</${style}>`;
const plain = (_style: Style, text: string): string => text;

describe('times', () => {
  it('isoSeconds: whole seconds, a fraction cut off', () => {
    expect(isoSeconds(1_795_000_000)).toBe('2026-11-18T11:06:40Z');
    expect(isoSeconds(1_795_000_000.9)).toBe('2026-11-18T11:06:40Z');
  });

  it.each([
    [0, 'now'],
    [59, 'in 59 s'],
    [-59, '59 s ago'],
    [3_599, 'in 59 min'],
    [3_600, 'in 1 h'],
    [2 * 86_400 - 1, 'in 47 h'],
    [-2 * 86_400, '2 days ago'],
  ])('relative: %i s from now is %j, rounded down to the largest unit that fits', (delta, text) => {
    expect(relative(1_000_000 + delta, 1_000_000)).toBe(text);
  });

  it('asNumericDate: a number a Date can hold, else undefined', () => {
    expect(asNumericDate(1_795_000_000)).toBe(1_795_000_000);
    expect(asNumericDate(-1)).toBe(-1);
    for (const value of ['1795000000', Number.NaN, Number.POSITIVE_INFINITY, 8.64e12 + 1, null])
      expect(asNumericDate(value)).toBeUndefined();
  });

  it('describeNumericDate: the date and how far it is, or why it is none', () => {
    expect(describeNumericDate(1_795_000_060, 1_795_000_000)).toBe('2026-11-18T11:07:40Z (in 1 min)');
    expect(describeNumericDate('tomorrow', 1_795_000_000)).toBe('(not a number of seconds since 1970)');
  });
});

describe('shortenToken', () => {
  const jws = `eyJhbGciOiJIUzI1NiJ9.${'a'.repeat(80)}.signature-x9Q`;

  it('shows a JWS by its ends and its length', () => {
    expect(shortenToken(jws)).toBe(`eyJhbGciOi…(${jws.length} chars)…x9Q`);
  });

  it.each([
    ['what does not start as a JWS (a secret pasted by mistake)', 'not-a-token-'.repeat(10)],
    ['a token too short to keep anything hidden', 'eyJhbGciOiJIUzI1NiJ9.e30.sig'],
    ['ends that are not made of base64url', `eyJhbGciOi${'a'.repeat(60)}\u001b[2J`],
  ])('shows %s by its length only', (_, text) => {
    expect(shortenToken(text)).toBe(`…(${text.length} chars)…`);
  });
});

describe('rows', () => {
  it('aligns the values after the longest label, indents the lines of a multi-line value under the first, and paints the labels', () => {
    expect(
      rows(
        [
          ['Token', 'eyJ…'],
          ['Context', '{\n  "a": 1\n}'],
        ],
        marked,
      ),
    ).toBe('<bold>Token  </bold>  eyJ…\n<bold>Context</bold>  {\n           "a": 1\n         }\n');
  });
});

describe('checklist', () => {
  it('one line a check: its status, padded outside the colour, its id aligned, its message escaped', () => {
    const checks = [
      { id: 'configuration', status: 'ok', message: 'the checkAuth hook accepts this environment' },
      { id: 'jwks-url', status: 'warn', message: 'CUBEJS_JWK_URL http://idp\u001b[2J is plain http' },
      { id: 'audience', status: 'fail', message: 'no' },
    ] as const;
    expect(checklist(checks, marked)).toBe(
      [
        '  <green>OK</green>    configuration  the checkAuth hook accepts this environment',
        '  <yellow>WARN</yellow>  jwks-url       CUBEJS_JWK_URL http://idp\\u001b[2J is plain http',
        '  <red>FAIL</red>  audience       no',
        '',
      ].join('\n'),
    );
    expect(checklist(checks, plain).split('\n')[1]).toBe(
      '  WARN  jwks-url       CUBEJS_JWK_URL http://idp\\u001b[2J is plain http',
    );
  });
});

describe('plural', () => {
  it.each([
    [0, '0 failures'],
    [1, '1 failure'],
    [2, '2 failures'],
  ])('%i', (count, text) => {
    expect(plural(count, 'failure')).toBe(text);
  });
});
