// What a mount can hold, or how a file gets written, against a running hook in a process of its own: a FIFO, a symlink
// to /dev/zero, a 1 GiB sparse file, a file truncated then rewritten in place, `rm -r` and `mkdir` of the directory,
// `\r`-only lines and a tab inside a secret. Throughout, the hook answers a health request within 1 s, its memory stays
// under 100 MB, and the last good secrets stay in force.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { performance } from 'node:perf_hooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomSecret, timed } from '../support/claims';
import { scratchDirs } from '../support/scratch';
import { linkToDevZero, makeFifo, makeSparseFile } from '../support/secrets-dir';
import { signToken } from '../support/tokens';

const root = join(__dirname, '..', '..');
const scratch = scratchDirs('cube-dual-auth-hostile-');
const [first, second, third] = [randomSecret(), randomSecret(), randomSecret()];
const HEALTH_MS = 1_000;
const MAX_RSS = 100 * 1024 ** 2;
/** A step waits this long: past the settle interval, the 200 ms poll and the directory check, several times over. */
const STEP_MS = 1_500;

let child: ChildProcess;
let base: string;
let dir: string;

const token = (secret: string) =>
  signToken(timed({ tenant: 'acme' }, { expiresIn: 3600 }), { alg: 'HS256', key: secret });
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function accepted(secret: string): Promise<boolean> {
  const response = await fetch(`${base}/check`, {
    headers: { authorization: token(secret) },
    signal: AbortSignal.timeout(HEALTH_MS),
  });
  return (await response.text()) === 'accepted';
}

/** Health requests every 50 ms until stopped: the slowest answer (a failure counts as infinite) and the peak memory. */
function probeHealth() {
  let running = true;
  let slowest = 0;
  let maxRss = 0;
  const done = (async () => {
    while (running) {
      const started = performance.now();
      try {
        const health = (await (await fetch(`${base}/health`, { signal: AbortSignal.timeout(HEALTH_MS) })).json()) as {
          maxRss: number;
        };
        maxRss = Math.max(maxRss, health.maxRss);
        slowest = Math.max(slowest, performance.now() - started);
      } catch {
        slowest = Number.POSITIVE_INFINITY;
      }
      await pause(50);
    }
  })();
  return {
    async stop() {
      running = false;
      await done;
      return { slowest, maxRss };
    },
  };
}

/** Waits (bounded) until the secret's tokens are accepted or refused as told. */
async function until(secret: string, want: boolean): Promise<boolean> {
  const started = performance.now();
  while (performance.now() - started < 10_000) {
    if ((await accepted(secret)) === want) return true;
    await pause(20);
  }
  return false;
}

beforeAll(async () => {
  dir = scratch();
  writeFileSync(join(dir, 'api-secrets'), `${first}\n`);
  child = spawn(process.execPath, [join(__dirname, '../support/secrets-hook-child.cjs')], {
    env: { PATH: process.env.PATH, PACKAGE_DIR: root, SECRETS_DIR: dir },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const [line] = await Promise.race([
    (async () => {
      for await (const text of createInterface({ input: child.stdout! })) return [text];
      return [];
    })(),
    pause(15_000).then(() => []),
  ]);
  base = `http://127.0.0.1:${(JSON.parse(line ?? '{}') as { port: number }).port}`;
});

afterAll(async () => {
  if (child.exitCode === null) {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await Promise.race([exited, pause(5_000).then(() => child.kill('SIGKILL'))]);
  }
});

describe('a running hook over a hostile secrets directory', () => {
  it('keeps answering within 1 s under 100 MB, the last good secrets in force', { timeout: 60_000 }, async () => {
    expect(await accepted(first)).toBe(true);
    const health = probeHealth();
    const api = join(dir, 'api-secrets');
    const stillFirst: boolean[] = [];
    const swap = (make: (path: string) => void) => {
      rmSync(api, { force: true });
      make(api);
    };
    for (const make of [makeFifo, linkToDevZero, makeSparseFile]) {
      swap(make);
      await pause(STEP_MS);
      stillFirst.push(await accepted(first));
    }
    // Truncated, then rewritten in place 300 ms later: the old secret is accepted all along, the new one after.
    swap((path) => writeFileSync(path, `${first}\n`));
    await pause(STEP_MS);
    writeFileSync(api, '');
    await pause(300);
    stillFirst.push(await accepted(first));
    writeFileSync(api, `${second}\n${first}\n`);
    expect(await until(second, true)).toBe(true);
    stillFirst.push(await accepted(first));
    // The directory removed and made again: watched anew, its next change in force.
    rmSync(dir, { recursive: true });
    mkdirSync(dir);
    writeFileSync(api, `${second}\n`);
    expect(await until(first, false)).toBe(true);
    // Lines that end at a lone \r; then a tab inside a secret, which is refused, the last good kept.
    writeFileSync(api, `${second}\r${third}\r`);
    expect(await until(third, true)).toBe(true);
    writeFileSync(api, `${first}\t\n${second}\n`);
    await pause(STEP_MS);
    expect([await accepted(first), await accepted(second), await accepted(third)]).toEqual([false, true, true]);
    const { slowest, maxRss } = await health.stop();
    expect(stillFirst).toEqual([true, true, true, true, true]);
    expect(slowest).toBeLessThan(HEALTH_MS);
    expect(maxRss).toBeLessThan(MAX_RSS);
  });
});
