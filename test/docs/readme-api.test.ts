// The API list of docs/reference.md is the package's exports: every name exported from each entry point (values and
// types, as TypeScript sees them) is listed under it, and nothing else is.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));

/** The names exported by each source entry point. */
function exportsOf(entries: readonly string[]): Map<string, string[]> {
  const files = entries.map((entry) => join(root, entry));
  const program = ts.createProgram(files, { strict: true, noEmit: true, skipLibCheck: true });
  const checker = program.getTypeChecker();
  return new Map(
    entries.map((entry, i) => {
      const module = checker.getSymbolAtLocation(program.getSourceFile(files[i] as string) as ts.SourceFile);
      const names = module === undefined ? [] : checker.getExportsOfModule(module).map((symbol) => symbol.name);
      return [entry, names.sort()];
    }),
  );
}

/** The backquoted names in the bullets of the reference's API list, under the line naming `entry`. */
function listed(reference: string, entry: string): string[] {
  const start = reference.indexOf('\n## API\n');
  expect(start).toBeGreaterThanOrEqual(0);
  const section = reference.slice(start, reference.indexOf('\n## ', start + 1));
  const blocks = section.split(/\n(?=`cube-dual-auth[^`]*` \()/);
  const block = blocks.find((one) => one.startsWith(`\`${entry}\` (`)) ?? '';
  const bullets = block.split('\n').filter((line) => /^( {2}|- )/.test(line));
  return bullets.flatMap((line) => [...line.matchAll(/`([A-Za-z_]\w*)`/g)].map((match) => match[1] as string)).sort();
}

describe('the API list of docs/reference.md', () => {
  const reference = readFileSync(join(root, 'docs', 'reference.md'), 'utf8');
  const exported = exportsOf(['src/index.ts', 'src/service/index.ts']);

  it.each([
    ['cube-dual-auth', 'src/index.ts'],
    ['cube-dual-auth/service', 'src/service/index.ts'],
  ])('names every export of %s, and nothing it does not export', (entry, source) => {
    const names = exported.get(source) ?? [];
    expect(names.length).toBeGreaterThan(10);
    expect(listed(reference, entry)).toEqual(names);
  });
});
