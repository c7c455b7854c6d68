import type { Readable, Writable } from 'node:stream';
import { jsonForTerminal } from '../terminal-text';

/** Exit status: accepted / done. */
export const EXIT_OK = 0;
/** Exit status: the token, the configuration or the request was refused. */
export const EXIT_REFUSED = 1;
/** Exit status: the command line itself is wrong. */
export const EXIT_USAGE = 2;
/**
 * Exit status: the command failed in a way it does not foresee (a bug, or a stream it cannot write to); the message
 * is on standard error. Apart from 2, so that a script does not take it for a mistake of its own command line.
 */
export const EXIT_FAILURE = 3;

/** All that a command reads from the process. Tests pass their own streams, environment and directory. */
export interface CliIO {
  readonly stdout: Writable & { isTTY?: boolean };
  readonly stderr: Writable & { isTTY?: boolean };
  readonly stdin: Readable;
  readonly env: NodeJS.ProcessEnv;
  /** The working directory (doctor looks for Cube from there). */
  readonly cwd: string;
}

/**
 * What a subcommand's module exports. Its name and one-line summary are in `commands/index.ts`, so
 * that the overview loads no command module.
 */
export interface Command {
  /**
   * The full `--help` text, which is also the source of the generated CLI reference. Every command
   * uses one layout (test/cli/run.test.ts holds each command to it):
   *
   *     Usage: cube-dual-auth <command> ...       one line
   *     (blank line, then what the command does, in sentences)
   *     Arguments: / Actions: / Options: / Environment: / Exit status: / Examples:
   *
   * each section a heading alone on its line followed by lines indented by two spaces, in that order;
   * Options, Exit status and Examples are always there. Options and actions are described in
   * lower case (`--json   print ...`), and exit statuses one per line (`  0  accepted`).
   */
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
 * Whether to colour what goes to `stream`. The precedence is Node's own (`tty.WriteStream#hasColors`,
 * `util.styleText`), so that the same environment gives the same answer in every Node tool:
 * 1. FORCE_COLOR set: "0" or "false" turns colour off, any other value (empty too) turns it on, terminal
 *    or not (a CI log viewer that renders ANSI codes);
 * 2. otherwise NO_COLOR set and not empty (https://no-color.org): off;
 * 3. otherwise on only when the stream is a terminal.
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
