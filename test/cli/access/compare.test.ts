import { describe, expect, it } from 'vitest';
import { compareSides, rowsSummary } from '../../../src/cli/access/compare';
import type { VisibleCube } from '../../../src/cli/access/cube-answers';

const cube = (
  name: string,
  measures: string[],
  dimensions: string[] = [],
  type: 'cube' | 'view' = 'cube',
): VisibleCube => ({
  name,
  type,
  measures,
  dimensions,
  segments: [],
});
const TENANT_ACME = '"orders".tenant = ? ["acme"]';

describe('compareSides', () => {
  it('finds nothing when both see the same cubes, members and rows', () => {
    const side = {
      cubes: [cube('orders', ['orders.count'], ['orders.tenant'])],
      rows: [{ cube: 'orders', summary: TENANT_ACME }],
    };
    expect(compareSides({ first: side, second: { ...side } })).toEqual([]);
  });

  it('names cubes, views and members only one sees, and rows kept by other conditions', () => {
    expect(
      compareSides({
        first: {
          cubes: [cube('orders', ['orders.count']), cube('embedded_orders', ['embedded_orders.count'], [], 'view')],
          rows: [
            { cube: 'orders', summary: TENANT_ACME },
            { cube: 'embedded_orders', summary: TENANT_ACME },
          ],
        },
        second: {
          cubes: [cube('orders', ['orders.count', 'orders.total_amount'])],
          rows: [
            { cube: 'orders', summary: '"orders".tenant = ? ["globex"]' },
            { cube: 'embedded_orders', summary: '1 = 0' },
          ],
        },
      }),
    ).toEqual([
      { kind: 'member', cube: 'orders', member: 'orders.total_amount', only: 'second' },
      { kind: 'cube', cube: 'embedded_orders', type: 'view', only: 'first' },
      { kind: 'rows', cube: 'orders', first: TENANT_ACME, second: '"orders".tenant = ? ["globex"]' },
      { kind: 'rows', cube: 'embedded_orders', first: TENANT_ACME, second: '1 = 0' },
    ]);
  });

  it('counts conditions that differ only by a repeated term as the same, and keeps other differences', () => {
    const side = (conditions: { sql: string; params: unknown[] }[]) => ({
      cubes: [],
      rows: [{ cube: 'orders', summary: conditions.map((c) => c.sql).join(' AND '), conditions }],
    });
    const once = side([{ sql: 'tenant = ?', params: ['acme'] }]);
    const same = [
      side([{ sql: '(tenant = ?) OR (tenant = ?)', params: ['acme', 'acme'] }]),
      side([{ sql: '((tenant = ?)) OR tenant = ? OR (tenant = ?)', params: ['acme', 'acme', 'acme'] }]),
      side([
        { sql: 'tenant = ?', params: ['acme'] },
        { sql: 'tenant = ?', params: ['acme'] },
      ]),
    ];
    for (const repeated of same) {
      expect(compareSides({ first: once, second: repeated })).toEqual([]);
      expect(compareSides({ first: repeated, second: once })).toEqual([]);
    }
    const other = [
      side([{ sql: '(tenant = ?) OR (tenant = ?)', params: ['acme', 'globex'] }]),
      side([{ sql: 'tenant = ? OR region = ?', params: ['acme', 'acme'] }]),
      side([{ sql: 'tenant = ?', params: ['globex'] }]),
    ];
    for (const different of other) expect(compareSides({ first: once, second: different })).toHaveLength(1);
  });

  it("counts a cube's rows asked of one caller only as a difference", () => {
    expect(
      compareSides({
        first: { cubes: [], rows: [{ cube: 'orders', summary: '1 = 0' }] },
        second: { cubes: [], rows: [] },
      }),
    ).toEqual([{ kind: 'rows', cube: 'orders', first: '1 = 0', second: 'not asked' }]);
  });
});

describe('rowsSummary', () => {
  it('tells conditions with their parameters, none, a refusal, a failure, and a cube not asked about', () => {
    const rows = (outcome: Parameters<typeof rowsSummary>[0]['outcome']) =>
      rowsSummary({ cube: 'orders', member: 'orders.count', outcome });
    expect(
      rows({
        kind: 'answered',
        denied: false,
        conditions: [
          { sql: 'a = ?', params: ['x'] },
          { sql: 'b = 1', params: [] },
        ],
      }),
    ).toBe('a = ? ["x"] AND b = 1');
    expect(rows({ kind: 'answered', denied: false, conditions: [] })).toBe('every row (no condition)');
    expect(rows({ kind: 'refused', status: 403, message: 'no tenant member' })).toBe('refused (403): no tenant member');
    expect(rows({ kind: 'failed', status: 500, message: '500: boom' })).toBe('failed: 500: boom');
    expect(rows(null)).toBe('not asked: no member of it is shown');
  });
});
