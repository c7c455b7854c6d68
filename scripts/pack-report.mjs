#!/usr/bin/env node
// Prints what `npm pack` would publish: the number of files and the tarball's size, packed and unpacked. Which files
// those are is asserted by test/package.test.ts; this line is for whoever reads CI's log.
import { execFileSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const [pack] = JSON.parse(
  execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: root, encoding: 'utf8' }),
);
const kB = (bytes) => `${(bytes / 1024).toFixed(1)} kB`;
console.log(`${pack.filename}: ${pack.entryCount} files, ${kB(pack.size)} packed, ${kB(pack.unpackedSize)} unpacked`);
