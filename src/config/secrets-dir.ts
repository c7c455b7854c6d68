/** The secrets directory: a file present replaces its option, checked each time (docs/rotation.md#the-directory). */
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { DualAuthConfigError } from '../errors';
import type { OptionNames } from './option-table';
import type { DualAuthOptions } from './option-types';
import { resolveOptions, type ResolvedOptions } from './resolve-options';
import { revocationsNamed } from './revocations';
import { MAX_SECRET_FILE_BYTES, openSecretFile } from './secret-file-open';
import { SECRETS_SETTLE_MS, settleAtStart, START_SETTLE_BOUND_MS, type StartSettleClock } from './secret-file-settle';

export { MAX_SECRET_FILE_BYTES };

/** The files read, by the option each replaces. */
export const SECRET_FILES = {
  apiSecret: 'api-secrets',
  sqlKeySecrets: 'sql-key-secrets',
  sqlKeysRevoked: 'sql-keys-revoked',
  sqlPassword: 'sql-password',
} as const;

export type SecretOption = keyof typeof SECRET_FILES;
export type SecretFile = (typeof SECRET_FILES)[SecretOption];

/** The options a secrets file can replace, in the order they are read and checked. */
export const SECRET_OPTIONS = Object.keys(SECRET_FILES) as SecretOption[];

/**
 * One file as read: absent, its option's value, or why it cannot be used (never its content). `identity` tells which
 * file was read and how it was last written (device, inode, size, modification time), when it could be opened.
 */
export type SecretFileReading =
  | { readonly state: 'absent' }
  | {
      readonly state: 'read';
      readonly text: string;
      readonly value: unknown;
      /** The line of each value (1-based, every line counted), which messages name it by. */
      readonly lines: readonly number[];
      readonly identity?: string;
    }
  | {
      readonly state: 'invalid';
      readonly text: string | undefined;
      readonly reason: string;
      readonly identity?: string;
    };

/** A line ends at `\n`, `\r\n` or a lone `\r` (docs/rotation.md#what-a-file-may-be). */
const LINE_END = /\r\n|\r|\n/;

/** What no line holds: control characters, line and paragraph separators, a byte-order mark, bytes not UTF-8. */
const NOT_IN_A_LINE = /[\p{Cc}\u2028\u2029\uFEFF\uFFFD]/u;

/** How a message names a character no line may hold: by its name and code point, never the text around it. */
function characterName(char: string): string {
  if (char === '\uFFFD') return 'bytes that are not text (a binary file, or not UTF-8)';
  const code = `U+${(char.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}`;
  const names: Record<string, string> = {
    '\t': 'a tab',
    '\u0000': 'a NUL byte',
    '\u2028': 'a line separator',
    '\u2029': 'a paragraph separator',
    '\uFEFF': 'a byte-order mark',
  };
  return `${names[char] ?? 'a control character'} (${code})`;
}

/** Why a file's text cannot be a secrets file's lines, naming the first line that holds what none may; or undefined. */
function lineFault(lines: readonly string[]): string | undefined {
  for (const [index, line] of lines.entries()) {
    const found = NOT_IN_A_LINE.exec(line);
    if (found !== null)
      return `line ${index + 1} holds ${characterName(found[0])}, which no secret, entry or comment may hold: a line ends at \\n, \\r\\n or \\r`;
  }
  return undefined;
}

/** The lines that hold values, with their line numbers (1-based, every line counted): trimmed, no blanks or comments. */
const numberedValueLines = (lines: readonly string[]): { readonly text: string; readonly line: number }[] =>
  lines
    .map((line, index) => ({ text: line.trim(), line: index + 1 }))
    .filter(({ text }) => text !== '' && !text.startsWith('#'));

/** Two or more line numbers as a message names them: "lines 2 and 4", "lines 1, 3 and 5". */
const linesNamed = (lines: readonly number[]): string =>
  `lines ${lines.slice(0, -1).join(', ')} and ${lines.at(-1) ?? 0}`;

/** Why a file's entries revoke nothing as written, naming the entry by its line; or undefined. */
function revocationFault(numbered: readonly { readonly text: string; readonly line: number }[]): string | undefined {
  const names = { entry: (i: number) => `line ${numbered[i]?.line ?? 0}`, nameBadIds: true };
  try {
    revocationsNamed(
      numbered.map(({ text }) => text),
      (problem) => {
        throw new RevocationFault(problem);
      },
      names,
    );
    return undefined;
  } catch (error) {
    if (error instanceof RevocationFault) return error.message;
    throw error;
  }
}

class RevocationFault extends Error {}

/** The value lines of a file's text, even one that is not valid: what the scrubber must know (config/deployment.ts). */
export const secretFileLines = (text: string): string[] =>
  numberedValueLines(text.split(LINE_END)).map(({ text: line }) => line);

/**
 * The option value a file's text gives, with the line of each value, or why it gives none.
 * @example
 * parseSecretFile('apiSecret', '# rotated 2026-05\nnew…\nold…\n') // { value: ['new…', 'old…'], lines: [2, 3] }
 */
export function parseSecretFile(
  option: SecretOption,
  text: string,
): { value: unknown; lines: readonly number[] } | { reason: string } {
  const all = text.split(LINE_END);
  const fault = lineFault(all);
  if (fault !== undefined) return { reason: fault };
  const numbered = numberedValueLines(all);
  const values = numbered.map(({ text: line }) => line);
  const lines = numbered.map(({ line }) => line);
  switch (option) {
    case 'apiSecret':
    case 'sqlKeySecrets':
      return values.length === 0
        ? { reason: 'holds no secret (only blank lines or comments): one secret a line, at least one' }
        : { value: values, lines };
    case 'sqlKeysRevoked': {
      const reason = revocationFault(numbered);
      return reason === undefined ? { value: values, lines } : { reason };
    }
    case 'sqlPassword':
      if (values.length === 1) return { value: values[0], lines };
      return values.length === 0
        ? { reason: 'holds no password (only blank lines or comments): the password is one line' }
        : { reason: `holds ${values.length} lines of value (${linesNamed(lines)}) where the password is one line` };
  }
}

/**
 * Reads one file of the directory, opened as a file ({@link openSecretFile}): the one reading of the hook's start, of
 * every reload, of `doctor` and of `verify`. Never throws, never blocks on what the path names.
 * @example
 * readSecretFile('/etc/cube-auth', 'apiSecret') // { state: 'read', text: '…', value: ['…'], identity: '…' }
 */
export function readSecretFile(dir: string, option: SecretOption): SecretFileReading {
  const opened = openSecretFile(join(dir, SECRET_FILES[option]));
  if (opened.state === 'absent') return opened;
  const { identity } = opened;
  const known = identity === undefined ? {} : { identity };
  if (opened.state === 'refused') return { state: 'invalid', text: undefined, reason: opened.reason, ...known };
  const text = opened.bytes.toString('utf8');
  const parsed = parseSecretFile(option, text);
  return 'value' in parsed
    ? { state: 'read', text, value: parsed.value, lines: parsed.lines, ...known }
    : { state: 'invalid', text, reason: parsed.reason, ...known };
}

/** Reads every file of the directory. */
export function readSecretFiles(dir: string): Record<SecretOption, SecretFileReading> {
  return Object.fromEntries(SECRET_OPTIONS.map((option) => [option, readSecretFile(dir, option)])) as Record<
    SecretOption,
    SecretFileReading
  >;
}

/** How messages name a file: its path, which says the directory too. Never its content. */
export const secretFileName = (dir: string, option: SecretOption): string => join(dir, SECRET_FILES[option]);

/** The values taken from files, by option; an option without one is the environment's (or the options'). */
export type SecretFileValues = Partial<Record<SecretOption, unknown>>;

/** The line of each value taken from a file, by option, as the file's reading gives it. */
export type SecretFileLines = Partial<Record<SecretOption, readonly number[]>>;

/** What the directory's files give: the values in place of their options, and where in its file each value is. */
export interface SecretFilesGiven {
  readonly dir: string;
  readonly values: SecretFileValues;
  readonly lines: SecretFileLines;
}

/**
 * The one check of the secrets, at start and at each reload: {@link resolveOptions}, naming the files and lines.
 * @example
 * resolveWithSecretFiles(options, ENV_NAMES, { dir, values: { apiSecret: [a, b] }, lines: { apiSecret: [2, 3] } });
 */
export function resolveWithSecretFiles(
  options: DualAuthOptions,
  names: OptionNames,
  { dir, values, lines }: SecretFilesGiven,
): ResolvedOptions {
  const merged: Record<string, unknown> = { ...options };
  const named: Partial<Record<keyof OptionNames, string>> = { ...names };
  for (const option of SECRET_OPTIONS) {
    if (!Object.hasOwn(values, option)) continue;
    merged[option] = values[option];
    named[option] = secretFileName(dir, option);
  }
  return resolveOptions(merged as DualAuthOptions, named, { lines });
}

/** The options of a start with a secrets directory, once its files settle: a bad file stops it, naming the file. */
export function startingSecretFiles(
  dir: string,
  dirName: string,
  clock: StartSettleClock = {},
): SecretFilesGiven & { readonly readings: Record<SecretOption, SecretFileReading> } {
  let isDirectory = false;
  try {
    isDirectory = statSync(dir).isDirectory();
  } catch {
    // Reported below, as a path that names no directory.
  }
  if (!isDirectory)
    throw new DualAuthConfigError(dirName, `is ${JSON.stringify(dir)}, which is no directory this process can read`);
  const { readings, stillWritten } = settleAtStart(SECRET_OPTIONS, (option) => readSecretFile(dir, option), clock);
  if (stillWritten !== undefined)
    throw new DualAuthConfigError(
      secretFileName(dir, stillWritten),
      `is still being written: it changed at every read ${SECRETS_SETTLE_MS} ms apart for ${START_SETTLE_BOUND_MS} ms; write it whole and rename it into place`,
    );
  for (const option of SECRET_OPTIONS) {
    const reading = readings[option];
    if (reading.state === 'invalid') throw new DualAuthConfigError(secretFileName(dir, option), reading.reason);
  }
  return { readings, ...givenBy(dir, readings) };
}

/** The values and lines of the files read whole, by option: what the hook puts in place of their options. */
export function givenBy(dir: string, readings: Readonly<Record<SecretOption, SecretFileReading>>): SecretFilesGiven {
  const values: Record<string, unknown> = {};
  const lines: Record<string, readonly number[]> = {};
  for (const option of SECRET_OPTIONS) {
    const reading = readings[option];
    if (reading.state !== 'read') continue;
    values[option] = reading.value;
    lines[option] = reading.lines;
  }
  return { dir, values, lines };
}

/** The options as a start takes them, `secretsDir`'s files in place: for commands that judge like the hook. */
export function resolveAtStart(
  options: DualAuthOptions,
  names: OptionNames,
  clock: StartSettleClock = {},
): ResolvedOptions {
  const dir = options.secretsDir;
  if (typeof dir !== 'string' || dir.trim() === '') return resolveOptions(options, names);
  return resolveWithSecretFiles(options, names, startingSecretFiles(dir, names.secretsDir, clock));
}
