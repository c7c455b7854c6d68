// Replicas of a deployment for the metrics tests: each a process of its own running the built package's ready-made
// hook (test/support/hook-replica.cjs), so each has its own metrics, as each Cube process has. Cube's own part is
// only to call the hook, which the test does through the replica.
import { fork, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';

const STARTS_WITHIN_MS = 15_000;
const STOPS_WITHIN_MS = 5_000;
const ANSWERS_WITHIN_MS = 10_000;
const root = join(__dirname, '..', '..');

/** What a call of the hook ended with: accepted, or refused with the message. */
export interface HookAnswer {
  readonly ok: boolean;
  readonly message?: string;
}

export interface HookReplica {
  /** `checkAuth(req, token)`, as Cube calls it for a request. */
  checkAuth(req: { headers: Record<string, string> }, token: string): Promise<HookAnswer>;
  /** `checkSqlAuth(req, user, password)`, as Cube's SQL API calls it; `password` null for a re-authentication. */
  checkSqlAuth(req: Record<string, string>, user: string, password: string | null): Promise<HookAnswer>;
  prefetch(): Promise<HookAnswer>;
  /** What it printed on standard error: the hook's log lines. */
  output(): string;
  stop(): Promise<void>;
}

/** Starts one replica with exactly `env` (no CUBEJS_ or CUBE_DUAL_AUTH_ variable of the test's own). */
export async function startHookReplica(env: Readonly<Record<string, string>>): Promise<HookReplica> {
  const child: ChildProcess = fork(join(__dirname, 'hook-replica.cjs'), [], {
    env: { PATH: process.env.PATH ?? '', HOOK_REPLICA_PACKAGE: join(root, 'dist', 'index.js'), ...env },
    stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
    execArgv: [],
  });
  let printed = '';
  child.stderr?.on('data', (chunk: Buffer) => (printed = (printed + chunk.toString('utf8')).slice(-8_000)));
  const exited = once(child, 'exit');
  const pending = new Map<number, (answer: HookAnswer) => void>();
  let ready = false;
  child.on('message', (message: { ready?: boolean; id?: number } & HookAnswer) => {
    if (message.ready === true) ready = true;
    else if (message.id !== undefined) pending.get(message.id)?.({ ok: message.ok, message: message.message });
  });

  async function stop(): Promise<void> {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), STOPS_WITHIN_MS);
    await exited;
    clearTimeout(timer);
  }

  const deadline = Date.now() + STARTS_WITHIN_MS;
  while (!ready) {
    if (child.exitCode !== null || Date.now() > deadline) {
      await stop();
      throw new Error(`the hook replica did not start (exit ${child.exitCode}):\n${printed}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }

  let next = 0;
  function call(name: string, args: unknown[]): Promise<HookAnswer> {
    const id = next++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        pending.delete(id);
        reject(new Error(`the hook replica did not answer ${name} within ${ANSWERS_WITHIN_MS} ms:\n${printed}`));
      }, ANSWERS_WITHIN_MS);
      pending.set(id, (answer) => {
        clearTimeout(timer);
        pending.delete(id);
        resolve(answer);
      });
      child.send({ id, call: name, args });
    });
  }

  return {
    checkAuth: (req, token) => call('checkAuth', [req, token]),
    checkSqlAuth: (req, user, password) => call('checkSqlAuth', [req, user, password]),
    prefetch: () => call('prefetch', []),
    output: () => printed,
    stop,
  };
}
