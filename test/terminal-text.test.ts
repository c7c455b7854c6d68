import { describe, expect, it } from 'vitest';
import { forTerminal, jsonForTerminal } from '../src/terminal-text';

describe('forTerminal: text from outside as the CLI prints it', () => {
  it.each([
    ['ESC (colour, window title)', 'a\u001b[31mb\u001b]0;t\u0007', 'a\\u001b[31mb\\u001b]0;t\\u0007'],
    ['line breaks and tabs', 'a\nb\r\tc', 'a\\u000ab\\u000d\\u0009c'],
    [
      'DEL and the C1 controls, U+009B (CSI) among them',
      '\u007f\u0080\u009b2J\u009f',
      '\\u007f\\u0080\\u009b2J\\u009f',
    ],
    [
      'bidirectional formatting',
      '\u202eevil\u202c \u2066x\u2069 \u200e\u200f\u061c',
      '\\u202eevil\\u202c \\u2066x\\u2069 \\u200e\\u200f\\u061c',
    ],
    ['line and paragraph separators', 'a\u2028b\u2029c', 'a\\u2028b\\u2029c'],
    ['lone surrogates, high and low', 'a\ud800b\udc00', 'a\\ud800b\\udc00'],
  ])('escapes %s as \\uXXXX', (_name, text, shown) => {
    expect(forTerminal(text)).toBe(shown);
  });

  it('keeps every other character: letters of any script, symbols, paired surrogates', () => {
    const text = 'Schlüssel 鍵 ключ مفتاح 🔑 "quoted" \\ ~';
    expect(forTerminal(text)).toBe(text);
  });
});

describe('jsonForTerminal: JSON by the same rule', () => {
  const value = { 'n\u001b[1m': ['\u009b', 'a\u2028b', '\ud800', 'é'], plain: 1 };

  it('parses back to the same value, indented or not', () => {
    expect(JSON.parse(jsonForTerminal(value))).toEqual(value);
    expect(JSON.parse(jsonForTerminal(value, 2))).toEqual(value);
  });

  it('escapes what JSON.stringify leaves raw, and keeps the line breaks of the indentation', () => {
    expect(jsonForTerminal(value, 2)).toBe(
      '{\n  "n\\u001b[1m": [\n    "\\u009b",\n    "a\\u2028b",\n    "\\ud800",\n    "é"\n  ],\n  "plain": 1\n}',
    );
  });
});
