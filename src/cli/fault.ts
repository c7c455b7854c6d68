/**
 * What an internal fault prints (docs/cli.md, "Faults and limits"): one line with an id, never a stack trace; the
 * detail, under the same id, only with `--verbose`. Both pass through the scrubbing every output does.
 */
import { randomBytes } from 'node:crypto';
import { forTerminal } from '../terminal-text';

/** Most of a fault's message on its one line. */
const MAX_MESSAGE = 200;

/** The first line of a fault's message, cut. */
function gist(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const line = message.split('\n', 1)[0] ?? '';
  return line.length > MAX_MESSAGE ? `${line.slice(0, MAX_MESSAGE)}...` : line;
}

/**
 * The text to print for an unexpected fault of `command`: one line, and with `verbose` the detail (stack) after it.
 * @example `faultReport('access', new RangeError('Invalid string length'), false)`: `cube-dual-auth access: internal
 * fault 3f2a9c01: RangeError: Invalid string length (run again with --verbose for the detail)`
 */
export function faultReport(command: string, error: unknown, verbose: boolean): string {
  const id = randomBytes(4).toString('hex');
  const kind = error instanceof Error ? `${error.name}: ` : '';
  const line = `cube-dual-auth ${command}: internal fault ${id}: ${forTerminal(kind + gist(error))}`;
  if (!verbose) return `${line} (run again with --verbose for the detail)\n`;
  const detail = error instanceof Error ? (error.stack ?? error.message) : String(error);
  const indented = detail
    .split('\n')
    .map((text) => `  ${forTerminal(text)}`)
    .join('\n');
  return `${line}\nfault ${id} detail:\n${indented}\n`;
}
