/**
 * Text from outside as the CLI prints it: a token's header and claims, a discovery document's URLs, a deployment's or
 * the service's answers, messages that quote any of them. The one rule for all of it, in human output and in
 * `--json` alike: a character that a terminal acts on instead of showing is written as its `\uXXXX` escape, so a
 * hostile value can neither move the cursor, retitle the window, hide or reorder text, nor start a line that looks
 * like the CLI's own. Every other character, letters of any script included, is shown as it is.
 *
 * Not the rule of `quotedText` (errors.ts), which makes a refusal message for callers and logs: printable ASCII
 * only, cut at 64 characters. An operator reading the CLI is shown the whole value, escaped where it must be.
 */

/**
 * C0 controls (ESC, BEL, line breaks...), DEL, C1 controls (U+009B is a whole CSI on terminals that take 8-bit
 * controls), the bidirectional formatting characters (they reorder what follows them on the line: CVE-2021-42574),
 * the line and paragraph separators, and lone surrogates (no character at all; the `u` flag keeps pairs whole).
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
