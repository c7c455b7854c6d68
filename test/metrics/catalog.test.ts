// The metrics table of docs/metrics.md is the catalog: every metric, its type and its labels, and no other.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { METRICS } from '../../src/metrics/catalog';

const page = readFileSync(join(__dirname, '..', '..', 'docs', 'metrics.md'), 'utf8');
const section = page.slice(
  page.indexOf('\n## The metrics\n'),
  page.indexOf('\n## ', page.indexOf('\n## The metrics\n') + 1),
);

describe('the metrics catalog', () => {
  it("is the table of docs/metrics.md: each metric's name, type and labels", () => {
    const rows = [...section.matchAll(/^\| `(cube_dual_auth_\w+)` \| (\w+) \| ([^|]+) \|/gm)].map((m) => ({
      name: m[1],
      kind: m[2],
      labels: [...(m[3] as string).matchAll(/`(\w+)`/g)].map((label) => label[1]),
    }));
    expect(rows).toEqual(Object.values(METRICS).map(({ name, kind, labels }) => ({ name, kind, labels })));
  });

  it('names every metric under cube_dual_auth_, counters ending in _total and durations in seconds', () => {
    for (const { name, kind } of Object.values(METRICS)) {
      expect(name).toMatch(/^cube_dual_auth_[a-z_]+$/);
      expect(name.endsWith('_total'), name).toBe(kind === 'counter');
      if (kind === 'histogram') expect(name).toMatch(/_seconds$/);
    }
  });

  it('labels nothing by a kid, a subject or anything else a token chooses', () => {
    const labels = new Set(Object.values(METRICS).flatMap(({ labels }) => labels));
    expect([...labels].sort()).toEqual([
      'code',
      'file',
      'fingerprint',
      'issuer',
      'kind',
      'method',
      'outcome',
      'path',
      'protocol',
      'reason',
      'result',
      'source',
    ]);
  });
});
