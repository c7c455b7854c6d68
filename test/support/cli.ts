import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { Readable, Writable } from 'node:stream';
import { finished } from 'node:stream/promises';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect } from 'vitest';
import { run } from '../../src/cli/run';
import { startJwksServer, type JwksServer } from './jwks-server';
import { generateKeyPair, type TestKeyPair } from './keys';
import { watchLateness } from './lateness';

/**
 * The built CLI, as `npx cube-dual-auth` runs it. `CUBE_DUAL_AUTH_TEST_CLI` points the tests at another build
 * (an installed package, or a private build while someone else rebuilds dist/ in the same tree).
 */
export const CLI =
  process.env.CUBE_DUAL_AUTH_TEST_CLI ?? fileURLToPath(new URL('../../dist/cli/main.js', import.meta.url));

export interface CliResult {
  /** The exit status; null when the spawned process was killed. */
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
  /** Wall-clock time until the command finished (the process exited, when spawned). */
  readonly ms: number;
  /** How late this process ran meanwhile (test/support/lateness.ts): what a bound on `ms` allows beyond its own. */
  readonly lateMs: number;
  /**
   * Spawned: when the process last wrote (ms from its start). `ms - outputEndMs` is how long it lived after its last
   * word, which a leftover socket or timer stretches to seconds, however slowly the machine started it.
   */
  readonly outputEndMs?: number;
}

export interface CliOptions {
  /** The whole environment (apart from PATH, when spawned): nothing leaks in from the shell running the tests. */
  readonly env?: Record<string, string>;
  readonly stdin?: string;
  /** The working directory; default the test runner's. */
  readonly cwd?: string;
  /** For a spawned run: the bin to run instead of {@link CLI}, such as a copy installed elsewhere. */
  readonly bin?: string;
  /** Values that must never be printed (secrets, whole tokens): the run fails the test when one reached stdout or stderr. */
  readonly secrets?: readonly string[];
  /** For a spawned run: when it is killed (default 15 s), for a command that waits on a real Cube under load. */
  readonly killAfterMs?: number;
}

/** The result, once none of `secrets` is found in what the command printed. */
function printedNoSecret(result: CliResult, secrets: readonly string[] = []): CliResult {
  for (const secret of secrets) expect(result.stdout + result.stderr).not.toContain(secret);
  return result;
}

/** A stream that keeps what is written to it, as a terminal would show it (not a TTY: no colours). */
class Collected extends Writable {
  text = '';

  override _write(chunk: Buffer, _encoding: BufferEncoding, done: (error?: Error | null) => void): void {
    this.text += chunk.toString('utf8');
    done();
  }
}

/**
 * Runs `cube-dual-auth <args>` in this process through `run(argv, io)`, with collected output streams,
 * the given standard input, environment and working directory. Asynchronous, so a JWKS or service server
 * in the test process keeps answering while the command runs.
 */
export async function runCli(args: readonly string[], options: CliOptions = {}): Promise<CliResult> {
  const stdout = new Collected();
  const stderr = new Collected();
  const stdin = Readable.from(options.stdin === undefined ? [] : [options.stdin]);
  const watch = watchLateness();
  const started = performance.now();
  const code = await run(args, { stdout, stderr, stdin, env: { ...options.env }, cwd: options.cwd ?? process.cwd() });
  const ms = performance.now() - started;
  const lateMs = watch.stop();
  stdout.end();
  stderr.end();
  await Promise.all([finished(stdout), finished(stderr)]);
  return printedNoSecret({ code, stdout: stdout.text, stderr: stderr.text, ms, lateMs }, options.secrets);
}

/**
 * Runs the built bin, `node dist/cli/main.js <args>`, as a separate process: for what only a real process
 * shows (exit status, that it exits at all). Killed after 15 s (or `killAfterMs`); a CLI that does not exit is a bug.
 */
export function runBin(args: readonly string[], options: CliOptions = {}): Promise<CliResult> {
  const bin = options.bin ?? CLI;
  if (!existsSync(bin)) {
    throw new Error(`${bin} is missing: run "npm run build" first ("npm test" builds before testing)`);
  }
  const watch = watchLateness();
  const started = performance.now();
  let outputEndMs = 0;
  const child = spawn(process.execPath, [bin, ...args], {
    cwd: options.cwd,
    env: { PATH: process.env.PATH ?? '', ...options.env },
    timeout: options.killAfterMs ?? 15_000,
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk;
    outputEndMs = performance.now() - started;
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
    outputEndMs = performance.now() - started;
  });
  child.stdin.end(options.stdin ?? '');
  return new Promise<CliResult>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) =>
      resolve({ code, stdout, stderr, ms: performance.now() - started, lateMs: watch.stop(), outputEndMs }),
    );
  }).then((result) => printedNoSecret(result, options.secrets));
}

/**
 * Runs `cube-dual-auth <args> | head -n 1` in a shell, as a user does: standard output goes into a real pipe (not
 * the socket pair Node gives a child) whose reader stops after the first line. The result's `stdout` is what `head`
 * printed, `stderr` the command's, `code` the command's exit status. A command that prints more than the pipe and
 * `head` hold together (64 KiB and 8 KiB) cannot have finished writing when `head` exits, whatever the timing: its
 * next write meets a closed pipe.
 */
export function runBinThroughHead(args: readonly string[], options: CliOptions = {}): Promise<CliResult> {
  const watch = watchLateness();
  const started = performance.now();
  // The command's exit status comes back on descriptor 3, as the shell sees only head's.
  const script = '{ "$0" "$@"; echo $? >&3; } | head -n 1';
  const child = spawn('/bin/sh', ['-c', script, process.execPath, CLI, ...args], {
    cwd: options.cwd,
    env: { PATH: process.env.PATH ?? '', ...options.env },
    stdio: ['ignore', 'pipe', 'pipe', 'pipe'],
    timeout: 15_000,
  });
  const [, out, err, statusOut] = child.stdio as unknown as [null, Readable, Readable, Readable];
  return Promise.all([text(out), text(err), text(statusOut)]).then(([stdout, stderr, status]) => ({
    code: status.trim() === '' ? null : Number(status.trim()),
    stdout,
    stderr,
    ms: performance.now() - started,
    lateMs: watch.stop(),
  }));
}

/** All a stream gives until it ends, as UTF-8 text. */
async function text(stream: Readable): Promise<string> {
  let all = '';
  for await (const chunk of stream.setEncoding('utf8')) all += chunk as string;
  return all;
}

/** Parses stdout as the JSON document of `--json`, with the output in the message when it is not JSON. */
export function jsonOf<T = Record<string, unknown>>(result: CliResult): T {
  try {
    return JSON.parse(result.stdout) as T;
  } catch {
    throw new Error(`stdout is not JSON (exit ${result.code}):\n${result.stdout}\nstderr:\n${result.stderr}`);
  }
}

/**
 * Characters a terminal acts on rather than shows, bar the line feed: C0 controls, DEL, C1 controls, bidirectional
 * formatting, line and paragraph separators, lone surrogates. Written out here, not taken from the code under test.
 */
const TERMINAL_CONTROLS =
  // eslint-disable-next-line no-control-regex -- control characters are what is looked for
  /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069\ud800-\udfff]/u;

/** The characters of `text` that would reach a terminal raw, as code points: `[]` when there are none. */
export function terminalControlsIn(text: string): string[] {
  return [...text]
    .filter((c) => TERMINAL_CONTROLS.test(c))
    .map((c) => `U+${(c.codePointAt(0) as number).toString(16).padStart(4, '0')}`);
}

/** A deployment the CLI can be pointed at: an identity provider's key and the JWKS server that serves it. */
export interface KeySetDeployment {
  /** RS256, `kid` "k1". */
  readonly key: TestKeyPair;
  readonly server: JwksServer;
  /** The deployment's environment: `secret` as CUBEJS_API_SECRET, the server as CUBEJS_JWK_URL. */
  readonly env: Record<string, string>;
}

/** Serves a new key set for the calling test file, handed to `use` before its tests, and stops it after them. */
export function keySetDeploymentPerFile(secret: string, use: (deployment: KeySetDeployment) => void): void {
  let server: JwksServer | undefined;
  beforeAll(async () => {
    const key = generateKeyPair('RS256', { kid: 'k1' });
    server = await startJwksServer({ keys: [key.jwk] });
    use({ key, server, env: { CUBEJS_API_SECRET: secret, CUBEJS_JWK_URL: server.url } });
  });
  afterAll(() => server?.close());
}
