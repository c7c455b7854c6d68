// scripts/deadline.mjs, the outer deadline of `npm test`, `npm run test:integration` and every phase of .ci/run: real
// vitest runs of the files in test/fixtures/deadline/, one of which never settles (docs/development.md#deadlines).
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { listProcesses } from '../../scripts/lib/process-tree.mjs';
import { watchLateness } from '../support/lateness';
import { scratchDirs } from '../support/scratch';

const FIXTURES = join(__dirname, '../fixtures/deadline');
const DEADLINE = join(__dirname, '../../scripts/deadline.mjs');
const VITEST = join(__dirname, '../../node_modules/vitest/vitest.mjs');
/** What scripts/deadline.mjs allows the processes it stops (5 s), and a second for each of its two last waits. */
const STOPPING_MS = 7_000;

interface Run {
  readonly code: number | null;
  readonly stderr: string;
  readonly stdout: string;
  /** From the start to the deadline's exit, and from its first `deadline:` line to its exit, in ms. */
  readonly ms: number;
  readonly afterFirstWordMs?: number;
  readonly lateMs: number;
  /** What the fixture wrote: vitest's own pid (its group), its worker's, and the process the fixture started. */
  readonly pids: { main: number; worker: number; spawned: number } | undefined;
}

const scratch = scratchDirs('deadline-test-');

/** `node scripts/deadline.mjs --seconds <seconds> -- vitest run <fixture>`, in test/fixtures/deadline/. */
function underDeadline(seconds: number, fixture: string): Promise<Run> {
  const out = scratch();
  // Nothing of this run's own vitest leaks into the fixture's: its workers' variables, the outer deadline's folders.
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !/^VITEST|^CUBE_DUAL_AUTH_RUNNING_FILES$/.test(name)),
  );
  const args = [DEADLINE, '--seconds', String(seconds), '--name', 'the fixture run', '--'];
  const watch = watchLateness();
  const started = performance.now();
  let firstWordMs: number | undefined;
  const child = spawn(process.execPath, [...args, process.execPath, VITEST, 'run', fixture], {
    cwd: FIXTURES,
    env: { ...env, FIXTURE_OUT: out, NO_COLOR: '1' },
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
    if (firstWordMs === undefined && stderr.includes('deadline:')) firstWordMs = performance.now() - started;
  });
  return new Promise<Run>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) => {
      const ms = performance.now() - started;
      let pids: Run['pids'];
      try {
        pids = JSON.parse(readFileSync(join(out, 'pids.json'), 'utf8')) as Run['pids'];
      } catch {
        pids = undefined;
      }
      const afterFirstWordMs = firstWordMs === undefined ? undefined : ms - firstWordMs;
      resolve({ code, stdout, stderr, ms, afterFirstWordMs, lateMs: watch.stop(), pids });
    });
  });
}

/** The processes of a fixture run still running: its vitest, its worker, what the test file started, their groups. */
function leftOf(pids: NonNullable<Run['pids']>): string[] {
  const ids = new Set([pids.main, pids.worker, pids.spawned]);
  return listProcesses()
    .filter((p) => ids.has(p.pid) || p.pgid === pids.main || p.pgid === pids.spawned)
    .map((p) => `${p.pid} ${p.command}`);
}

describe('scripts/deadline.mjs', () => {
  it('fails a run that never settles at its deadline, names the file still running, and leaves no process', async () => {
    const seconds = 20;
    const run = await underDeadline(seconds, 'never-settles');
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`deadline: the fixture run passed its deadline of ${seconds} s`);
    expect(run.stderr).toMatch(/deadline: test files still running:\n {2}never-settles\.fixture\.ts \(for [\d.]+ s\)/);
    expect(run.stderr).toMatch(/stopping \d+ processes:[\s\S]*setInterval/);
    // Not before its deadline, and within it plus the time given to what it stops (and how late this process ran).
    expect(run.ms).toBeGreaterThanOrEqual(seconds * 1000);
    expect(run.afterFirstWordMs).toBeLessThanOrEqual(STOPPING_MS + run.lateMs);
    expect(run.pids).toBeDefined();
    expect(leftOf(run.pids!)).toEqual([]);
  }, 90_000);

  it('fails a run that passes but leaves a process running, names it and stops it', async () => {
    const run = await underDeadline(300, 'leaves-a-process');
    expect(run.stdout).toMatch(/1 passed/);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('deadline: the fixture run ended and left 1 process running; stopping it:');
    expect(run.stderr).toContain(`pid ${run.pids?.spawned} (group ${run.pids?.spawned})`);
    expect(leftOf(run.pids!)).toEqual([]);
  }, 90_000);

  it("passes a run's exit status through, and says nothing of its own when the run ends in time", async () => {
    const passed = await underDeadline(300, 'passes');
    expect(passed.stdout).toMatch(/1 passed/);
    expect(passed.code).toBe(0);
    expect(passed.stderr).not.toContain('deadline:');
    const failed = await underDeadline(300, 'fails');
    expect(failed.stdout).toMatch(/1 failed/);
    expect(failed.code).toBe(1);
    expect(failed.stderr).not.toContain('deadline:');
  }, 90_000);
});
