/**
 * A secrets directory as Kubernetes' atomic writer lays out a mounted Secret (kubernetes/pkg/volume/util/atomic_writer.go):
 * the files in a timestamped directory `..<time>`, a symlink `..data` to it swapped by renaming `..data_tmp` over it,
 * and each key a symlink `<key> -> ..data/<key>`. One write changes every file at once.
 */
import { execFileSync } from 'node:child_process';
import {
  mkdirSync,
  readdirSync,
  readlinkSync,
  renameSync,
  rmSync,
  symlinkSync,
  truncateSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';

export class AtomicWriterDir {
  private generation = 0;

  constructor(readonly dir: string) {}

  /** Puts `files` (key → content) in force in one swap, removing the keys not named, as a Secret's update does. */
  write(files: Readonly<Record<string, string>>): void {
    const previous = this.current();
    this.generation += 1;
    const stamp = `..${new Date().toISOString().replace(/[-:.]/g, '_')}.${process.pid}${this.generation}`;
    mkdirSync(join(this.dir, stamp));
    for (const [key, content] of Object.entries(files)) writeFileSync(join(this.dir, stamp, key), content);
    symlinkSync(stamp, join(this.dir, '..data_tmp'));
    renameSync(join(this.dir, '..data_tmp'), join(this.dir, '..data'));
    for (const key of Object.keys(files)) {
      try {
        symlinkSync(join('..data', key), join(this.dir, key));
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      }
    }
    for (const name of readdirSync(this.dir))
      if (!name.startsWith('..') && !Object.hasOwn(files, name)) rmSync(join(this.dir, name));
    if (previous !== undefined) rmSync(join(this.dir, previous), { recursive: true, force: true });
  }

  /** The timestamped directory `..data` points at now. */
  private current(): string | undefined {
    try {
      return readlinkSync(join(this.dir, '..data'));
    } catch {
      return undefined;
    }
  }
}

/** What a mount can hold in place of a secrets file: a FIFO (mkfifo(1), which Node has no call for). */
export function makeFifo(path: string): void {
  execFileSync('mkfifo', [path]);
}

/** A symlink to `/dev/zero`, a file without end. */
export function linkToDevZero(path: string): void {
  symlinkSync('/dev/zero', path);
}

/** A sparse file of `bytes` (1 GiB unless told): no disk used, but a read whole would take that much memory. */
export function makeSparseFile(path: string, bytes = 1024 ** 3): void {
  writeFileSync(path, '');
  truncateSync(path, bytes);
}
