import type { Readable, Writable } from 'node:stream';

/** Exit status: accepted / done. */
export const EXIT_OK = 0;
/** Exit status: the token, the configuration or the request was refused. */
export const EXIT_REFUSED = 1;
/** Exit status: the command line itself is wrong. */
export const EXIT_USAGE = 2;

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
  /** Full `--help` text, with examples. */
  readonly help: string;
  run(args: readonly string[], io: CliIO): Promise<number>;
}

/** A command-line mistake: printed with a pointer to `--help`, exit status 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

const CODES = { bold: 1, dim: 2, red: 31, green: 32, yellow: 33, cyan: 36 } as const;
export type Style = keyof typeof CODES;

/** Colours text only when the stream is a terminal and NO_COLOR is not set. */
export function painter(stream: CliIO['stdout'], env: NodeJS.ProcessEnv): (style: Style, text: string) => string {
  const enabled = stream.isTTY === true && env.NO_COLOR === undefined;
  return (style, text) => (enabled ? `\x1b[${CODES[style]}m${text}\x1b[0m` : text);
}

/** Writes a value as indented JSON and a newline. */
export function writeJson(stream: Writable, value: unknown): void {
  stream.write(`${JSON.stringify(value, null, 2)}\n`);
}

/** Reads all of standard input as text (for `-` in place of a token). */
export async function readStdin(stdin: Readable): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stdin) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk)));
  return Buffer.concat(chunks).toString('utf8').trim();
}
