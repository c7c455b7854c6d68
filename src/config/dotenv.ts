/**
 * The environment as Cube sees it: every command reads the `.env` as Cube's server does, so that it judges what Cube
 * will run with (docs/cli-output.md#how-doctor-reads-env).
 */
import { join } from 'node:path';
import { openSecretFile } from './secret-file-open';

/** What `doctor` says of the `.env`: one line of its checklist. */
export interface DotenvFinding {
  readonly status: 'ok' | 'warn' | 'fail';
  readonly message: string;
}

/** The file Cube's server reads variables from, in the directory it starts in. */
export const DOTENV = '.env';

/** A `.env` is a few variables: one larger than this is not read (a mistake, or a device). */
const MAX_DOTENV_BYTES = 1_048_576;

/** Cube's dotenv's line: a name, `=`, the rest (its `RE_INI_KEY_VAL`). Any other line is skipped, comments too. */
const LINE = /^\s*([\w.-]+)\s*=\s*(.*)?\s*$/;

/** A line that a shell would read and Cube's dotenv skips: it knows no `export`. */
const EXPORT_LINE = /^\s*export\s+([\w.-]+)\s*=/;

/** What one `.env` holds, as Cube's dotenv parses it. */
export interface DotenvFile {
  /** The variables, in the order they come; a later line of the same name wins, as in Cube. */
  readonly values: ReadonlyMap<string, string>;
  /** Names of `export NAME=...` lines, which Cube skips. */
  readonly exported: readonly string[];
  /** Names whose unquoted value holds ` #`: Cube keeps that comment as part of the value. */
  readonly inlineComments: readonly string[];
}

/**
 * Parses `.env` text exactly as Cube's dotenv does with `multiline: 'line-breaks'`: `NAME=value` lines, values in
 * single or double quotes stripped of them (`\n` in double quotes is a line break), a quoted value that does not end
 * on its line running on to the line that ends with its quote, unquoted values trimmed, every other line skipped.
 * @example
 * parseDotenv('CUBEJS_API_SECRET="abc"\n# comment\n').values.get('CUBEJS_API_SECRET'); // 'abc'
 */
export function parseDotenv(text: string): DotenvFile {
  const values = new Map<string, string>();
  const exported: string[] = [];
  const inlineComments = new Set<string>();
  // Cube splits on /\n|\r|\r\n/: "\r\n" gives an empty line between, which matches nothing.
  const lines = text.split(/\n|\r|\r\n/);
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] as string;
    const match = LINE.exec(line);
    if (match === null) {
      const name = EXPORT_LINE.exec(line)?.[1];
      if (name !== undefined) exported.push(name);
      continue;
    }
    const name = match[1] as string;
    let value = match[2] ?? '';
    const end = value.length - 1;
    const first = value[0];
    if ((first === '"' || first === "'") && value[end] !== first) {
      // Runs on, line breaks kept, to the first line that ends with the same quote (or to the end of the file).
      value = value.slice(1);
      while (i++ < lines.length - 1) {
        const next = lines[i] as string;
        if (next.endsWith(first)) {
          value += `\n${next.slice(0, -1)}`;
          break;
        }
        value += `\n${next}`;
      }
    } else if (first === '"' || first === "'") {
      // Cube's `substring(1, end)`: a value that is one quote character (end 0) is that character, not ''.
      value = value.substring(1, end);
      if (first === '"') value = value.replace(/\\n/g, '\n');
    } else {
      value = value.trim();
      if (/\s#/.test(value)) inlineComments.add(name);
      else inlineComments.delete(name);
    }
    values.set(name, value);
  }
  return { values, exported, inlineComments: [...inlineComments] };
}

/** The environment Cube would run with in `cwd`, and what its `.env` gave. */
export interface CubeEnvironment {
  /** The process environment, with the variables of `.env` it lacks. */
  readonly env: NodeJS.ProcessEnv;
  /** What `doctor` says of `.env`: nothing when there is none. */
  readonly findings: readonly DotenvFinding[];
}

/** Names as a message lists them. */
const names = (list: readonly string[]): string => list.join(', ');

/**
 * `env` with the `.env` of `cwd` under it: a variable set in `env` (even empty) keeps its value. Its findings name
 * variables, never a value.
 */
export function withDotenv(env: NodeJS.ProcessEnv, cwd: string): CubeEnvironment {
  const file = join(cwd, DOTENV);
  // Opened as the secrets files are, so that a FIFO or a device there cannot hang a command (docs/cli.md).
  const opened = openSecretFile(file, { maxBytes: MAX_DOTENV_BYTES, noun: 'a .env file' });
  if (opened.state === 'absent') return { env, findings: [] };
  if (opened.state === 'refused')
    return {
      env,
      findings: [
        {
          status: 'warn',
          message: `${file} ${opened.reason}; it is not read`,
        },
      ],
    };
  const text = opened.bytes.toString('utf8');
  const parsed = parseDotenv(text);
  const merged: NodeJS.ProcessEnv = { ...env };
  const taken: string[] = [];
  const findings: DotenvFinding[] = [];
  for (const [name, value] of parsed.values) {
    if (!Object.prototype.hasOwnProperty.call(env, name)) {
      merged[name] = value;
      taken.push(name);
    } else if (env[name] !== value) {
      findings.push({
        status: 'ok',
        message: `${name} is set both in the environment and in ${file}, with different values: the environment's is in force, as in Cube`,
      });
    }
  }
  const from =
    taken.length === 0
      ? `${file} read: it sets no variable the environment lacks`
      : `${file} read, as Cube reads it: ${names(taken)} from it, the rest from the environment`;
  findings.unshift({ status: 'ok', message: from });
  if (parsed.exported.length > 0)
    findings.push({
      status: 'warn',
      message: `${file}: Cube's .env reader skips lines that start with "export", so ${names(parsed.exported)} ${parsed.exported.length === 1 ? 'is' : 'are'} not set from it: write NAME=value`,
    });
  const commented = parsed.inlineComments.filter((name) => taken.includes(name));
  if (commented.length > 0)
    findings.push({
      status: 'warn',
      message: `${file}: the value of ${names(commented)} holds " #": Cube's .env reader keeps a comment after an unquoted value as part of it; put the comment on a line of its own, or quote the value`,
    });
  return { env: merged, findings };
}
