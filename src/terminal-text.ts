/** Text from outside as the CLI prints it: what a terminal acts on as `\uXXXX` (docs/security.md#security-notes). */
// eslint-disable-next-line no-control-regex -- control characters are what is escaped
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069\ud800-\udfff]/gu;

export function forTerminal(text: string): string {
  return text.replace(UNSAFE, (unsafe) => `\\u${unsafe.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** `JSON.stringify(value, null, indent)`, escaped by the same rule: `\uXXXX` still parses to the same value. */
export function jsonForTerminal(value: unknown, indent?: number): string {
  return JSON.stringify(value, null, indent).split('\n').map(forTerminal).join('\n');
}
