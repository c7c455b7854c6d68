/** Text helpers shared by the operator commands: times, shortened tokens, aligned rows, checklists. */
import type { Check, CheckStatus } from '../doctor';
import { forTerminal } from '../terminal-text';
import type { Style } from './io';

type Paint = (style: Style, text: string) => string;

const MINUTE = 60;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** `2026-11-21T10:00:00Z`: whole seconds, as JWT numeric dates are. */
export function isoSeconds(seconds: number): string {
  return new Date(Math.trunc(seconds) * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/**
 * `in 59 min` / `3 h ago`, rounded down to the largest unit that fits, so a 1 h token minted a second ago reads "in 59
 * min".
 */
export function relative(seconds: number, nowSeconds: number): string {
  const delta = Math.trunc(seconds - nowSeconds);
  if (delta === 0) return 'now';
  const size = Math.abs(delta);
  let amount: string;
  if (size < MINUTE) amount = `${size} s`;
  else if (size < HOUR) amount = `${Math.floor(size / MINUTE)} min`;
  else if (size < 2 * DAY) amount = `${Math.floor(size / HOUR)} h`;
  else amount = `${Math.floor(size / DAY)} days`;
  return delta > 0 ? `in ${amount}` : `${amount} ago`;
}

/** The claim as seconds since 1970, or undefined when it is not one that a Date can hold. */
export function asNumericDate(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) && Math.abs(value) <= 8.64e12 ? value : undefined;
}

/** A JWT numeric date for people: `2026-11-21T10:00:00Z (in 59 min)`. */
export function describeNumericDate(value: unknown, nowSeconds: number): string {
  const seconds = asNumericDate(value);
  if (seconds === undefined) return '(not a number of seconds since 1970)';
  return `${isoSeconds(seconds)} (${relative(seconds, nowSeconds)})`;
}

const SHOWN_HEAD = 10;
const SHOWN_TAIL = 3;

/** What the ends of a compact JWS are made of: base64url and the dots between its parts. */
const JWS_CHARACTERS = /^[\w.-]*$/;

/**
 * A token as the CLI may print it: `eyJhbGciOi…(812 chars)…x9Q`. Anything that does not start like a JWS
 * (`eyJ`, a base64url JSON object), or whose ends shown are not made of a JWS's characters, is shown by length only:
 * it may be a secret pasted by mistake, or text made to act on the terminal.
 */
export function shortenToken(token: string): string {
  const count = `(${token.length} chars)`;
  const head = token.slice(0, SHOWN_HEAD);
  const tail = token.slice(-SHOWN_TAIL);
  if (!token.startsWith('eyJ') || token.length <= 4 * (SHOWN_HEAD + SHOWN_TAIL) || !JWS_CHARACTERS.test(head + tail))
    return `…${count}…`;
  return `${head}…${count}…${tail}`;
}

/** Label/value lines with the values aligned; multi-line values are indented under the first line. */
export function rows(entries: readonly (readonly [string, string])[], paint: Paint): string {
  const width = Math.max(0, ...entries.map(([label]) => label.length));
  const pad = ' '.repeat(width + 2);
  return entries
    .map(([label, value]) => `${paint('bold', label.padEnd(width))}  ${value.split('\n').join(`\n${pad}`)}\n`)
    .join('');
}

const STATUS_STYLE: Record<CheckStatus, { readonly label: string; readonly style: Style }> = {
  ok: { label: 'OK', style: 'green' },
  warn: { label: 'WARN', style: 'yellow' },
  fail: { label: 'FAIL', style: 'red' },
};

/** `  OK    api-secret      64 bytes, …` lines; a message quotes configured values and what servers answered. */
export function checklist(items: readonly Check[], paint: Paint): string {
  const width = Math.max(0, ...items.map((item) => item.id.length));
  return items
    .map(({ id, status, message }) => {
      const { label, style } = STATUS_STYLE[status];
      // Pad outside the colour codes, so that a coloured label ends where the plain one would.
      return `  ${paint(style, label)}${' '.repeat(6 - label.length)}${id.padEnd(width)}  ${forTerminal(message)}\n`;
    })
    .join('');
}

/** `1 failure, 2 warnings` */
export function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}
