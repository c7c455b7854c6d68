import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/**
 * The built CLI, as `npx cube-dual-auth` runs it. `CUBE_DUAL_AUTH_TEST_CLI` points the tests at another build
 * (an installed package, or a private build while someone else rebuilds dist/ in the same tree).
 */
export const CLI = process.env.CUBE_DUAL_AUTH_TEST_CLI ?? fileURLToPath(new URL('../../dist/cli/main.js', import.meta.url));

export interface CliResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
  /** Wall-clock time until the process exited. */
  readonly ms: number;
}

export interface CliOptions {
  /** The whole environment apart from PATH: nothing leaks in from the shell running the tests. */
  readonly env?: Record<string, string>;
  readonly stdin?: string;
  readonly cwd?: string;
  /** Kill the process after this long; a CLI that does not exit is a bug. Default 15 000. */
  readonly timeoutMs?: number;
}

/**
 * Runs `node dist/cli/main.js <args>` as a separate process. Asynchronous on purpose: a JWKS server in
 * the test process must keep answering while the CLI runs.
 */
export function runCli(args: readonly string[], options: CliOptions = {}): Promise<CliResult> {
  if (!existsSync(CLI)) {
    throw new Error(`${CLI} is missing: run "npm run build" first ("npm test" builds before testing)`);
  }
  const started = performance.now();
  const child = spawn(process.execPath, [CLI, ...args], {
    cwd: options.cwd,
    env: { PATH: process.env.PATH ?? '', ...options.env },
    timeout: options.timeoutMs ?? 15_000,
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  child.stdin.end(options.stdin ?? '');
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr, ms: performance.now() - started }));
  });
}

/** Parses stdout as the JSON document of `--json`, with the output in the message when it is not JSON. */
export function jsonOf<T = Record<string, unknown>>(result: CliResult): T {
  try {
    return JSON.parse(result.stdout) as T;
  } catch {
    throw new Error(`stdout is not JSON (exit ${result.code}):\n${result.stdout}\nstderr:\n${result.stderr}`);
  }
}
