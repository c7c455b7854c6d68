/**
 * What the CLI prints passes through here, whatever printed it (docs/cli.md, "Faults and limits"): the tokens and
 * secrets the command holds are taken out of it, whole and in the forms an echo gives them (scrub-forms.ts); so is the
 * password of any URL. Text from outside (Cube's answers, a cube.js's error, a service's message) may quote any of them.
 */
import { Writable } from 'node:stream';
import { encodedForms, FormIndex, WINDOW } from './scrub-forms';

/** What a held value is shown as. */
const TOKEN = '[token]';
const SECRET = '[secret]';
const URL_PASSWORD = '***';

/** Names of variables whose values are secrets (the API secret, SQL key secrets, a database's password...). */
const SECRET_NAME = /SECRET|PASS|TOKEN|CREDENTIAL|PRIVATE|_KEY/i;
/**
 * Of those, the settings that name no secret: a directory, durations and sizes, revoked key ids, claim names. Scrubbing
 * their values would take ids and paths the command reports out of its output.
 */
const NOT_SECRET_NAME = /(?:_DIR|_MS|_SIZE|_AGE|_REVOKED|_CLAIMS?|_ALLOW_WEAK_SECRET)$/i;
/** Values too plain to be a secret, which scrubbing would only mangle the output with: flags and numbers. */
const PLAIN_VALUE = /^(?:true|false|yes|no|on|off|\d{1,6})$/i;
/** Shorter values are not scrubbed: they would take letters out of words. */
const MIN_SECRET_LENGTH = 4;
/** A token's part shorter than this is no secret (an empty part, a cut token). */
const MIN_PART_LENGTH = 8;

/** `scheme://user:password@host` written `scheme://user:***@host`, in one pass over `text`. */
export function maskUrlPasswords(text: string): string {
  let out = '';
  let from = 0;
  let at = text.indexOf('://');
  while (at !== -1) {
    const start = at + 3;
    // The userinfo ends at the first @ before the host's end: a slash, space, ?, # or quote.
    let i = start;
    let colon = -1;
    while (i < text.length && !/[\s/?#@"'<>\\]/.test(text[i] as string)) {
      if (colon === -1 && text[i] === ':') colon = i;
      i++;
    }
    const hasScheme = /[a-z0-9+.-]/i.test(text[at - 1] ?? '');
    if (hasScheme && text[i] === '@' && colon !== -1 && colon + 1 < i) {
      out += `${text.slice(from, colon + 1)}${URL_PASSWORD}`;
      from = i;
    }
    // The scan stops at a slash, which may be the next `://`'s: look again from the colon before it.
    at = text.indexOf('://', Math.max(i - 1, start));
  }
  return out + text.slice(from);
}

/** The forms a value takes in printed text: as it is, inside a JSON string, and escaped for a terminal. */
function printedForms(value: string): string[] {
  const json = JSON.stringify(value).slice(1, -1);
  const terminal = (text: string): string =>
    // eslint-disable-next-line no-control-regex -- as terminal-text.ts escapes them
    text.replace(/[\u0000-\u001f\u007f-\u009f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  return [...new Set([value, json, terminal(value), terminal(json)])];
}

/** A value longer than this is found whole only: its windows would fill the memory (a key file in a variable). */
const MAX_PARTS_LENGTH = 4_096;

/**
 * The tokens and secrets one command holds, and what takes them out of text: in every form of {@link encodedForms},
 * in any case, split by white space or its escapes, and for a secret, any part of {@link WINDOW} characters or more.
 * @example `scrubber.holdToken(token)`, then `scrubber.scrub('sig: ' + token.split('.')[2])` is `'sig: [token]'`
 */
export class Scrubber {
  private readonly index = new FormIndex();
  private readonly held = new Set<string>();

  private hold(value: string, { shownAs, minLength, parts }: { shownAs: string; minLength: number; parts: boolean }) {
    if (value.length < minLength || this.held.has(`${shownAs}${parts}${value}`)) return;
    this.held.add(`${shownAs}${parts}${value}`);
    const inParts = parts && value.length <= MAX_PARTS_LENGTH;
    for (const form of printedForms(value)) this.index.add(form, { shownAs, parts: inParts, minLength });
    for (const { form, spill } of encodedForms(value))
      this.index.add(form, { shownAs, parts: inParts, minLength: WINDOW, spill });
  }

  /**
   * Holds a token (a JWS): whole, each of its header, payload and signature, and any part of 16 characters or more of
   * its signature, which proves it. Parts of a header or a payload are not: other tokens share them (a SQL key carries
   * the claims of the token it was made from).
   */
  holdToken(token: string): void {
    const whole = token.trim();
    this.hold(whole, { shownAs: TOKEN, minLength: MIN_SECRET_LENGTH, parts: false });
    const parts = whole.split('.');
    parts.forEach((part, i) =>
      this.hold(part, { shownAs: TOKEN, minLength: MIN_PART_LENGTH, parts: i === 2 && parts.length === 3 }),
    );
  }

  /** Holds a secret in force: whole, each item of a comma-separated list, and any part of 16 characters or more. */
  holdSecret(value: string): void {
    this.holdItems(value, true);
  }

  private holdItems(value: string, parts: boolean): void {
    const items = [value, ...value.split(',')].map((item) => item.trim());
    for (const item of items)
      if (!PLAIN_VALUE.test(item)) this.hold(item, { shownAs: SECRET, minLength: MIN_SECRET_LENGTH, parts });
  }

  /**
   * Holds the values of the environment's secret variables whole (they may be paths or names, whose parts are
   * printed), and the passwords of URLs in any variable.
   */
  holdEnvironment(env: NodeJS.ProcessEnv): void {
    for (const [name, value] of Object.entries(env)) {
      if (value === undefined || value === '') continue;
      if (SECRET_NAME.test(name) && !NOT_SECRET_NAME.test(name)) this.holdItems(value, false);
      for (const match of value.matchAll(/:\/\/[^\s/?#@:]*:([^\s/?#@]+)@/g)) this.holdItems(match[1] as string, false);
    }
  }

  /** `text` with every held value replaced and the passwords of URLs masked; linear in the text's length. */
  scrub(text: string): string {
    let result = '';
    let from = 0;
    for (const { start, end, shownAs } of this.index.find(text)) {
      result += `${text.slice(from, start)}${shownAs}`;
      from = end;
    }
    return maskUrlPasswords(result + text.slice(from));
  }
}

/** A stream that writes to `target` what is written to it, scrubbed; a terminal stays one (for colours). */
export function scrubbingStream<T extends Writable & { isTTY?: boolean }>(target: T, scrubber: Scrubber): T {
  const stream = new Writable({
    decodeStrings: false,
    write(chunk: string | Buffer, _encoding, done): void {
      const text = typeof chunk === 'string' ? chunk : chunk.toString('utf8');
      target.write(scrubber.scrub(text));
      done();
    },
  });
  return Object.assign(stream, { isTTY: target.isTTY }) as unknown as T;
}
