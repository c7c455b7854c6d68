// The whole-command deadline, on timers the test moves: the verdicts here depend on when the deadline passes, so the
// test decides it (it passes while Cube is being asked), never the machine's speed.
import { Readable, Writable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { Deadline, NOT_CHECKED, type Timers } from '../../src/cli/deadline';
import { run } from '../../src/cli/run';
import { randomSecret } from '../support/claims';
import { answer, startDeployment, type Deployment } from '../support/deployment';

/** Timers that fire only when told, on a clock that moves only then. */
function manualTimers(): Timers & { fire(): void; readonly pending: number } {
  const callbacks = new Map<number, () => void>();
  let time = 0;
  let next = 0;
  return {
    now: () => time,
    setTimeout(callback) {
      callbacks.set(++next, callback);
      return next;
    },
    clearTimeout(handle) {
      callbacks.delete(handle as number);
    },
    fire() {
      time = Number.MAX_SAFE_INTEGER;
      for (const callback of [...callbacks.values()]) callback();
      callbacks.clear();
    },
    get pending() {
      return callbacks.size;
    },
  };
}

async function cli(args: string[], env: NodeJS.ProcessEnv, timers: Timers): Promise<{ code: number; out: string }> {
  let out = '';
  const stdout = new Writable({
    write(chunk: Buffer, _encoding, done) {
      out += chunk.toString('utf8');
      done();
    },
  });
  const stderr = new Writable({ write: (_chunk, _encoding, done) => done() });
  const code = await run(args, { stdout, stderr, stdin: Readable.from([]), env, cwd: process.cwd(), timers });
  return { code, out };
}

let server: Deployment | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe('Deadline', () => {
  it('cuts a request timeout to what is left, aborts its signal when it passes, and clears its timer', () => {
    const timers = manualTimers();
    const deadline = new Deadline(1_000, timers);
    expect(deadline.within(5_000)).toBe(1_000);
    expect(deadline.within(200)).toBe(200);
    expect(deadline.passed).toBe(false);
    timers.fire();
    expect(deadline.signal.aborted).toBe(true);
    expect(deadline.passed).toBe(true);
    expect(deadline.within(5_000)).toBe(1);
    const other = new Deadline(1_000, timers);
    other.dispose();
    expect(timers.pending).toBe(0);
  });
});

describe('--deadline', () => {
  it('probe: the check under way when it passes, and those after it, are not checked; exit 1', async () => {
    const timers = manualTimers();
    // The first request passes the deadline and is never answered.
    server = await startDeployment(() => timers.fire());
    const { code, out } = await cli(['probe', server.url, '--json'], { CUBEJS_API_SECRET: randomSecret() }, timers);
    expect(code).toBe(1);
    const json = JSON.parse(out) as { ok: boolean; checks: { name: string; verdict: string; reason: string }[] };
    expect(json.ok).toBe(false);
    expect(json.checks.map(({ name, verdict, reason }) => [name, verdict, reason])).toEqual([
      ['no-token', 'FAIL', expect.stringContaining(NOT_CHECKED)],
      ['garbage-token', 'FAIL', NOT_CHECKED],
      ['service-token', 'FAIL', NOT_CHECKED],
      ['service-token-without-origin', 'FAIL', NOT_CHECKED],
      ['idp-token', 'SKIP', expect.any(String)],
      ['idp-token-with-origin', 'SKIP', expect.any(String)],
    ]);
    expect(server.requests).toHaveLength(1);
  });

  it('access: prints what /meta showed, marks every cube not asked in time, exit 1', async () => {
    const timers = manualTimers();
    const meta = { cubes: ['a', 'b', 'c'].map((name) => ({ name, measures: [{ name: `${name}.count` }] })) };
    server = await startDeployment((request, response) => {
      if (request.url?.includes('/meta')) return answer(response, 200, JSON.stringify(meta));
      timers.fire();
    });
    const env = { CUBEJS_API_SECRET: randomSecret() };
    const { code, out } = await cli(['access', server.url, '--service', '--json'], env, timers);
    expect(code).toBe(1);
    const json = JSON.parse(out) as {
      ok: boolean;
      deadlinePassed: boolean;
      callers: { cubes: { name: string }[]; rows: { cube: string; status: string; message: string }[] }[];
    };
    expect(json.ok).toBe(false);
    expect(json.deadlinePassed).toBe(true);
    expect(json.callers[0]?.cubes.map((cube) => cube.name)).toEqual(['a', 'b', 'c']);
    expect(json.callers[0]?.rows.map(({ cube, status, message }) => [cube, status, message])).toEqual([
      ['a', 'not-checked', NOT_CHECKED],
      ['b', 'not-checked', NOT_CHECKED],
      ['c', 'not-checked', NOT_CHECKED],
    ]);
    // One /meta, and one /sql: the one under way when the deadline passed.
    expect(server.requests).toHaveLength(2);
  });
});
