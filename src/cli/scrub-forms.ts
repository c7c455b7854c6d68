/**
 * How the scrubber finds a held value in printed text in any form a service or a Cube may echo it (docs/cli.md,
 * "Faults and limits"): text and value are both read as a skeleton (white space and its escapes left out, `%XX`
 * decoded, ASCII folded to lower case), and every 16-character window of a value's skeleton is looked up in one map,
 * so the work is one lookup per character of text however many values are held.
 */

/** Windows this long are looked up; a value's part this long or longer is found wherever it is printed. */
export const WINDOW = 16;

/** Printed text as matching reads it: its characters kept, and where each came from in the text. */
interface Skeleton {
  readonly text: string;
  /** The characters kept, as codes. */
  readonly codes: Uint16Array;
  /** For each character kept, the index in the text where it starts, and where it ends. */
  readonly start: Int32Array;
  readonly end: Int32Array;
}

/** The value of a hexadecimal digit's code, or -1. */
function hexDigit(code: number): number {
  if (code >= 0x30 && code <= 0x39) return code - 0x30;
  const lower = code | 0x20;
  return lower >= 0x61 && lower <= 0x66 ? lower - 0x57 : -1;
}
/** `\u0009` to `\u000d` and `\u0020`, as JSON and terminal-text.ts escape white space. */
const ESCAPED_SPACE = /^u00(?:0[9a-d]|20)$/i;

const isSpace = (code: number): boolean => code === 0x20 || (code >= 0x09 && code <= 0x0d) || code === 0xa0;
const fold = (code: number): number => (code >= 0x41 && code <= 0x5a ? code + 0x20 : code);

/** How many characters of `text` from `i` are an escaped white space (`\n`, `\\n`, `\u000a`...); 0 if none. */
function escapedSpaceAt(text: string, i: number): number {
  let j = i;
  while (text.charCodeAt(j) === 0x5c) j++;
  const next = text[j];
  if (next === 'n' || next === 'r' || next === 't') return j + 1 - i;
  return next === 'u' && ESCAPED_SPACE.test(text.slice(j, j + 5)) ? j + 5 - i : 0;
}

/** The skeleton of `text`, in one pass. */
function skeletonOf(text: string): Skeleton {
  const codes = new Uint16Array(text.length);
  const start = new Int32Array(text.length);
  const end = new Int32Array(text.length);
  let length = 0;
  for (let i = 0; i < text.length;) {
    let code = text.charCodeAt(i);
    let width = 1;
    if (code === 0x5c) {
      const escaped = escapedSpaceAt(text, i);
      if (escaped > 0) {
        i += escaped;
        continue;
      }
    } else if (code === 0x25) {
      const decoded = hexDigit(text.charCodeAt(i + 1)) * 16 + hexDigit(text.charCodeAt(i + 2));
      // Beyond ASCII a byte is part of a UTF-8 sequence: the value's URL-encoded form is held for that.
      if (decoded >= 0 && decoded < 0x80 && hexDigit(text.charCodeAt(i + 2)) >= 0) [code, width] = [decoded, 3];
    }
    if (!isSpace(code)) {
      start[length] = i;
      end[length] = i + width;
      codes[length++] = fold(code);
    }
    i += width;
  }
  // UTF-16 code units as they are, lone surrogates included: Buffer's utf16le keeps them.
  const kept = Buffer.from(codes.buffer, 0, length * 2).toString('utf16le');
  return { text: kept, codes: codes.subarray(0, length), start, end };
}

/** A number for each window of `codes`: a polynomial hash, rolled one character at a time. */
const BASE = 0x01000193;
/** `BASE` to the power of the window's length, 32 bits. */
const BASE_POWER = Array.from({ length: WINDOW }).reduce<number>((power) => Math.imul(power, BASE), 1);

function hashAt(codes: Uint16Array, at: number): number {
  let hash = 0;
  for (let j = at; j < at + WINDOW; j++) hash = (Math.imul(hash, BASE) + (codes[j] as number)) | 0;
  return hash;
}

/** The hash of the window after the one of `hash` at `at`. */
const rolled = (codes: Uint16Array, at: number, hash: number): number =>
  (Math.imul(hash, BASE) + (codes[at + WINDOW] ?? 0) - Math.imul(codes[at] as number, BASE_POWER)) | 0;

/** The base64 of `bytes` at each of the three alignments in a longer text: only the characters they alone decide. */
function base64Cores(bytes: Buffer): string[] {
  return [0, 1, 2].map((offset) => {
    const encoded = Buffer.concat([Buffer.alloc(offset), bytes])
      .toString('base64')
      .replace(/=+$/, '');
    // A last group that is not whole shares its last character with what follows.
    const last = (offset + bytes.length) % 3 === 0 ? encoded.length : encoded.length - 1;
    return encoded.slice([0, 2, 3][offset], last);
  });
}

/**
 * Windows held at most, about 14 MB: past them a value is held whole only. The secrets in force are held first; a
 * token takes some 1,500 (its forms), so a command's first 60 or so tokens are held in parts too.
 */
const MAX_WINDOWS = 100_000;

/** An encoding of a value, and how many characters of the encoding around it it shares (a base64 group's). */
export interface EncodedForm {
  readonly form: string;
  readonly spill: number;
}

/** A value's encodings a service may echo: base64 and base64url at every alignment, hex, URL-encoding. */
export function encodedForms(value: string): EncodedForm[] {
  const bytes = Buffer.from(value, 'utf8');
  const base64 = base64Cores(bytes);
  const cores = [...base64, ...base64.map((core) => core.replace(/\+/g, '-').replace(/\//g, '_'))];
  const forms = [...new Set(cores)].map((form) => ({ form, spill: BASE64_SPILL }));
  for (const form of new Set([bytes.toString('hex'), encodeURIComponent(value)]))
    if (form !== value) forms.push({ form, spill: 0 });
  return forms;
}

/** Characters of a base64 text next to a value's core that still hold bits of it: the group's rest, its padding. */
const BASE64_SPILL = 3;
/** The base64 and base64url alphabets and padding, folded to lower case as the skeleton is. */
const BASE64_CHAR = /[a-z0-9+/=_-]/;

/** `start` and `end` widened by up to `spill` base64 characters each way, next to each other in the text. */
function widened(skeleton: Skeleton, start: number, end: number, spill: number): { start: number; end: number } {
  const { text: kept } = skeleton;
  const joined = (i: number): boolean => skeleton.end[i - 1] === skeleton.start[i] && BASE64_CHAR.test(kept[i] ?? '');
  let from = start;
  let to = end;
  while (from > start - spill && from > 0 && joined(from) && BASE64_CHAR.test(kept[from - 1] as string)) from--;
  while (to < end + spill && to < kept.length && to > 0 && joined(to)) to++;
  return { start: from, end: to };
}

/** A part of the text to mask, by index, and what it is shown as. */
export interface Found {
  readonly start: number;
  readonly end: number;
  readonly shownAs: string;
}

interface Entry {
  /** The window, which a hash alone does not prove. */
  readonly window: string;
  readonly shownAs: string;
  readonly spill: number;
  /** A value found only whole: its skeleton, which starts with the window. */
  readonly whole?: string;
}

/** How a form is held: what it is shown as, whether its parts count, its least length, its {@link EncodedForm.spill}. */
interface HoldOptions {
  readonly shownAs: string;
  readonly parts: boolean;
  readonly minLength: number;
  readonly spill?: number;
}

/**
 * Held forms, by the skeleton windows that find them.
 * @example `index.add('s3cr3t…', { shownAs: '[secret]', parts: true })`, then `index.find(text)`
 */
export class FormIndex {
  private readonly windows = new Map<number, Entry[]>();
  /** One bit per hash's low 20 bits: a window whose bit is clear is held by no form, without asking the map. */
  private readonly bits = new Uint8Array(1 << 17);
  /** Forms shorter than a window, found whole by search. */
  private readonly short = new Map<string, string>();

  /** Holds `form`: whole, and with `parts` (while under {@link MAX_WINDOWS}) each part of {@link WINDOW} or more. */
  add(form: string, { shownAs, parts, minLength, spill = 0 }: HoldOptions): void {
    const { text: kept, codes } = skeletonOf(form);
    if (kept.length < minLength) return;
    if (kept.length < WINDOW) {
      if (!this.short.has(kept)) this.short.set(kept, shownAs);
      return;
    }
    const inParts = parts && this.windows.size < MAX_WINDOWS;
    const keys = inParts ? kept.length - WINDOW + 1 : 1;
    for (let i = 0, hash = hashAt(codes, 0); i < keys; hash = rolled(codes, i, hash), i++) {
      const window = kept.slice(i, i + WINDOW);
      const entry: Entry = inParts ? { window, shownAs, spill } : { window, shownAs, spill, whole: kept };
      const entries = this.windows.get(hash);
      const byte = (hash >>> 3) & 0x1ffff;
      this.bits[byte] = (this.bits[byte] as number) | (1 << (hash & 7));
      if (entries === undefined) this.windows.set(hash, [entry]);
      else if (!entries.some((held) => held.window === window && held.whole === entry.whole)) entries.push(entry);
    }
  }

  /** The parts of `text` that hold a held form, by index in `text`, overlapping ones merged, in order. */
  find(text: string): Found[] {
    if (this.windows.size === 0 && this.short.size === 0) return [];
    const skeleton = skeletonOf(text);
    const { text: kept, codes } = skeleton;
    const spans: { start: number; end: number; shownAs: string }[] = [];
    let hash = kept.length < WINDOW ? 0 : hashAt(codes, 0);
    for (let i = 0; i + WINDOW <= kept.length; hash = rolled(codes, i, hash), i++) {
      if (((this.bits[(hash >>> 3) & 0x1ffff] as number) & (1 << (hash & 7))) === 0) continue;
      const entries = this.windows.get(hash);
      if (entries === undefined) continue;
      for (const { window, shownAs, whole, spill } of entries) {
        if (!kept.startsWith(whole ?? window, i)) continue;
        const end = whole === undefined ? i + WINDOW : i + whole.length;
        spans.push({ ...widened(skeleton, i, end, spill), shownAs });
      }
    }
    for (const [form, shownAs] of this.short)
      for (let at = kept.indexOf(form); at !== -1; at = kept.indexOf(form, at + 1))
        spans.push({ start: at, end: at + form.length, shownAs });
    spans.sort((a, b) => a.start - b.start);
    const merged: { start: number; end: number; shownAs: string }[] = [];
    for (const span of spans) {
      const last = merged[merged.length - 1];
      if (last !== undefined && span.start < last.end) last.end = Math.max(last.end, span.end);
      else merged.push({ ...span });
    }
    return merged.map(({ start, end, shownAs }) => ({
      start: skeleton.start[start] as number,
      end: skeleton.end[end - 1] as number,
      shownAs,
    }));
  }
}
