/**
 * Opening one secrets file as a file: without blocking, its type and size checked on the descriptor before a byte is
 * read, and never more than the limit + 1 bytes read (docs/rotation.md#what-a-file-may-be).
 */
import { closeSync, constants, fstatSync, openSync, readSync, statSync, type Stats } from 'node:fs';

/** A secret file is a few lines: anything larger is not one, and is not read whole. */
export const MAX_SECRET_FILE_BYTES = 65_536;

/**
 * A FIFO opened for reading without O_NONBLOCK waits for a writer, and a terminal must not become ours: the open
 * returns at once whatever the path names (O_NONBLOCK does nothing to a regular file's reads).
 */
const OPEN_FLAGS = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0) | (constants.O_NOCTTY ?? 0);

/** What one open of a path gave: nothing there, why it cannot be used, or its bytes and what tells this file apart. */
export type OpenedSecretFile =
  | { readonly state: 'absent' }
  | { readonly state: 'refused'; readonly reason: string; readonly identity?: string }
  | { readonly state: 'read'; readonly bytes: Buffer; readonly identity: string };

/** The kind of file a path that is no regular file names, as a message says it. */
function kindOf(stats: Stats): string {
  if (stats.isFIFO()) return 'a FIFO (named pipe)';
  if (stats.isCharacterDevice()) return 'a character device';
  if (stats.isBlockDevice()) return 'a block device';
  if (stats.isSocket()) return 'a socket';
  if (stats.isDirectory()) return 'a directory';
  return 'no regular file';
}

/** What a caller reads besides the secrets directory's files (the project's `.env`): its limit, and its name. */
export interface OpenLimits {
  /** @default MAX_SECRET_FILE_BYTES */
  readonly maxBytes?: number;
  /** How a message names such a file. @default 'a secrets file' */
  readonly noun?: string;
}

const notRegular = (stats: Stats, noun: string): string =>
  `is ${kindOf(stats)}, not a regular file: ${noun} is a regular file, or a symlink to one`;

const tooLarge = (maxBytes: number) => `is larger than ${maxBytes} bytes`;

/** Which file this is and how it was last written: two reads that agree on it read the same, unchanged file. */
const identityOf = (stats: Stats): string => `${stats.dev}:${stats.ino}:${stats.size}:${stats.mtimeMs}`;

/** The modification time (epoch ms) an identity holds: a start waits for a file written just now. */
export const modifiedAtOf = (identity: string): number => Number(identity.slice(identity.lastIndexOf(':') + 1));

/** Why an open failed; a socket cannot be opened at all (ENXIO), so its type comes from the path. */
function openFailure(path: string, error: unknown, noun: string): OpenedSecretFile {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ENOENT') return { state: 'absent' };
  if (code === 'ENXIO') {
    try {
      return { state: 'refused', reason: notRegular(statSync(path), noun) };
    } catch {
      // Gone between the open and the stat: said as the open's failure.
    }
  }
  return { state: 'refused', reason: `cannot be read (${code ?? 'unknown error'})` };
}

/** At most `maxBytes + 1` bytes of an open regular file: one more than allowed tells it grew past it. */
function readBounded(fd: number, maxBytes: number): Buffer {
  const buffer = Buffer.alloc(maxBytes + 1);
  let length = 0;
  while (length < buffer.length) {
    const read = readSync(fd, buffer, length, buffer.length - length, null);
    if (read === 0) break;
    length += read;
  }
  return buffer.subarray(0, length);
}

/**
 * Opens, checks and reads one secrets file (through a symlink, as Kubernetes lays keys out). Never throws, never
 * blocks on what the path names, never reads more than {@link MAX_SECRET_FILE_BYTES} + 1 bytes.
 * @example
 * openSecretFile('/etc/cube-auth/api-secrets') // { state: 'refused', reason: 'is a FIFO (named pipe), not a regular file: …' }
 */
export function openSecretFile(
  path: string,
  { maxBytes = MAX_SECRET_FILE_BYTES, noun = 'a secrets file' }: OpenLimits = {},
): OpenedSecretFile {
  let fd: number;
  try {
    fd = openSync(path, OPEN_FLAGS);
  } catch (error) {
    return openFailure(path, error, noun);
  }
  try {
    const stats = fstatSync(fd);
    if (!stats.isFile()) return { state: 'refused', reason: notRegular(stats, noun) };
    const identity = identityOf(stats);
    if (stats.size > maxBytes) return { state: 'refused', reason: tooLarge(maxBytes), identity };
    const bytes = readBounded(fd, maxBytes);
    if (bytes.length > maxBytes) return { state: 'refused', reason: tooLarge(maxBytes), identity };
    return { state: 'read', bytes, identity };
  } catch (error) {
    return { state: 'refused', reason: `cannot be read (${(error as NodeJS.ErrnoException).code ?? 'unknown error'})` };
  } finally {
    closeSync(fd);
  }
}
