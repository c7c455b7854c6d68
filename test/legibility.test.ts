// The prose of src/ as issues 33 and 44 set it: a comment says why and points at docs/, where each fact is said once
// (docs/development.md#layout). Counted per folder of src/, the two entry files (the public TSDoc and its examples)
// aside: comment lines (whole lines of // or /* */) per line of code, and blocks of 8 or more comment lines; over all of
// src/: lines over 120 characters of code (URLs and the text of strings aside) and strings split across a `+`.
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
  /** `file:line (length)` of each line over 120 characters of code without a URL. */
  longLines: string[];
  /** `file:line` of each line that ends in a string and a `+`, or starts with a `+` and a string. */
  splitStrings: string[];
}

/** Counts the prose of `text`, a source file named `file`. */
function prose(file: string, text: string): Prose {
  const result: Prose = { comments: 0, code: 0, longBlocks: [], longLines: [], splitStrings: [] };
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
    if (/['"`]\s*\+$/.test(trimmed) || /^\+\s*['"`]/.test(trimmed)) result.splitStrings.push(`${file}:${i + 1}`);
    if (code.length > 120 && !/https?:\/\//.test(line)) result.longLines.push(`${file}:${i + 1} (${line.length})`);
  });
  endRun(text.split('\n').length + 1);
  return result;
}

/** The entry files: their comments are the public TSDoc and its examples, so no ratio or block count counts them. */
const ENTRY_FILES = new Set(['src/index.ts', 'src/service/index.ts']);

/** The prose of each folder of src/ (its own files, not its subfolders'), and of src/ as a whole. */
function proseOfSrc(): { total: Prose; folders: Map<string, Prose> } {
  const total: Prose = { comments: 0, code: 0, longBlocks: [], longLines: [], splitStrings: [] };
  const folders = new Map<string, Prose>();
  for (const path of sourceFiles(join(root, 'src'))) {
    const file = relative(root, path).split('\\').join('/');
    const one = prose(file, readFileSync(path, 'utf8'));
    total.longLines.push(...one.longLines);
    total.splitStrings.push(...one.splitStrings);
    if (ENTRY_FILES.has(file)) continue;
    total.longBlocks.push(...one.longBlocks);
    const folder = file.slice(0, file.lastIndexOf('/'));
    const sum = folders.get(folder) ?? { comments: 0, code: 0, longBlocks: [], longLines: [], splitStrings: [] };
    sum.comments += one.comments;
    sum.code += one.code;
    folders.set(folder, sum);
    total.comments += one.comments;
    total.code += one.code;
  }
  return { total, folders };
}

describe('the prose of src/', () => {
  const { total: counted, folders } = proseOfSrc();

  it('has at most 0.25 comment lines per line of code in every folder', () => {
    expect(counted.code).toBeGreaterThan(1000);
    expect(folders.size).toBeGreaterThan(10);
    const over = [...folders]
      .filter(([, folder]) => folder.comments / folder.code > 0.25)
      .map(([name, folder]) => `${name}: ${folder.comments} comment lines for ${folder.code} of code`);
    expect(over).toEqual([]);
  });

  it('splits no string across a +: a message is one template literal, or lines joined in one place', () => {
    expect(counted.splitStrings).toEqual([]);
  });

  it('has at most 4 comment blocks of 8 or more lines', () => {
    expect(counted.longBlocks.length, counted.longBlocks.join('\n')).toBeLessThanOrEqual(4);
  });

  it('has at most 5 lines over 120 characters, URLs and the text of strings aside', () => {
    expect(counted.longLines.length, counted.longLines.join('\n')).toBeLessThanOrEqual(5);
  });

  it('is counted as the issues count it: comment lines, blocks of 8+, long lines of code, split strings', () => {
    const sample = [
      '/**',
      ...Array.from({ length: 7 }, () => ' * why'),
      ' */',
      'const a = 1; // not a comment line',
      '',
      `const b = '${'x'.repeat(120)}';`,
      `// ${'y'.repeat(100)} https://example.com/${'z'.repeat(30)}`,
      `const c = ${'d'.repeat(120)};`,
      "const d = 'a sentence split ' +",
      "  'mid-phrase';",
    ].join('\n');
    expect(prose('f.ts', sample)).toEqual({
      comments: 10,
      code: 5,
      longBlocks: ['f.ts:1 (9)'],
      longLines: ['f.ts:14 (131)'],
      splitStrings: ['f.ts:15'],
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
