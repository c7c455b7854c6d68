// Every value export of the package's two entry points has TSDoc with an `@example` in its entry file (issue 44), and
// every example compiles: each is type-checked strictly as a user's file of its own, importing the package by name
// through the exports map, so against the typings of dist/ as a user's project reads them (docs/reference.md#api).
import { createRequire } from 'node:module';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { USER_PROJECT } from './support/typescript';

const root = fileURLToPath(new URL('..', import.meta.url));
const nodeRequire = createRequire(import.meta.url);

/** The entry points: the file that carries the TSDoc, and the compiled ones the package's exports map points at. */
const ENTRIES = [
  { source: 'src/index.ts', built: 'dist/index.js', types: 'dist/index.d.ts' },
  { source: 'src/service/index.ts', built: 'dist/service/index.js', types: 'dist/service/index.d.ts' },
] as const;

/** A value export of an entry file and the code of each of its `@example` blocks (null: a block without code). */
interface DocumentedExport {
  readonly name: string;
  readonly examples: readonly (string | null)[];
}

/** One example to compile: its label in a failure, its file name (which decides CommonJS or ES module) and code. */
interface Example {
  readonly label: string;
  readonly fileName: string;
  readonly code: string;
}

/**
 * A compiler host that reads `virtual` (absolute path to text) before the file system: the examples are compiled
 * where a user's file in the package's root would be, without writing one.
 */
function hostWith(options: ts.CompilerOptions, virtual: ReadonlyMap<string, string>): ts.CompilerHost {
  const host = ts.createCompilerHost(options, true);
  const { fileExists, readFile, getSourceFile } = host;
  host.fileExists = (file) => virtual.has(file) || fileExists.call(host, file);
  host.readFile = (file) => virtual.get(file) ?? readFile.call(host, file);
  host.getSourceFile = (file, language, ...rest) => {
    const text = virtual.get(file);
    return text === undefined
      ? getSourceFile.call(host, file, language, ...rest)
      : ts.createSourceFile(file, text, language);
  };
  return host;
}

/**
 * The code of an `@example` tag: the text of its ```ts fence, or null when it has none. The `@example` of a JSDoc
 * comment placed on an export specifier is the specifier's own, in the entry file.
 */
function exampleCode(tag: ts.JSDocTagInfo): string | null {
  const text = ts.displayPartsToString(tag.text);
  return /```ts\n([\s\S]*?)```/.exec(text)?.[1] ?? null;
}

/** The value exports of each of `entries` (absolute paths), with their examples, as the type checker lists them. */
function documentedExports(
  entries: readonly string[],
  virtual: ReadonlyMap<string, string> = new Map(),
): DocumentedExport[][] {
  const options: ts.CompilerOptions = { strict: true, noEmit: true, skipLibCheck: true, types: ['node'] };
  const program = ts.createProgram({ rootNames: [...entries], options, host: hostWith(options, virtual) });
  const checker = program.getTypeChecker();
  return entries.map((entry) => {
    const module = checker.getSymbolAtLocation(program.getSourceFile(entry) as ts.SourceFile);
    expect(module, `${entry} is a module`).toBeDefined();
    return checker
      .getExportsOfModule(module as ts.Symbol)
      .filter((symbol) => {
        const target = symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
        return target.flags & ts.SymbolFlags.Value && !symbol.declarations?.some(ts.isTypeOnlyExportDeclaration);
      })
      .map((symbol) => ({
        name: symbol.name,
        // Only the entry file's own comment counts: the alias of `export { x } from` has the specifier's alone.
        examples: symbol
          .getJsDocTags(checker)
          .filter((tag) => tag.name === 'example')
          .map(exampleCode),
      }));
  });
}

/** Each export without an example, and each example without a ```ts fence. */
function undocumented(exports: readonly DocumentedExport[]): string[] {
  return exports.flatMap(({ name, examples }) => {
    if (examples.length === 0) return [`${name}: no @example`];
    return examples.flatMap((code, i) => (code === null ? [`${name}: @example ${i + 1} has no \`\`\`ts block`] : []));
  });
}

/** A file name in a code's first line (`// promote.mts`) decides how it is compiled; else a CommonJS cube.ts. */
function examplesOf(entry: string, exports: readonly DocumentedExport[]): Example[] {
  return exports.flatMap(({ name, examples }) =>
    examples.flatMap((code, i) => {
      if (code === null) return [];
      const extension = /^\/\/ [\w./-]+\.([cm]?ts)\b/.exec(code)?.[1] ?? 'ts';
      const label = `${entry} ${name}, @example ${i + 1}`;
      const fileName = join(root, `.example-${entry.replace(/\W+/g, '-')}-${name}-${i + 1}.${extension}`);
      return [{ label, fileName, code }];
    }),
  );
}

/**
 * The compiler's complaints about each example, as `label line:column message`, compiled as a user's project
 * importing the package by its name (a package resolves its own name through its exports map, to dist/).
 */
function exampleProblems(examples: readonly Example[]): string[] {
  // Node's types: a cube.ts reads process.env, as a script does.
  const options: ts.CompilerOptions = { ...USER_PROJECT, types: ['node'] };
  const virtual = new Map(examples.map((example) => [example.fileName, example.code]));
  const program = ts.createProgram({ rootNames: [...virtual.keys()], options, host: hostWith(options, virtual) });
  const general = [...program.getOptionsDiagnostics(), ...program.getGlobalDiagnostics()];
  const problems = general.map((d) => `the compilation: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`);
  for (const { label, fileName } of examples) {
    const file = program.getSourceFile(fileName) as ts.SourceFile;
    for (const d of [...program.getSyntacticDiagnostics(file), ...program.getSemanticDiagnostics(file)]) {
      const { line, character } = file.getLineAndCharacterOfPosition(d.start ?? 0);
      problems.push(`${label} ${line + 1}:${character + 1} ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`);
    }
  }
  return problems;
}

describe("the entry points' examples", () => {
  const documented = documentedExports(ENTRIES.map(({ source }) => join(root, source)));

  it.each(ENTRIES.map((entry, i) => [entry.source, entry.built, documented[i] ?? []] as const))(
    'every value export of %s has an @example with a ```ts block, and they are all the built %s exports',
    (_source, built, exports) => {
      const runtime = Object.keys(nodeRequire(join(root, built)) as object);
      expect(runtime.length).toBeGreaterThan(10);
      expect(exports.map(({ name }) => name).sort()).toEqual(runtime.sort());
      expect(undocumented(exports)).toEqual([]);
    },
  );

  it('reach the typings the package ships (dist/*.d.ts)', () => {
    expect(documentedExports(ENTRIES.map(({ types }) => join(root, types)))).toEqual(documented);
  });

  it('compile, each as a file of its own importing the package by name, strictly', () => {
    const examples = ENTRIES.flatMap(({ source }, i) => examplesOf(source, documented[i] ?? []));
    expect(examples.length).toBeGreaterThanOrEqual(34);
    expect(exampleProblems(examples)).toEqual([]);
  });

  it('are found and judged as these tests say: a missing example, a block without code and one that does not compile', () => {
    const sample = join(root, 'src/.example-sample.ts');
    const fence = '```';
    const text = `export {
  /** Compiles. @example
   * ${fence}ts
   * import { ENV } from 'cube-dual-auth';
   * console.log(ENV.jwksUri);
   * ${fence}
   * @example
   * ${fence}ts
   * // script.mts: an ES module, where await works at the top level
   * import { ENV } from 'cube-dual-auth';
   * console.log(await Promise.resolve(ENV.jwksUri));
   * ${fence}
   */
  ENV,
  /** Does not. @example
   * ${fence}ts
   * import { ENV } from 'cube-dual-auth';
   * const port: number = ENV.jwksUri;
   * ${fence}
   */
  ENV as ENV_AGAIN,
  /** No block. @example \`optionsFromEnv()\` */
  optionsFromEnv,
} from './config/env';
/** No example. */
export const unexplained = 1;
export type { DualAuthOptions } from './config/options';
export type { DualAuthError } from './errors';
`;
    const [exports = []] = documentedExports([sample], new Map([[sample, text]]));
    expect(exports.map(({ name }) => name)).toEqual(['ENV', 'ENV_AGAIN', 'optionsFromEnv', 'unexplained']);
    expect(undocumented(exports)).toEqual([
      'optionsFromEnv: @example 1 has no ```ts block',
      'unexplained: no @example',
    ]);
    const examples = examplesOf('sample.ts', exports);
    expect(examples.map(({ fileName }) => basename(fileName))).toEqual([
      '.example-sample-ts-ENV-1.ts',
      '.example-sample-ts-ENV-2.mts',
      '.example-sample-ts-ENV_AGAIN-1.ts',
    ]);
    expect(exampleProblems(examples)).toEqual([
      "sample.ts ENV_AGAIN, @example 1 2:7 Type 'string' is not assignable to type 'number'.",
    ]);
  });
});
