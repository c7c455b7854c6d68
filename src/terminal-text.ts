/**
 * Text from outside as the CLI prints it: what a terminal acts on is written as `\uXXXX`, the rest shown as it is
 * (docs/security.md, "Text from outside, on a terminal"). The characters: C0 and C1 controls, DEL, bidirectional
 * formatting, line and paragraph separators, lone surrogates (the `u` flag keeps pairs whole).
 */
// eslint-disable-next-line no-control-regex -- control characters are what is escaped
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069\ud800-\udfff]/gu;

/** `text` with every character of {@link UNSAFE} written as `\uXXXX`. */
export function forTerminal(text: string): string {
  return text.replace(UNSAFE, (unsafe) => `\\u${unsafe.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/**
 * `JSON.stringify(value, null, indent)`, escaped by the same rule. `\uXXXX` is JSON's own escape, so the text still
 * parses to the same value; the only raw control characters `JSON.stringify` leaves are the line breaks of its
 * indentation, which are kept.
 */
export function jsonForTerminal(value: unknown, indent?: number): string {
  return JSON.stringify(value, null, indent).split('\n').map(forTerminal).join('\n');
}
