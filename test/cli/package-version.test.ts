import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { packageVersion } from '../../src/cli/package-version';

it("is the version written in the package's own package.json", () => {
  const { version } = JSON.parse(readFileSync(join(__dirname, '..', '..', 'package.json'), 'utf8')) as {
    version: string;
  };
  expect(packageVersion()).toBe(version);
  expect(version).toMatch(/^\d+\.\d+\.\d+/);
});
