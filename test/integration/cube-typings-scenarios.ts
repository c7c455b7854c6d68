// TypeScript users: examples/typescript/cube.ts types its configuration with Cube's own `CreateOptions` and uses this
// package's checkAuth without a cast. It is compiled here against the typings of @cubejs-backend/server-core of each
// Cube line and of this package as installed from `npm pack`, in the installed example projects, as a user's would be.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { diagnosticsOf, messageOf } from '../support/typescript';
import { ensureCube, repoRoot } from '../../scripts/ensure-cube.mjs';

const INSTALL_TIMEOUT_MS = 15 * 60_000;

/**
 * The compiler's complaints about a cube.ts (or `fileName`: a .mts is an ES module, typed by the package's .d.mts),
 * compiled where `projectDir`'s node_modules resolve (empty: it compiles).
 */
function typeErrors(projectDir: string, source: string, fileName = 'cube.ts'): string[] {
  const dir = join(projectDir, '.typings-check');
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir);
  const file = join(dir, fileName);
  writeFileSync(file, source);
  const diagnostics = diagnosticsOf(file).filter((d) => d.file === undefined || d.file.fileName === file);
  rmSync(dir, { recursive: true, force: true });
  return diagnostics.map(messageOf);
}

const example = readFileSync(join(repoRoot, 'examples/typescript/cube.ts'), 'utf8');

/**
 * A file that compiles only if `await checkAuth(req)` (the ready-made hook and createCheckAuth's) is typed exactly as
 * the security context, and both hooks fit Cube's CreateOptions without a cast.
 */
const resolvesToTheContext = `import type { CreateOptions } from '@cubejs-backend/server-core';
import { canSwitchSqlUser, checkAuth, checkSqlAuth, createCheckAuth, type SecurityContext } from 'cube-dual-auth';

type Exactly<A, B> = (<T>() => T extends A ? 1 : 2) extends (<T>() => T extends B ? 1 : 2) ? true : false;

export async function contexts(req: { headers: Record<string, string> }, token: string): Promise<SecurityContext[]> {
  const readyMade = await checkAuth(req, token);
  const created = await createCheckAuth({ jwksUri: 'https://idp.example/jwks' })(req);
  const readyMadeIsTheContext: Exactly<typeof readyMade, SecurityContext> = true;
  const createdIsTheContext: Exactly<typeof created, SecurityContext> = true;
  void readyMadeIsTheContext;
  void createdIsTheContext;
  return [readyMade, created];
}

export const config: CreateOptions = { checkAuth: createCheckAuth({ jwksUri: 'https://idp.example/jwks' }) };
export const readyMadeConfig: CreateOptions = { checkAuth };
export const sqlApiConfig: CreateOptions = { checkAuth, checkSqlAuth, canSwitchSqlUser };
`;

export function cubeTypingsScenarios(line: string): void {
  describe(`a cube.ts typed with Cube's CreateOptions (Cube line ${line})`, () => {
    it(
      'compiles with checkAuth, contextToAppId, logger and tenantFilter from cube-dual-auth, without a cast',
      { timeout: INSTALL_TIMEOUT_MS },
      async () => {
        const { projectDir } = await ensureCube({ line });
        expect(typeErrors(projectDir, example)).toEqual([]);
      },
    );

    it(
      'types `await checkAuth(req)` as the security context, and it, checkSqlAuth and canSwitchSqlUser fit CreateOptions (CommonJS and ES module typings)',
      { timeout: INSTALL_TIMEOUT_MS },
      async () => {
        const { projectDir } = await ensureCube({ line });
        expect(typeErrors(projectDir, resolvesToTheContext)).toEqual([]);
        expect(typeErrors(projectDir, resolvesToTheContext, 'cube.mts')).toEqual([]);
        // The check can fail: a hook typed as resolving to nothing is not the context.
        const resolvingToNothing = resolvesToTheContext.replace(
          "import { canSwitchSqlUser, checkAuth, checkSqlAuth, createCheckAuth, type SecurityContext } from 'cube-dual-auth';",
          `import { canSwitchSqlUser, checkSqlAuth, createCheckAuth, type SecurityContext } from 'cube-dual-auth';
declare const checkAuth: (req: unknown, auth?: unknown) => Promise<void>;`,
        );
        expect(typeErrors(projectDir, resolvingToNothing).join('\n')).toMatch(
          /Type 'true' is not assignable to type 'false'/,
        );
      },
    );

    if (line === '0.33') {
      // What the test guards against: 0.33's CheckAuthFn is `(ctx, authorization?) => Promise<void> | void`, so a
      // hook typed as resolving to the security context (as this package's was) does not fit it.
      it(
        "Cube 0.33's typings refuse a checkAuth that resolves to a value",
        { timeout: INSTALL_TIMEOUT_MS },
        async () => {
          const { projectDir } = await ensureCube({ line: '0.33' });
          const resolvingToTheContext = `import type { CreateOptions } from '@cubejs-backend/server-core';
declare const checkAuth: (req: unknown, auth?: unknown) => Promise<Record<string, unknown>>;
const config: CreateOptions = { checkAuth };
export = config;
`;
          expect(typeErrors(projectDir, resolvingToTheContext).join('\n')).toMatch(
            /Type 'Promise<Record<string, unknown>>' is not assignable to type '(void \| )?Promise<void>/,
          );
        },
      );
    }
  });
}
