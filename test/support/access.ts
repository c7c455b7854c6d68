// What the access suites of both Cube lines share (test/integration/access-cube-*.integration.test.ts): the
// authorization stack of a line, and `cube-dual-auth access` run against it as a separate process, with the
// deployment's own environment, so that it verifies each token here as Cube's hook does.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect } from 'vitest';
import {
  authorizationEnvironment,
  startAuthorizationStack,
  type AuthorizationStack,
  type IdpApp,
} from './authorization-stack';
import { runBin, terminalControlsIn, type CliResult } from './cli';

/** Installing a Cube line (once per machine) and starting it with its identity provider. */
const INSTALL_AND_START_TIMEOUT_MS = 15 * 60_000;
/** Each request's deadline, and when the process is killed: Cube compiles a tenant's model on its first request. */
export const REQUEST_TIMEOUT_MS = 20_000;
const KILL_AFTER_MS = 60_000;

export interface AccessSuite {
  /** The running stack (after beforeAll). */
  stack(): AuthorizationStack;
  /** A file holding the identity provider's token for `app`. */
  idpTokenFile(app: IdpApp): Promise<string>;
  /** Runs `cube-dual-auth access <Cube's API URL> <args>` as a process; nothing secret or raw may be printed. */
  access(args: readonly string[], options?: { readonly url?: string; readonly timeoutMs?: number }): Promise<CliResult>;
}

/**
 * Starts the stack of `lineId` serving `fixture` (with Cube's environment beyond the authorization's, if given) before
 * the calling `describe` block's tests, and stops it after them.
 */
export function accessSuite(lineId: string, fixture: string, cubeEnv: Record<string, string> = {}): AccessSuite {
  let stack: AuthorizationStack | undefined;
  let dir: string | undefined;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'access-cube-'));
    stack = await startAuthorizationStack(lineId, fixture, { env: cubeEnv });
  }, INSTALL_AND_START_TIMEOUT_MS);
  afterAll(async () => {
    await stack?.stop();
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  });
  const started = (): AuthorizationStack => {
    if (stack === undefined) throw new Error('the authorization stack starts in beforeAll');
    return stack;
  };
  let files = 0;
  return {
    stack: started,
    async idpTokenFile(app) {
      const file = join(dir as string, `${app}-${files++}.txt`);
      writeFileSync(file, await started().idpToken(app));
      return file;
    },
    async access(args, options = {}) {
      const running = started();
      const env = authorizationEnvironment(running.identityProvider, running.workforce, running.apiSecret);
      const result = await runBin(
        [
          'access',
          options.url ?? running.cube.apiUrl,
          ...args,
          '--timeout',
          String(options.timeoutMs ?? REQUEST_TIMEOUT_MS),
        ],
        { env, secrets: [running.apiSecret, ...running.tokens], killAfterMs: KILL_AFTER_MS },
      );
      expect(result.stdout + result.stderr).not.toMatch(/eyJ[\w-]*\.eyJ/);
      expect(terminalControlsIn(result.stdout + result.stderr)).toEqual([]);
      return result;
    },
  };
}
