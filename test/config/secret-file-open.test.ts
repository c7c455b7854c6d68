// Opening a secrets file as a file, on a real file system: what a mount can hold in its place is refused by its type or
// its size before a byte is read, and nothing blocks.
import { appendFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MAX_SECRET_FILE_BYTES, openSecretFile } from '../../src/config/secret-file-open';
import { scratchDirs } from '../support/scratch';
import { linkToDevZero, makeFifo, makeSparseFile } from '../support/secrets-dir';

const scratch = scratchDirs('cube-dual-auth-open-');
const notRegular = (kind: string) =>
  `is ${kind}, not a regular file: a secrets file is a regular file, or a symlink to one`;

describe('openSecretFile', () => {
  it('refuses a FIFO without waiting for a writer, naming its type', () => {
    const path = join(scratch(), 'api-secrets');
    makeFifo(path);
    expect(openSecretFile(path)).toEqual({ state: 'refused', reason: notRegular('a FIFO (named pipe)') });
  });

  it('refuses a symlink to /dev/zero as a character device, reading none of it', () => {
    const path = join(scratch(), 'api-secrets');
    linkToDevZero(path);
    const before = process.memoryUsage().rss;
    expect(openSecretFile(path)).toEqual({ state: 'refused', reason: notRegular('a character device') });
    expect(process.memoryUsage().rss - before).toBeLessThan(16 * 1024 ** 2);
  });

  it('refuses a 1 GiB sparse file by its size, before reading it', () => {
    const path = join(scratch(), 'api-secrets');
    makeSparseFile(path);
    const before = process.memoryUsage().rss;
    expect(openSecretFile(path)).toMatchObject({
      state: 'refused',
      reason: `is larger than ${MAX_SECRET_FILE_BYTES} bytes`,
    });
    expect(process.memoryUsage().rss - before).toBeLessThan(16 * 1024 ** 2);
  });

  it('reads a file of exactly the limit, and refuses one a byte over', () => {
    const path = join(scratch(), 'api-secrets');
    writeFileSync(path, 'x'.repeat(MAX_SECRET_FILE_BYTES));
    const whole = openSecretFile(path);
    expect(whole.state === 'read' && whole.bytes.equals(Buffer.alloc(MAX_SECRET_FILE_BYTES, 'x'))).toBe(true);
    appendFileSync(path, 'x');
    expect(openSecretFile(path)).toMatchObject({
      state: 'refused',
      reason: `is larger than ${MAX_SECRET_FILE_BYTES} bytes`,
    });
  });

  it('refuses a directory and a socket, naming each, and tells an absent path', async () => {
    const dir = scratch();
    expect(openSecretFile(dir)).toEqual({ state: 'refused', reason: notRegular('a directory') });
    expect(openSecretFile(join(dir, 'nothing'))).toEqual({ state: 'absent' });
    const socket = join(dir, 'sql-password');
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(socket, resolve));
    try {
      expect(openSecretFile(socket)).toEqual({ state: 'refused', reason: notRegular('a socket') });
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('tells one write of a file from the next by its identity: inode, size and modification time', () => {
    const path = join(scratch(), 'api-secrets');
    writeFileSync(path, 'one\n');
    const first = openSecretFile(path);
    expect(openSecretFile(path)).toEqual(first);
    appendFileSync(path, 'two\n');
    const second = openSecretFile(path);
    expect(second.state === 'read' && first.state === 'read' && second.identity !== first.identity).toBe(true);
  });
});
