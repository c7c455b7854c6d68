import type { Readable, Writable } from 'node:stream';
import { jsonForTerminal } from '../terminal-text';
import type { Timers } from './deadline';
import type { Scrubber } from './scrub';

/** Exit status: accepted / done. */
export const EXIT_OK = 0;
/** Exit status: the token, the configuration or the request was refused. */
export const EXIT_REFUSED = 1;
/** Exit status: the command line itself is wrong. */
export const EXIT_USAGE = 2;
/** Exit status: an unforeseen failure (a bug, an unwritable stream); not 2, which blames the command line. */
export const EXIT_FAILURE = 3;
/** Exit status: what the service did is not known (a change sent, no answer): look before trying again. */
export const EXIT_UNKNOWN = 4;

/** All that a command reads from the process. Tests pass their own streams, environment and directory. */
export interface CliIO {
  readonly stdout: Writable & { isTTY?: boolean };
  readonly stderr: Writable & { isTTY?: boolean };
  readonly stdin: Readable;
  readonly env: NodeJS.ProcessEnv;
  /** The working directory (doctor looks for Cube from there). */
  readonly cwd: string;
  /** The tokens and secrets the command holds, scrubbed from all it prints (scrub.ts); `run` sets it. */
  readonly scrubber?: Scrubber;
  /** The clock and timers of the command's deadline (deadline.ts); tests pass their own. */
  readonly timers?: Timers;
}

/** What a subcommand's module exports; its name and summary are in `registry.ts`, so help loads no command. */
export interface Command {
  /** The full `--help` text, source of the CLI reference, in the one layout test/cli/run.test.ts holds it to. */
  readonly help: string;
  run(args: readonly string[], io: CliIO): Promise<number>;
}

/** A command-line mistake: printed with a pointer to `--help`, exit status 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

const CODES = { bold: 1, dim: 2, red: 31, green: 32, yellow: 33, cyan: 36 } as const;
export type Style = keyof typeof CODES;

/**
 * Whether to colour what goes to `stream`, by Node's own precedence (`tty.WriteStream#hasColors`): FORCE_COLOR ("0"
 * or "false" off, else on), then a non-empty NO_COLOR (off), then whether the stream is a terminal.
 */
export function colourEnabled(stream: CliIO['stdout'], env: NodeJS.ProcessEnv): boolean {
  const force = env.FORCE_COLOR;
  if (force !== undefined) return force !== '0' && force.toLowerCase() !== 'false';
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  return stream.isTTY === true;
}

/** Colours text as {@link colourEnabled} decides. */
export function painter(stream: CliIO['stdout'], env: NodeJS.ProcessEnv): (style: Style, text: string) => string {
  const enabled = colourEnabled(stream, env);
  return (style, text) => (enabled ? `\x1b[${CODES[style]}m${text}\x1b[0m` : text);
}

/** Writes a value as indented JSON and a newline, escaped for a terminal as everything from outside is. */
export function writeJson(stream: Writable, value: unknown): void {
  stream.write(`${jsonForTerminal(value, 2)}\n`);
}

/** Reads all of standard input as text (for `-` in place of a token). */
export async function readStdin(stdin: Readable): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stdin) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk)));
  return Buffer.concat(chunks).toString('utf8').trim();
}
