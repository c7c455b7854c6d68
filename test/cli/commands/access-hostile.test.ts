// `access` against a hostile Cube (test/support/hostile-cube.ts): each run, as the bin runs, ends within a bound (its
// lateness in the same run added), stays within a memory bound (the bin's own maxRSS), exits cleanly (0 or 1, one
// line per fault, no stack trace) and prints no part of the token it sent.
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomSecret } from '../../support/claims';
import { runBin, type CliResult } from '../../support/cli';
import { startHostileCube, type ShapeName } from '../../support/hostile-cube';

const MAX_RSS = fileURLToPath(new URL('../../support/max-rss.cjs', import.meta.url));
/**
 * Node alone takes about 50 MiB; reading the old way took gigabytes. Node 24 lets its heap grow further before it
 * collects: 8,000 cubes peaked at 132 MiB on Node 20 and 302 MiB on Node 24.
 */
const MAX_RSS_KIB = 400 * 1024;
/** A shape read in linear time ends in well under a second on an idle machine; the bound leaves room for start-up. */
const BOUND_MS = 6_000;

let cube: Awaited<ReturnType<typeof startHostileCube>>;
const secret = randomSecret();

beforeAll(async () => {
  cube = await startHostileCube();
});
afterAll(() => cube.close());

interface Measured extends CliResult {
  readonly maxRssKib: number;
}

async function access(shape: ShapeName, ...options: string[]): Promise<Measured> {
  const before = cube.requests.length;
  const result = await runBin(['access', cube.base(shape), '--service', '--claims', '{"tenant":"acme"}', ...options], {
    env: { CUBEJS_API_SECRET: secret, NODE_OPTIONS: `--require=${MAX_RSS}` },
    secrets: [secret],
    killAfterMs: 60_000,
  });
  const rss = /\nmax-rss-kib (\d+)\n$/.exec(result.stderr);
  expect(rss, result.stderr).not.toBeNull();
  const stderr = result.stderr.slice(0, rss?.index);
  // No part of any token sent: its header, payload or signature.
  const tokens = cube.requests.slice(before).map((request) => String(request.headers.authorization));
  expect(tokens.length).toBeGreaterThan(0);
  for (const part of new Set(tokens.flatMap((token) => token.split('.')))) {
    expect(result.stdout).not.toContain(part);
    expect(stderr).not.toContain(part);
  }
  expect(result.code === 0 || result.code === 1, stderr).toBe(true);
  expect(stderr).not.toMatch(/\n\s+at |RangeError|Maximum call stack|internal fault/);
  expect(Number(rss?.[1]), `peak RSS of access, KiB`).toBeLessThan(MAX_RSS_KIB);
  return { ...result, stderr, maxRssKib: Number(rss?.[1]) };
}

const within = (result: CliResult, ms: number): void => expect(result.ms).toBeLessThan(ms + result.lateMs);

describe('access against a hostile Cube', () => {
  it('refuses 200 KB of nested parentheses at the depth limit, at once', async () => {
    const result = await access('nested-parens');
    within(result, BOUND_MS);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain('the body is refused: its SQL nests parentheses deeper than 64 (the limit)');
  });

  it('reads a WHERE repeated 20,000 times in linear time', async () => {
    const result = await access('repeated-where');
    within(result, BOUND_MS);
    expect(result.stdout).toMatch(/refused: its SQL has more than 1000 row conditions \(the limit\)/);
  });

  it('refuses parameters nested 100,000 deep, and keeps the rest of the report', async () => {
    const result = await access('nested-params', '--json');
    within(result, BOUND_MS);
    const json = JSON.parse(result.stdout) as { callers: { cubes: unknown[]; rows: { message: string }[] }[] };
    expect(json.callers[0]?.cubes).toHaveLength(1);
    expect(json.callers[0]?.rows[0]?.message).toBe(
      '200, but the body is refused: it nests deeper than 64 levels (the limit)',
    );
  });

  it('stops at --deadline with 1,000 cubes answered slowly: what is left is not checked, exit 1', async () => {
    const result = await access('slow-many', '--deadline', '1500', '--json');
    within(result, 1_500 + BOUND_MS);
    expect(result.code).toBe(1);
    const json = JSON.parse(result.stdout) as { deadlinePassed: boolean; callers: { rows: { status: string }[] }[] };
    expect(json.deadlinePassed).toBe(true);
    const statuses = json.callers[0]?.rows.map((rows) => rows.status) ?? [];
    expect(statuses).toHaveLength(1_000);
    expect(statuses.filter((status) => status === 'not-checked').length).toBeGreaterThan(900);
    const text = await access('slow-many', '--deadline', '800');
    expect(text.stdout).toContain('not checked: the deadline passed');
    expect(text.stdout).toMatch(/Not finished: the deadline \(800 ms\) passed/);
  });

  it('prints no part of the token Cube echoes, in text and in --json', async () => {
    for (const json of [[], ['--json']]) {
      const result = await access('echo', ...json);
      within(result, BOUND_MS);
      expect(result.stdout).toContain('[token]');
    }
  });

  it('refuses /meta nested 50,000 deep', async () => {
    const result = await access('deep-meta');
    within(result, BOUND_MS);
    expect(result.code).toBe(1);
  });

  it('refuses 30,000 wrapped AND terms past the limit, and quote bait in linear time', async () => {
    within(await access('many-terms'), BOUND_MS);
    const quotes = await access('quote-bait');
    within(quotes, BOUND_MS);
  });

  it('lists 8,000 cubes within the deadline, and compares two callers over them without quadratic work', async () => {
    const result = await access('huge-count', '--deadline', '3000', '--compare-service', '--json');
    within(result, 3_000 + BOUND_MS);
    const json = JSON.parse(result.stdout) as { callers: { cubes: unknown[] }[] };
    expect(json.callers[0]?.cubes).toHaveLength(8_000);
  });

  it('tells malformed JSON and a silent Cube apart, cleanly', async () => {
    const malformed = await access('malformed');
    within(malformed, BOUND_MS);
    expect(malformed.stdout).toContain("200, but the body is not Cube's /sql answer");
    const silent = await access('silent', '--timeout', '300', '--deadline', '1000');
    within(silent, 1_000 + BOUND_MS);
    expect(silent.code).toBe(1);
  });
});
