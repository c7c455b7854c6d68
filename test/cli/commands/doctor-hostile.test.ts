// `doctor` against hostile cube.js files: ones that start processes (plain and detached), flood or hold the answer
// channel, and throw secrets. Each run leaves no process behind (by the child's process group, and by the pids the
// cube.js recorded), prints one clean line for cube-js and no secret.
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { randomSecret } from '../../support/claims';
import { runBin, runCli, type CliResult } from '../../support/cli';
import { cubeJsIn } from '../../support/cube';
import { linkToDevZero, makeFifo } from '../../support/secrets-dir';
import { signToken } from '../../support/tokens';

const SECRET = randomSecret(32);
const DB_PASSWORD = `pw-${randomSecret(12)}`;
const ENV = {
  CUBEJS_API_SECRET: SECRET,
  DATABASE_URL: `postgres://cube:${DB_PASSWORD}@db.internal:5432/cube`,
  PATH: process.env.PATH ?? '',
};
const projects: string[] = [];

afterEach(() => {
  for (const dir of projects.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** Records in `pids.txt` this process (the child doctor starts, its group's leader) and each pid passed. */
const RECORD = `
const { appendFileSync } = require('node:fs');
const { spawn } = require('node:child_process');
const record = (pid) => appendFileSync(__dirname + '/pids.txt', pid + '\\n');
record(process.pid);
const forever = ['-e', 'setInterval(() => {}, 1000)'];
`;
const EXPORTS = "module.exports = { checkAuth: require('cube-dual-auth').checkAuth };\n";

function project(source: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'hostile-cube-js-'));
  projects.push(dir);
  cubeJsIn(dir, source);
  return dir;
}

/** Whether a process is alive: it exists and is no zombie (a zombie has ended, whoever reaps it). */
function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

/** The live processes of process group `pgid`. */
function groupMembers(pgid: number): number[] {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .filter((name) => {
      try {
        const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
        return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2]) === pgid && alive(Number(name));
      } catch {
        return false;
      }
    })
    .map(Number);
}

/**
 * Every process of the group, and every one recorded, ends. SIGKILL takes effect when a process is next scheduled,
 * which on a loaded machine can be a moment after doctor exits: a survivor still fails after 2 s.
 */
async function gone(pgid: number, pids: readonly number[]): Promise<void> {
  await expect.poll(() => groupMembers(pgid), { timeout: 2_000, interval: 50 }).toEqual([]);
  await expect.poll(() => pids.filter(alive), { timeout: 2_000, interval: 50 }).toEqual([]);
}

async function doctor(dir: string): Promise<{ result: CliResult; line: string }> {
  const result = await runCli(['doctor'], { env: ENV, cwd: dir, secrets: [SECRET, DB_PASSWORD] });
  const pids = existsSync(join(dir, 'pids.txt'))
    ? readFileSync(join(dir, 'pids.txt'), 'utf8').trim().split('\n').map(Number)
    : [];
  expect(pids.length).toBeGreaterThan(0);
  const [leader] = pids as [number];
  await gone(leader, pids);
  const lines = result.stdout.split('\n').filter((line) => /^\s+\S+\s+cube-js\s/.test(line));
  expect(lines).toHaveLength(1);
  expect(result.stdout + result.stderr).not.toMatch(/\n\s+at |RangeError|internal fault/);
  return { result, line: lines[0] as string };
}

describe('doctor against a hostile cube.js', () => {
  it('kills the processes cube.js starts, plain and detached, once it has read the exports', async () => {
    const dir = project(
      `${RECORD}record(spawn(process.execPath, forever, { stdio: 'ignore' }).pid);\n` +
        `const detached = spawn(process.execPath, forever, { stdio: 'ignore', detached: true });\n` +
        `detached.unref();\nrecord(detached.pid);\n${EXPORTS}`,
    );
    const { line } = await doctor(dir);
    expect(line).toMatch(/OK\s+cube-js\s+.*exports checkAuth/);
  });

  it('is not held by a process that keeps the answer channel open: the answer counts once written', async () => {
    const dir = project(
      `${RECORD}const holder = spawn(process.execPath, forever, { stdio: ['ignore', 'ignore', 'ignore', 3], detached: true });\n` +
        `holder.unref();\nrecord(holder.pid);\n${EXPORTS}`,
    );
    const { result, line } = await doctor(dir);
    expect(line).toMatch(/OK\s+cube-js\s/);
    // Far under the 10 s load timeout a held channel cost before.
    expect(result.ms).toBeLessThan(8_000 + result.lateMs);
  });

  it('refuses a flood of the answer channel at its 1 MiB cap', async () => {
    const dir = project(
      `${RECORD}const chunk = Buffer.alloc(65536, 120);\nfor (;;) require('node:fs').writeSync(3, chunk);\n`,
    );
    const { line } = await doctor(dir);
    expect(line).toMatch(/FAIL\s+cube-js\s+.*its answer was refused: larger than 1048576 bytes \(the limit\)/);
  });

  it('masks the secrets a throwing cube.js quotes, a URL password too', async () => {
    const dir = project(
      `${RECORD}throw new Error('cannot reach ' + process.env.DATABASE_URL + ' as ' + process.env.CUBEJS_API_SECRET);\n`,
    );
    const { line } = await doctor(dir);
    expect(line).toMatch(/FAIL\s+cube-js\s+.*throws while it loads/);
    expect(line).toContain('postgres://cube:***@db.internal:5432/cube');
  });

  it('stops at --deadline a cube.js that never finishes loading, and kills what it started', async () => {
    const dir = project(
      `${RECORD}record(spawn(process.execPath, forever, { stdio: 'ignore' }).pid);\nAtomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0);\n`,
    );
    const result = await runCli(['doctor', '--deadline', '1500'], { env: ENV, cwd: dir, secrets: [SECRET] });
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/FAIL\s+cube-js\s+.*not checked: the deadline passed/);
    expect(result.ms).toBeLessThan(1_500 + 5_000 + result.lateMs);
    const pids = readFileSync(join(dir, 'pids.txt'), 'utf8').trim().split('\n').map(Number);
    await gone(pids[0] as number, pids);
  });

  it('meets --deadline 3000 with a FIFO and /dev/zero in the secrets directory, as verify does, naming each', async () => {
    const dir = project(EXPORTS);
    const secrets = mkdtempSync(join(tmpdir(), 'hostile-secrets-'));
    projects.push(secrets);
    makeFifo(join(secrets, 'api-secrets'));
    linkToDevZero(join(secrets, 'sql-key-secrets'));
    const env = { ...ENV, CUBE_DUAL_AUTH_SECRETS_DIR: secrets };
    const result = await runBin(['doctor', '--deadline', '3000'], { env, cwd: dir, secrets: [SECRET] });
    expect(result.code).toBe(1);
    const text = result.stdout.replace(/\s+/g, ' ');
    expect(text).toContain('api-secrets is unusable: is a FIFO (named pipe), not a regular file');
    expect(text).toContain('sql-key-secrets is unusable: is a character device, not a regular file');
    expect(result.ms).toBeLessThan(3_000 + 5_000 + result.lateMs);
    const verify = await runBin(['verify', signToken({ tenant: 'acme' }, { alg: 'HS256', key: SECRET })], {
      env,
      cwd: dir,
      secrets: [SECRET],
    });
    expect(verify.code).toBe(1);
    expect(`${verify.stdout}${verify.stderr}`).toContain(
      `${secrets}/api-secrets is a FIFO (named pipe), not a regular file: a secrets file is a regular file, or a symlink to one`,
    );
  });
});
