// TypeScript users: examples/typescript/cube.ts types its configuration with Cube's own `CreateOptions` and uses this
// package's checkAuth without a cast. It is compiled here against the typings of @cubejs-backend/server-core of each
// Cube line and of this package as installed from `npm pack`, in the installed example projects, as a user's would be.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { ensureCube, repoRoot } from '../../scripts/ensure-cube.mjs';

const INSTALL_TIMEOUT_MS = 15 * 60_000;

/** The compiler's complaints about a cube.ts, compiled where `projectDir`'s node_modules resolve (empty: it compiles). */
function typeErrors(projectDir: string, source: string): string[] {
  const dir = join(projectDir, '.typings-check');
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir);
  const file = join(dir, 'cube.ts');
  writeFileSync(file, source);
  const program = ts.createProgram([file], {
    strict: true,
    noEmit: true,
    module: ts.ModuleKind.Node16,
    moduleResolution: ts.ModuleResolutionKind.Node16,
    target: ts.ScriptTarget.ES2022,
    // Cube's own declaration files are not this test's business; how this file uses them is.
    skipLibCheck: true,
    types: [],
  });
  const diagnostics = ts.getPreEmitDiagnostics(program).filter((d) => d.file === undefined || d.file.fileName === file);
  rmSync(dir, { recursive: true, force: true });
  return diagnostics.map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
}

const example = readFileSync(join(repoRoot, 'examples/typescript/cube.ts'), 'utf8');

describe.each(['0.33', '1'])("a cube.ts typed with Cube's CreateOptions (Cube line %s)", (line) => {
  it('compiles with checkAuth from cube-dual-auth, without a cast', { timeout: INSTALL_TIMEOUT_MS }, async () => {
    const { projectDir } = await ensureCube({ line });
    expect(typeErrors(projectDir, example)).toEqual([]);
  });
});

// What the test guards against: 0.33's CheckAuthFn is `(ctx, authorization?) => Promise<void> | void`, so a hook typed
// as resolving to the security context (as this package's was) does not fit it.
it("Cube 0.33's typings refuse a checkAuth that resolves to a value", { timeout: INSTALL_TIMEOUT_MS }, async () => {
  const { projectDir } = await ensureCube({ line: '0.33' });
  const resolvingToTheContext = `import type { CreateOptions } from '@cubejs-backend/server-core';
declare const checkAuth: (req: unknown, auth?: unknown) => Promise<Record<string, unknown>>;
const config: CreateOptions = { checkAuth };
export = config;
`;
  expect(typeErrors(projectDir, resolvingToTheContext).join('\n')).toMatch(/Type 'Promise<Record<string, unknown>>' is not assignable to type '(void \| )?Promise<void>/);
});
