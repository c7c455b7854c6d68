// The rooms of src/ stay small enough to hold in one's head (issue 44, docs/development.md#layout): a file at most
// 400 lines, a function at most 80, a closure or an arrow function counted as a function of its own.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const SRC = join(__dirname, '..', 'src');
const MAX_FILE_LINES = 400;
const MAX_FUNCTION_LINES = 80;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sourceFiles(path) : path.endsWith('.ts') ? [path] : [];
  });
}

/** The lines of `text`, a trailing newline not counted as a line of its own. */
function lineCount(text: string): number {
  return text.endsWith('\n') ? text.split('\n').length - 1 : text.split('\n').length;
}

/** `file:line name (lines)` of each function in `text` longer than the limit, from its first line to its last. */
function longFunctions(file: string, text: string): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.ES2022, true);
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body !== undefined) {
      const first = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
      const last = source.getLineAndCharacterOfPosition(node.getEnd()).line;
      const name = node.name !== undefined ? node.name.getText(source) : ts.SyntaxKind[node.kind];
      if (last - first + 1 > MAX_FUNCTION_LINES) found.push(`${file}:${first + 1} ${name} (${last - first + 1})`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

const files = sourceFiles(SRC).map((path) => ({
  file: relative(SRC, path).split('\\').join('/'),
  text: readFileSync(path, 'utf8'),
}));

describe('the rooms of src/', () => {
  it(`hold no file over ${MAX_FILE_LINES} lines`, () => {
    const long = files.filter(({ text }) => lineCount(text) > MAX_FILE_LINES);
    expect(long.map(({ file, text }) => `${file} (${lineCount(text)})`)).toEqual([]);
  });

  it(`hold no function over ${MAX_FUNCTION_LINES} lines, closures included`, () => {
    expect(files.length).toBeGreaterThan(100);
    expect(files.flatMap(({ file, text }) => longFunctions(file, text))).toEqual([]);
  });

  it('are measured as the issue measures them: each closure its own function, first line to last', () => {
    const body = (n: number) => Array.from({ length: n }, (_, i) => `  const v${i} = ${i};`).join('\n');
    const sample = [
      'export function outer() {',
      body(10),
      '  const inner = () => {',
      body(79),
      '  };',
      '  return inner;',
      '}',
      'const fits = function () {',
      body(78),
      '};',
    ].join('\n');
    expect(longFunctions('f.ts', sample)).toEqual(['f.ts:1 outer (94)', 'f.ts:12 ArrowFunction (81)']);
    expect(lineCount('a\nb\n')).toBe(2);
  });
});
