/**
 * A Node script run in a contained child: its own process group, an answer channel capped in size, and at the end the
 * child killed with every process it started (docs/cli-output.md#how-doctor-reads-cubejs).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import type { Readable } from 'node:stream';

/** The answer channel's cap: an answer is a list of export names, a few KB. */
export const MAX_ANSWER_BYTES = 1024 * 1024;

/** Marks the child and whatever it starts, so that a process that left its group is found and killed too. */
export const CHILD_MARK = 'CUBE_DUAL_AUTH_DOCTOR_CHILD';

/** How long an ended child's answer may still be on its way when a process it started holds the channel. */
const ANSWER_GRACE_MS = 500;

/** How the child writes its answer on file descriptor 3: the length in bytes, a newline, then the JSON. */
export const WRITE_ANSWER =
  "const answerBytes = (value) => { const body = Buffer.from(JSON.stringify(value)); require('node:fs').writeSync(3, Buffer.concat([Buffer.from(body.length + '\\n'), body])); };";

export type ChildOutcome =
  | { readonly kind: 'answered'; readonly text: string }
  | { readonly kind: 'timed-out' }
  | { readonly kind: 'aborted' }
  | { readonly kind: 'too-large'; readonly limit: number }
  | { readonly kind: 'ended'; readonly reason: string };

export interface ContainedOptions {
  /** The script, run as `node -e`, with `args` after it. */
  readonly script: string;
  readonly args: readonly string[];
  readonly cwd: string;
  readonly env: NodeJS.ProcessEnv;
  readonly timeoutMs: number;
  /** Ends the run at once (the command's deadline). */
  readonly signal?: AbortSignal;
  /** Default {@link MAX_ANSWER_BYTES}. */
  readonly maxAnswerBytes?: number;
}

/** The process ids of `root`'s descendants, and of any process marked with `mark`; empty where there is no /proc. */
function descendants(root: number, mark: string): number[] {
  let entries: string[];
  try {
    entries = readdirSync('/proc').filter((name) => /^\d+$/.test(name));
  } catch {
    return [];
  }
  const children = new Map<number, number[]>();
  const marked: number[] = [];
  for (const entry of entries) {
    const pid = Number(entry);
    try {
      // The parent is the 4th field, after the name in parentheses (which may hold spaces).
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      children.set(ppid, [...(children.get(ppid) ?? []), pid]);
      if (readFileSync(`/proc/${entry}/environ`, 'latin1').includes(mark)) marked.push(pid);
    } catch {
      // Gone meanwhile, or not ours to read.
    }
  }
  const found = new Set<number>(marked);
  const queue = [root];
  for (let pid = queue.pop(); pid !== undefined; pid = queue.pop())
    for (const child of children.get(pid) ?? []) {
      if (found.has(child)) continue;
      found.add(child);
      queue.push(child);
    }
  found.delete(process.pid);
  return [...found];
}

function kill(pid: number): void {
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // Already gone.
  }
}

/** Kills the child's process group, its descendants and every process marked as its own, until none is left. */
export function killContained(child: ChildProcess, mark: string): void {
  const pid = child.pid;
  if (pid === undefined) return;
  // A few rounds: a process may start another while the first are killed.
  for (let round = 0; round < 3; round++) {
    const left = descendants(pid, mark);
    kill(-pid);
    kill(pid);
    for (const other of left) kill(other);
    if (left.length === 0) break;
  }
}

/** What has come on the channel: the answer once whole, too much, or not yet. */
function framed(buffer: Buffer, limit: number): ChildOutcome | undefined {
  const newline = buffer.indexOf(10);
  if (newline === -1) return buffer.length > 16 ? { kind: 'too-large', limit } : undefined;
  const length = Number(buffer.subarray(0, newline).toString('latin1'));
  if (!Number.isSafeInteger(length) || length < 0 || length > limit) return { kind: 'too-large', limit };
  if (buffer.length - newline - 1 < length) return undefined;
  return { kind: 'answered', text: buffer.subarray(newline + 1, newline + 1 + length).toString('utf8') };
}

/**
 * Runs `script` contained, and resolves with its answer or why there is none; never rejects. Whatever the outcome,
 * the child and all it started are killed before this resolves.
 * @example `runContained({ script: WRITE_ANSWER + 'answerBytes(1)', args: [], cwd, env, timeoutMs: 10_000 })`
 */
export function runContained(options: ContainedOptions): Promise<ChildOutcome> {
  const limit = options.maxAnswerBytes ?? MAX_ANSWER_BYTES;
  const mark = randomBytes(12).toString('hex');
  const child = spawn(process.execPath, ['-e', options.script, ...options.args], {
    cwd: options.cwd,
    env: { ...options.env, [CHILD_MARK]: mark },
    stdio: ['ignore', 'ignore', 'ignore', 'pipe'],
    detached: true,
  });
  const killAll = (): void => killContained(child, mark);
  // Should doctor itself be ended first, the child goes with it.
  process.once('exit', killAll);
  return new Promise<ChildOutcome>((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let grace: NodeJS.Timeout | undefined;
    const channel = child.stdio[3] as Readable;
    const settle = (outcome: ChildOutcome): void => {
      clearTimeout(deadline);
      clearTimeout(grace);
      options.signal?.removeEventListener('abort', onAbort);
      channel.destroy();
      killAll();
      process.removeListener('exit', killAll);
      // Resolved once the child is reaped, so that no process of its outlives the answer, not even as a zombie.
      if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) resolve(outcome);
      else child.once('exit', () => resolve(outcome));
    };
    const deadline = setTimeout(() => settle({ kind: 'timed-out' }), options.timeoutMs);
    const onAbort = (): void => settle({ kind: 'aborted' });
    if (options.signal?.aborted) return settle({ kind: 'aborted' });
    options.signal?.addEventListener('abort', onAbort, { once: true });
    channel.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit + 32) return settle({ kind: 'too-large', limit });
      chunks.push(chunk);
      const outcome = framed(Buffer.concat(chunks), limit);
      if (outcome !== undefined) settle(outcome);
    });
    channel.on('error', () => undefined);
    const noAnswer = (reason: string): void => settle({ kind: 'ended', reason });
    child.once('error', (error) => noAnswer(error.message));
    child.once('exit', (code, signal) => {
      const reason = `the process loading it ended (${signal === null ? `exit code ${code}` : `signal ${signal}`})`;
      // The channel's end says all was read; a process the child started may hold it open, so not for long.
      channel.once('end', () => noAnswer(reason));
      grace = setTimeout(() => noAnswer(reason), ANSWER_GRACE_MS);
    });
  });
}
