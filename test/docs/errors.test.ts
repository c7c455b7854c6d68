// docs/errors.md is the one table of codes. Each group's table holds exactly the codes the source can emit in that
// group, read from the source itself (string literals of the code, the CLI's EXIT_* constants), so a new code without
// a row fails here, and so does a row whose code the source no longer has.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));
const read = (path: string) => readFileSync(join(root, path), 'utf8');

type Group = 'hook' | 'exit' | 'service' | 'builder' | 'inside';

/** The section of docs/errors.md that lists each group. */
const HEADINGS: Readonly<Record<Group, string>> = {
  hook: "The hook's rejections",
  exit: "The CLI's exit statuses",
  service: "The service client's codes",
  builder: "The service's BUILDER codes",
  inside: 'Codes that stay inside',
};

const ERR_CODE = /^ERR_[A-Z0-9_]+$/;
const BUILDER_CODE = /^BUILDER-\d+$/;
const EXIT_STATUS = /^\d+$/;

interface Source {
  readonly path: string;
  readonly text: string;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sourceFiles(path) : path.endsWith('.ts') ? [path] : [];
  });
}

const sources: Source[] = sourceFiles(join(root, 'src')).map((path) => ({
  path: relative(root, path).split('\\').join('/'),
  text: readFileSync(path, 'utf8'),
}));

const parsed = new Map<string, ts.SourceFile>();

/** Walks the syntax tree of a module's text: comments are not in it, so a code named in a comment is not counted. */
function walk(text: string, visit: (node: ts.Node) => void): void {
  const step = (node: ts.Node): void => {
    visit(node);
    ts.forEachChild(node, step);
  };
  let tree = parsed.get(text);
  if (tree === undefined) {
    tree = ts.createSourceFile('module.ts', text, ts.ScriptTarget.Latest, true);
    parsed.set(text, tree);
  }
  step(tree);
}

function stringLiterals(text: string): string[] {
  const found: string[] = [];
  walk(text, (node) => {
    if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) found.push(node.text);
  });
  return found;
}

/**
 * The exit statuses of a module of the CLI: in src/cli/io.ts, where they are defined, the `EXIT_*` number constants;
 * anywhere, a number given to `process.exit` or `process.exitCode` instead of one of them.
 */
function exitStatuses(text: string, definitions: boolean): string[] {
  const found: string[] = [];
  walk(text, (node) => {
    if (definitions && ts.isVariableDeclaration(node) && /^EXIT_[A-Z_]+$/.test(node.name.getText())) {
      if (node.initializer && ts.isNumericLiteral(node.initializer)) found.push(node.initializer.text);
    }
    const exit =
      ts.isCallExpression(node) && node.expression.getText() === 'process.exit'
        ? node.arguments[0]
        : ts.isBinaryExpression(node) && node.left.getText() === 'process.exitCode'
          ? node.right
          : undefined;
    if (exit && ts.isNumericLiteral(exit)) found.push(exit.text);
  });
  return found;
}

/**
 * The codes the source can emit, by group: the hook's are the codes of src/errors.ts (the `RejectionCode` union and
 * the configuration error's); the service client's, the `ERR_*` codes of src/service/; the service's, every
 * `BUILDER-nnn` the client knows; the CLI's, its exit statuses. An `ERR_*` code anywhere else that is not the hook's
 * stays inside the package, and must be said so.
 */
function sourceCodes(files: readonly Source[]): Record<Group, Set<string>> {
  const codes: Record<Group, Set<string>> = {
    hook: new Set(),
    exit: new Set(),
    service: new Set(),
    builder: new Set(),
    inside: new Set(),
  };
  const elsewhere = new Set<string>();
  for (const { path, text } of files) {
    if (path.startsWith('src/cli/'))
      for (const status of exitStatuses(text, path === 'src/cli/io.ts')) codes.exit.add(status);
    for (const value of stringLiterals(text)) {
      if (BUILDER_CODE.test(value)) codes.builder.add(value);
      if (!ERR_CODE.test(value)) continue;
      if (path === 'src/errors.ts') codes.hook.add(value);
      else if (path.startsWith('src/service/')) codes.service.add(value);
      else elsewhere.add(value);
    }
  }
  for (const code of elsewhere) if (!codes.hook.has(code)) codes.inside.add(code);
  return codes;
}

/** The `## ` sections of a page, by heading. */
function sections(markdown: string): Map<string, string> {
  const result = new Map<string, string>();
  for (const part of markdown.split(/^## /m).slice(1)) {
    const newline = part.indexOf('\n');
    result.set(part.slice(0, newline).trim(), part.slice(newline + 1));
  }
  return result;
}

/** A backquoted token as a code: `ERR_SSL_*` names the prefix the source tests for. */
const asCode = (token: string) => token.replace(/\*$/, '');
const isCode = (token: string) => ERR_CODE.test(token) || BUILDER_CODE.test(token) || EXIT_STATUS.test(token);

/** The rows of a section's table (header and rule left out), each as its cells. */
function rows(section: string): string[][] {
  const lines = section.split('\n').filter((line) => line.startsWith('|'));
  return lines
    .slice(1)
    .filter((line) => !/^\|[-| ]+\|$/.test(line))
    .map((line) =>
      line
        .slice(1, -1)
        .split('|')
        .map((cell) => cell.trim()),
    );
}

/** The codes in the first cell of each row of a section's table. */
function tableCodes(section: string): Set<string> {
  const codes = rows(section).flatMap(([first = '']) =>
    [...first.matchAll(/`([^`]+)`/g)].map(([, t]) => asCode(t as string)),
  );
  return new Set(codes.filter(isCode));
}

/** The codes a section names anywhere, backquoted. */
function namedCodes(section: string): Set<string> {
  return new Set([...section.matchAll(/`([^`]+)`/g)].map(([, token]) => asCode(token as string)).filter(isCode));
}

/** What the source has that the table lacks, and what the table has that the source lacks. */
function difference(table: ReadonlySet<string>, source: ReadonlySet<string>) {
  return {
    withoutRow: [...source].filter((code) => !table.has(code)).sort(),
    withoutSource: [...table].filter((code) => !source.has(code)).sort(),
  };
}

const page = sections(read('docs/errors.md'));
const section = (group: Group) => page.get(HEADINGS[group]) ?? '';
const fromSource = sourceCodes(sources);

describe('docs/errors.md, the table of codes', () => {
  it.each(['hook', 'exit', 'service', 'builder'] as const)(
    'lists in the %s group exactly the codes the source emits there',
    (group) => {
      expect(fromSource[group].size).toBeGreaterThan(0);
      expect(difference(tableCodes(section(group)), fromSource[group])).toEqual({ withoutRow: [], withoutSource: [] });
    },
  );

  it('gives every row what the code means and what to do', () => {
    for (const group of ['hook', 'exit', 'service', 'builder'] as const) {
      const table = rows(section(group));
      expect(table.length, group).toBeGreaterThan(0);
      for (const cells of table) expect(cells.filter((cell) => cell !== '').length, cells[0]).toBeGreaterThanOrEqual(3);
    }
  });

  it('names every code that stays inside the package, and only codes the source has', () => {
    const named = namedCodes(section('inside'));
    expect([...fromSource.inside].filter((code) => !named.has(code))).toEqual([]);
    const known = new Set(Object.values(fromSource).flatMap((codes) => [...codes]));
    expect([...named].filter((code) => !known.has(code))).toEqual([]);
  });

  it("lists the configuration error's code among the hook's", () => {
    const configCode = /class DualAuthConfigError[\s\S]*?readonly code = '(ERR_\w+)'/.exec(read('src/errors.ts'))?.[1];
    expect(configCode).toBeDefined();
    expect(tableCodes(section('hook')).has(configCode as string)).toBe(true);
  });

  it("lists the BUILDER codes the interface names (docs/service-client.md's table of service errors)", () => {
    const interfaceTable = read('docs/service-client.md').split('### Service errors\n')[1]?.split('\n### ')[0] ?? '';
    const named = new Set(rows(interfaceTable).flatMap((cells) => cells.filter((cell) => BUILDER_CODE.test(cell))));
    expect(named.size).toBeGreaterThan(0);
    expect(difference(tableCodes(section('builder')), named).withoutRow).toEqual([]);
  });
});

describe('the check of the table of codes', () => {
  const withText = (path: string, change: (text: string) => string) =>
    sources.map((source) => (source.path === path ? { path, text: change(source.text) } : source));

  it('fails for a new code without a row, in each group', () => {
    const added = sourceCodes(
      withText('src/errors.ts', (text) =>
        text.replace('type RejectionCode =', "type RejectionCode =\n  | 'ERR_SAMPLE'"),
      ),
    );
    expect(difference(tableCodes(section('hook')), added.hook).withoutRow).toEqual(['ERR_SAMPLE']);
    const service = sourceCodes([...sources, { path: 'src/service/sample.ts', text: "const c = 'ERR_SAMPLE';" }]);
    expect(difference(tableCodes(section('service')), service.service).withoutRow).toEqual(['ERR_SAMPLE']);
    const builder = sourceCodes([...sources, { path: 'src/service/sample.ts', text: "f('BUILDER-1');" }]);
    expect(difference(tableCodes(section('builder')), builder.builder).withoutRow).toEqual(['BUILDER-1']);
    const exit = sourceCodes(withText('src/cli/io.ts', (text) => `${text}\nexport const EXIT_SAMPLE = 9;\n`));
    expect(difference(tableCodes(section('exit')), exit.exit).withoutRow).toEqual(['9']);
    const bare = sourceCodes([...sources, { path: 'src/cli/sample.ts', text: 'process.exit(7);' }]);
    expect(difference(tableCodes(section('exit')), bare.exit).withoutRow).toEqual(['7']);
    const inside = sourceCodes([...sources, { path: 'src/keys/sample.ts', text: "const c = 'ERR_SAMPLE';" }]);
    expect(inside.inside.has('ERR_SAMPLE')).toBe(true);
    expect(namedCodes(section('inside')).has('ERR_SAMPLE')).toBe(false);
  });

  it('fails for a row whose code the source does not have, and ignores codes named only in comments', () => {
    const table = `${section('service')}| \`ERR_GONE\` | x | gone | nothing |\n`;
    expect(difference(tableCodes(table), fromSource.service).withoutSource).toEqual(['ERR_GONE']);
    const commented = sourceCodes([...sources, { path: 'src/service/sample.ts', text: '// ERR_SAMPLE\n' }]);
    expect(commented.service).toEqual(fromSource.service);
  });
});
