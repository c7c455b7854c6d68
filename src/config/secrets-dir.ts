/** The secrets directory: a file present replaces its option, checked each time (docs/rotation.md#the-directory). */
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { DualAuthConfigError } from '../errors';
import type { OptionNames } from './option-table';
import type { DualAuthOptions } from './option-types';
import { resolveOptions, type ResolvedOptions } from './resolve-options';

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

/** A secret file is a few lines: anything larger is not one, and is not read whole. */
export const MAX_SECRET_FILE_BYTES = 65_536;

/** One file as read: absent, its option's value, or why it cannot be used (never its content). */
export type SecretFileReading =
  | { readonly state: 'absent' }
  | { readonly state: 'read'; readonly text: string; readonly value: unknown }
  | { readonly state: 'invalid'; readonly text: string | undefined; readonly reason: string };

/** A character no secrets file holds: a replacement for bytes that are not UTF-8, or a control character. */
function notText(char: string): boolean {
  const code = char.charCodeAt(0);
  return char === '\uFFFD' || code === 0x7f || (code < 0x20 && char !== '\n' && char !== '\r' && char !== '\t');
}

/** The lines that hold values: trimmed, without blank lines and `#` comments. */
function valueLines(text: string): string[] {
  return text
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'));
}

/**
 * The option value a file's text gives, or why it gives none.
 * @example
 * parseSecretFile('apiSecret', '# rotated 2026-05\nnew…\nold…\n') // { value: ['new…', 'old…'] }
 */
export function parseSecretFile(option: SecretOption, text: string): { value: unknown } | { reason: string } {
  if ([...text].some(notText)) return { reason: 'holds bytes that are not text (a binary file, or not UTF-8)' };
  const lines = valueLines(text);
  switch (option) {
    case 'apiSecret':
    case 'sqlKeySecrets':
      return lines.length === 0
        ? { reason: 'holds no secret (only blank lines or comments): one secret a line, at least one' }
        : { value: lines };
    case 'sqlKeysRevoked':
      return { value: lines };
    case 'sqlPassword':
      return lines.length === 1
        ? { value: lines[0] }
        : { reason: `holds ${lines.length} lines of value where the password is one line` };
  }
}

/** Reads one file of the directory (through a symlink, as Kubernetes lays keys out). Never throws. */
export function readSecretFile(dir: string, option: SecretOption): SecretFileReading {
  let bytes: Buffer;
  try {
    bytes = readFileSync(join(dir, SECRET_FILES[option]));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return { state: 'absent' };
    return { state: 'invalid', text: undefined, reason: `cannot be read (${code ?? 'unknown error'})` };
  }
  if (bytes.length > MAX_SECRET_FILE_BYTES)
    return { state: 'invalid', text: undefined, reason: `is larger than ${MAX_SECRET_FILE_BYTES} bytes` };
  const text = bytes.toString('utf8');
  const parsed = parseSecretFile(option, text);
  return 'value' in parsed
    ? { state: 'read', text, value: parsed.value }
    : { state: 'invalid', text, reason: parsed.reason };
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

/** The one check of the secrets, at start and at each reload: {@link resolveOptions}, naming the files. */
export function resolveWithSecretFiles(
  options: DualAuthOptions,
  names: OptionNames,
  dir: string,
  values: SecretFileValues,
): ResolvedOptions {
  const merged: Record<string, unknown> = { ...options };
  const named: Partial<Record<keyof OptionNames, string>> = { ...names };
  for (const option of SECRET_OPTIONS) {
    if (!Object.hasOwn(values, option)) continue;
    merged[option] = values[option];
    named[option] = secretFileName(dir, option);
  }
  return resolveOptions(merged as DualAuthOptions, named);
}

/** The options of a start with a secrets directory: a bad file stops it, naming the file and the reason. */
export function startingSecretFiles(
  dir: string,
  dirName: string,
): {
  readonly readings: Record<SecretOption, SecretFileReading>;
  readonly values: SecretFileValues;
} {
  let isDirectory = false;
  try {
    isDirectory = statSync(dir).isDirectory();
  } catch {
    // Reported below, as a path that names no directory.
  }
  if (!isDirectory)
    throw new DualAuthConfigError(dirName, `is ${JSON.stringify(dir)}, which is no directory this process can read`);
  const readings = readSecretFiles(dir);
  const values: SecretFileValues = {};
  for (const option of SECRET_OPTIONS) {
    const reading = readings[option];
    if (reading.state === 'invalid') throw new DualAuthConfigError(secretFileName(dir, option), reading.reason);
    if (reading.state === 'read') values[option] = reading.value;
  }
  return { readings, values };
}

/** The options as a start takes them, `secretsDir`'s files in place: for commands that judge like the hook. */
export function resolveAtStart(options: DualAuthOptions, names: OptionNames): ResolvedOptions {
  const dir = options.secretsDir;
  if (typeof dir !== 'string' || dir.trim() === '') return resolveOptions(options, names);
  return resolveWithSecretFiles(options, names, dir, startingSecretFiles(dir, names.secretsDir).values);
}
