// The prose of src/ as issue 33 set it: a comment says why and points at docs/, where each fact is said once
// (docs/development.md). Counted over every .ts file of src/: comment lines (whole lines of // or /* */) per line of
// code, blocks of 8 or more comment lines (the entry points' public TSDoc aside), and lines over 120 characters that
// hold no URL. A message is one string (issue 44), so the text inside a string literal does not count toward a line's
// length.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { anchors } from './support/markdown';

const root = fileURLToPath(new URL('..', import.meta.url));

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sourceFiles(path) : path.endsWith('.ts') ? [path] : [];
  });
}

interface Prose {
  comments: number;
  code: number;
  /** `file:line (length)` of each block of 8 or more comment lines. */
  longBlocks: string[];
  /** `file:line (length)` of each line over 120 characters without a URL. */
  longLines: string[];
}

/** Counts the prose of `text`, a source file named `file`. */
function prose(file: string, text: string): Prose {
  const result: Prose = { comments: 0, code: 0, longBlocks: [], longLines: [] };
  let inBlock = false;
  let run = 0;
  const endRun = (line: number) => {
    if (run >= 8) result.longBlocks.push(`${file}:${line - run} (${run})`);
    run = 0;
  };
  text.split('\n').forEach((line, i) => {
    const trimmed = line.trim();
    const comment = inBlock || trimmed.startsWith('//') || trimmed.startsWith('/*');
    if (inBlock) inBlock = !trimmed.includes('*/');
    else if (trimmed.startsWith('/*')) inBlock = !trimmed.includes('*/');
    if (comment) {
      result.comments += 1;
      run += 1;
    } else {
      endRun(i + 1);
      if (trimmed !== '') result.code += 1;
    }
    const code = line.replace(/'(?:[^'\\]|\\.)*'|`(?:[^`\\]|\\.)*`|"(?:[^"\\]|\\.)*"/g, "''");
    if (code.length > 120 && !/https?:\/\//.test(line)) result.longLines.push(`${file}:${i + 1} (${line.length})`);
  });
  endRun(text.split('\n').length + 1);
  return result;
}

/** The entry points, which carry the public TSDoc and its examples (test/examples.test.ts): long lines count only. */
const ENTRY_FILES = ['src/index.ts', 'src/service/index.ts'];

function proseOfSrc(): Prose {
  const total: Prose = { comments: 0, code: 0, longBlocks: [], longLines: [] };
  for (const path of sourceFiles(join(root, 'src'))) {
    const file = relative(root, path).split('\\').join('/');
    const one = prose(file, readFileSync(path, 'utf8'));
    total.longLines.push(...one.longLines);
    if (ENTRY_FILES.includes(file)) continue;
    total.comments += one.comments;
    total.code += one.code;
    total.longBlocks.push(...one.longBlocks);
  }
  return total;
}

describe('the prose of src/', () => {
  const counted = proseOfSrc();

  it('has at most 0.25 comment lines per line of code', () => {
    expect(counted.code).toBeGreaterThan(1000);
    expect(counted.comments / counted.code).toBeLessThanOrEqual(0.25);
  });

  it('has at most 4 comment blocks of 8 or more lines', () => {
    expect(counted.longBlocks.length, counted.longBlocks.join('\n')).toBeLessThanOrEqual(4);
  });

  it('has at most 5 lines over 120 characters, URLs and the text of strings aside', () => {
    expect(counted.longLines.length, counted.longLines.join('\n')).toBeLessThanOrEqual(5);
  });

  it('is counted as the issue counts it: whole comment lines, blocks of 8+, long lines of code without URLs', () => {
    const sample = [
      '/**',
      ...Array.from({ length: 7 }, () => ' * why'),
      ' */',
      'const a = 1; // not a comment line',
      '',
      `const b = '${'x'.repeat(120)}';`,
      `// ${'y'.repeat(100)} https://example.com/${'z'.repeat(30)}`,
      `const c = ${'d'.repeat(120)};`,
    ].join('\n');
    expect(prose('f.ts', sample)).toEqual({
      comments: 10,
      code: 3,
      longBlocks: ['f.ts:1 (9)'],
      longLines: ['f.ts:14 (131)'],
    });
  });
});

describe('references from src/ to docs/', () => {
  it('name a file and a heading that exist', () => {
    const broken: string[] = [];
    for (const path of sourceFiles(join(root, 'src'))) {
      for (const [, file, anchor] of readFileSync(path, 'utf8').matchAll(/\bdocs\/([\w-]+\.md)#([\w-]+)/g)) {
        let headings: Set<string>;
        try {
          headings = anchors(readFileSync(join(root, 'docs', file as string), 'utf8'));
        } catch {
          broken.push(`${relative(root, path)}: docs/${file} (no such file)`);
          continue;
        }
        if (!headings.has(anchor as string)) broken.push(`${relative(root, path)}: docs/${file}#${anchor}`);
      }
    }
    expect(broken).toEqual([]);
  });
});
