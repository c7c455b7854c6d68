/** When the CLI colours its output: FORCE_COLOR, NO_COLOR and whether the stream is a terminal. */
import { describe, expect, test } from 'vitest';
import { colourEnabled, painter } from '../../src/cli/io';

const terminal = { isTTY: true } as Parameters<typeof colourEnabled>[0];
const pipe = { isTTY: false } as Parameters<typeof colourEnabled>[0];

describe('colourEnabled', () => {
  test.each([
    // [what, stream, environment, coloured]
    ['a terminal', terminal, {}, true],
    ['a pipe', pipe, {}, false],
    ['NO_COLOR on a terminal', terminal, { NO_COLOR: '1' }, false],
    ['an empty NO_COLOR (not set, per no-color.org)', terminal, { NO_COLOR: '' }, true],
    ['FORCE_COLOR=1 on a pipe', pipe, { FORCE_COLOR: '1' }, true],
    ['FORCE_COLOR=3 on a pipe', pipe, { FORCE_COLOR: '3' }, true],
    ['an empty FORCE_COLOR on a pipe', pipe, { FORCE_COLOR: '' }, true],
    ['FORCE_COLOR=true on a pipe', pipe, { FORCE_COLOR: 'true' }, true],
    ['FORCE_COLOR=0 on a terminal', terminal, { FORCE_COLOR: '0' }, false],
    ['FORCE_COLOR=false on a terminal', terminal, { FORCE_COLOR: 'false' }, false],
    ['FORCE_COLOR=FALSE on a terminal', terminal, { FORCE_COLOR: 'FALSE' }, false],
    ["FORCE_COLOR=1 beats NO_COLOR (Node's precedence)", pipe, { FORCE_COLOR: '1', NO_COLOR: '1' }, true],
    ['FORCE_COLOR=0 with NO_COLOR', terminal, { FORCE_COLOR: '0', NO_COLOR: '1' }, false],
  ])('%s: %s', (_what, stream, env, coloured) => {
    expect(colourEnabled(stream, env)).toBe(coloured);
  });
});

describe('painter', () => {
  test("wraps text in the style's ANSI codes when colour is on, leaves it alone otherwise", () => {
    expect(painter(pipe, { FORCE_COLOR: '1' })('red', 'REJECTED')).toBe('\x1b[31mREJECTED\x1b[0m');
    expect(painter(terminal, { NO_COLOR: 'x' })('red', 'REJECTED')).toBe('REJECTED');
  });
});
