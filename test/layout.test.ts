import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/**
 * The tree shows the flow of a request, so its imports only run one way: each room imports from the rooms below it,
 * never from one above, and no two modules import each other, even for types (docs/development.md, "Layout").
 */
const SRC = resolve(__dirname, '../src');

/**
 * The rooms, lowest first. Top-level modules (errors, events, algorithms, …) and `http` (the one HTTP client, the URL
 * rule, the JSON object test) are the floor every room stands on; being on one floor, neither imports the other.
 */
const FLOORS: readonly (readonly string[])[] = [
  ['.', 'http'],
  ['config'],
  ['keys', 'metrics'],
  ['hook'],
  ['doctor'],
  ['cli', 'index.ts'],
];
/**
 * The service's client is a product of its own: of the rest it imports only `http`, which the hook shares with it, and
 * only the CLI imports it.
 */
const ISLAND = 'service';
const SHARED_WITH_ISLAND = 'http';

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sourceFiles(path) : path.endsWith('.ts') ? [path] : [];
  });
}

/** Every module a file imports or re-exports from, types included, as paths relative to src/. */
function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const specifiers = [...text.matchAll(/^(?:import|export)\s[^;]*?from\s+'(\.{1,2}\/[^']+)'/gm)].map(
    (match) => match[1] as string,
  );
  return specifiers.map((specifier) => {
    const base = resolve(dirname(file), specifier);
    const target = [`${base}.ts`, join(base, 'index.ts')].find((candidate) => {
      try {
        return statSync(candidate).isFile();
      } catch {
        return false;
      }
    });
    if (target === undefined) throw new Error(`${relative(SRC, file)} imports ${specifier}, which is no source file`);
    return relative(SRC, target).split(sep).join('/');
  });
}

const graph = new Map(sourceFiles(SRC).map((file) => [relative(SRC, file).split(sep).join('/'), importsOf(file)]));

/** The room a module lives in: its top folder, or '.' for a module directly in src/ (index.ts is its own). */
function roomOf(module: string): string {
  if (module === 'index.ts') return module;
  return module.includes('/') ? (module.split('/')[0] as string) : '.';
}

function floorOf(room: string): number {
  return FLOORS.findIndex((rooms) => rooms.includes(room));
}

/** Strongly connected groups of more than one module (Tarjan), or a module importing itself. */
function circles(): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const found: string[][] = [];
  const visit = (module: string): void => {
    index.set(module, next);
    low.set(module, next);
    next += 1;
    stack.push(module);
    for (const target of graph.get(module) ?? []) {
      if (!index.has(target)) {
        visit(target);
        low.set(module, Math.min(low.get(module) as number, low.get(target) as number));
      } else if (stack.includes(target)) {
        low.set(module, Math.min(low.get(module) as number, index.get(target) as number));
      }
    }
    if (low.get(module) === index.get(module)) {
      const group: string[] = [];
      let member: string | undefined;
      do {
        member = stack.pop() as string;
        group.push(member);
      } while (member !== module);
      if (group.length > 1 || graph.get(module)?.includes(module)) found.push(group.sort());
    }
  };
  for (const module of graph.keys()) if (!index.has(module)) visit(module);
  return found;
}

describe('the layout of src/', () => {
  it('has modules in every room it names', () => {
    const rooms = new Set([...graph.keys()].map(roomOf));
    expect([...rooms].sort()).toEqual([...FLOORS.flat(), ISLAND].sort());
  });

  it('has no import circle', () => {
    expect(circles()).toEqual([]);
  });

  it('imports only from rooms below, never back up', () => {
    const upward = [...graph].flatMap(([module, targets]) => {
      const room = roomOf(module);
      return targets
        .filter((target) => {
          const to = roomOf(target);
          if (to === room) return false;
          if (room === ISLAND) return to !== SHARED_WITH_ISLAND;
          if (to === ISLAND) return room !== 'cli';
          return floorOf(to) > floorOf(room) || (floorOf(to) === floorOf(room) && to !== room);
        })
        .map((target) => `${module} -> ${target}`);
    });
    expect(upward).toEqual([]);
  });

  it('sees a circle and an upward import when there is one (the checks can fail)', () => {
    graph.set('config/probe-a.ts', ['hook/check-auth.ts', 'config/probe-b.ts']);
    graph.set('config/probe-b.ts', ['config/probe-a.ts']);
    try {
      expect(circles()).toContainEqual(['config/probe-a.ts', 'config/probe-b.ts']);
      expect(floorOf(roomOf('hook/check-auth.ts'))).toBeGreaterThan(floorOf(roomOf('config/probe-a.ts')));
    } finally {
      graph.delete('config/probe-a.ts');
      graph.delete('config/probe-b.ts');
    }
  });
});

/** Commands stand alone: what two share lives in cli/ modules that are not commands (docs/development.md#layout). */
const COMMANDS = join(SRC, 'cli', 'commands');

/**
 * The specifiers of `text` (a file of cli/commands/) that name another file of cli/commands/: static, type-only and
 * side-effect imports, re-exports and `import()` alike, as TypeScript reads them (comments and strings left out).
 */
function commandImports(file: string, text: string): string[] {
  return ts
    .preProcessFile(text, true, true)
    .importedFiles.map(({ fileName }) => fileName)
    .filter(
      (specifier) => specifier.startsWith('.') && resolve(dirname(file), specifier).startsWith(`${COMMANDS}${sep}`),
    );
}

describe('the commands of src/cli/commands/', () => {
  it('import no other command, in any form', () => {
    const found = sourceFiles(COMMANDS).flatMap((file) =>
      commandImports(file, readFileSync(file, 'utf8')).map((specifier) => `${relative(SRC, file)} -> ${specifier}`),
    );
    expect(found).toEqual([]);
  });

  it('sees each form of import of another command (the check can fail)', () => {
    const sample = [
      "import { readIdpToken } from './probe';",
      "import type { VerifyReport } from './verify';",
      "export { token } from './token.js';",
      "import '../commands/doctor';",
      "const load = async () => (await import('./access.js')).access;",
      "import { UsageError } from '../io';",
      "// import('./versions.js') in a comment, and './provider' in a string, are no imports",
      'const text = "import(\'./provider\')";',
    ].join('\n');
    expect(commandImports(join(COMMANDS, 'sample.ts'), sample)).toEqual([
      './probe',
      './verify',
      './token.js',
      '../commands/doctor',
      './access.js',
    ]);
  });
});
