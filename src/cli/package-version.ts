/** The package's version, for `--version`: read from its own package.json, the one place it is written. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Reads `version` from the package.json two directories up: from `dist/cli/` when installed or built,
 * from `src/cli/` when the tests run the sources. Read on demand, so that other commands never touch it.
 */
export function packageVersion(): string {
  const manifest = JSON.parse(readFileSync(join(__dirname, '..', '..', 'package.json'), 'utf8')) as {
    version?: unknown;
  };
  if (typeof manifest.version !== 'string') throw new Error('package.json has no version');
  return manifest.version;
}
