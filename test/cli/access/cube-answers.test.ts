import { describe, expect, it } from 'vitest';
import { parseMeta, rowConditions, sqlOfAnswer } from '../../../src/cli/access/cube-answers';
import recorded033 from '../../fixtures/access/cube-0.33.65.json';
import recorded from '../../fixtures/access/cube-1.7.43.json';

/** The row conditions of a recorded /sql answer. */
const conditionsOf = (name: keyof typeof recorded) => {
  const sql = sqlOfAnswer(recorded[name].body);
  if (sql === undefined) throw new Error(`${name} is no /sql answer`);
  return rowConditions(sql.text, sql.params);
};

describe("parseMeta: the cubes, views and members /meta shows (answers recorded from Cube 1.7.43's fixture)", () => {
  it("lists the service analyst's cubes and the view, with the members its access policies leave", () => {
    expect(parseMeta(recorded['meta-service'].body)).toEqual([
      { name: 'compilation', type: 'cube', measures: [], dimensions: ['compilation.compiled_for'], segments: [] },
      { name: 'database', type: 'cube', measures: [], dimensions: ['database.opened_for'], segments: [] },
      {
        name: 'embedded_orders',
        type: 'view',
        measures: ['embedded_orders.count'],
        dimensions: ['embedded_orders.tenant', 'embedded_orders.region'],
        segments: [],
      },
      {
        name: 'orders',
        type: 'cube',
        measures: ['orders.count'],
        dimensions: ['orders.tenant', 'orders.region'],
        segments: [],
      },
    ]);
  });

  it('shows a group no policy names no orders at all', () => {
    expect(parseMeta(recorded['meta-intern'].body)?.map((cube) => cube.name)).toEqual(['compilation', 'database']);
  });

  it('leaves out members marked hidden, and a cube with none shown', () => {
    const body = {
      cubes: [
        {
          name: 'a',
          measures: [{ name: 'a.count', isVisible: false }, { name: 'a.sum' }],
          dimensions: [{ name: 'a.x', public: false }],
        },
        { name: 'b', measures: [{ name: 'b.count', isVisible: false }], dimensions: [] },
        { name: 7, measures: [] },
      ],
    };
    expect(parseMeta(body)).toEqual([{ name: 'a', type: 'cube', measures: ['a.sum'], dimensions: [], segments: [] }]);
  });

  it('is undefined for a body that is not /meta', () => {
    expect(parseMeta({ error: 'x' })).toBeUndefined();
    expect(parseMeta([])).toBeUndefined();
    expect(parseMeta(null)).toBeUndefined();
  });
});

describe('rowConditions: the WHERE terms of the SQL /sql gives, with their parameters', () => {
  it("reads the analyst policy's row_level filter on the tenant", () => {
    expect(conditionsOf('sql-service-count')).toEqual({
      conditions: [{ sql: '"orders".tenant = ?', params: ['acme'] }],
      denied: false,
    });
  });

  it('reads the 1 = 0 of a denied member, and of a cube no policy grants the groups', () => {
    expect(conditionsOf('sql-service-total')).toEqual({ conditions: [{ sql: '1 = 0', params: [] }], denied: true });
    expect(conditionsOf('sql-intern-count').denied).toBe(true);
    expect(conditionsOf('sql-analyst-view').denied).toBe(true);
  });

  it("splits a view's conditions (its own policy's and its cube's) into terms, each with its parameter", () => {
    expect(conditionsOf('sql-service-view').conditions).toEqual([
      { sql: '"orders".tenant = ?', params: ['acme'] },
      { sql: '"orders".tenant = ?', params: ['acme'] },
    ]);
  });

  it("reads a subquery's WHERE too, numbered placeholders, and keeps an OR and quoted text whole", () => {
    const sql =
      'SELECT count(*) FROM (SELECT * FROM t WHERE deleted = 0 AND note <> \'a WHERE b AND c\') AS "t" ' +
      'WHERE ("t".tenant = $2) AND ("t".region = $1 OR "t".region IS NULL) GROUP BY 1 ORDER BY 1';
    expect(rowConditions(sql, ['emea', 'acme'])).toEqual({
      conditions: [
        { sql: 'deleted = 0', params: [] },
        { sql: "note <> 'a WHERE b AND c'", params: [] },
        { sql: '"t".tenant = $2', params: ['acme'] },
        { sql: '"t".region = $1 OR "t".region IS NULL', params: ['emea'] },
      ],
      denied: false,
    });
  });

  it('finds no condition where there is no WHERE', () => {
    expect(rowConditions('SELECT "c".x FROM c AS "c" GROUP BY 1 LIMIT 10000', [])).toEqual({
      conditions: [],
      denied: false,
    });
  });
});

describe('sqlOfAnswer', () => {
  it("takes the text and parameters of Cube's answer, the first of several", () => {
    expect(sqlOfAnswer({ sql: { sql: ['SELECT 1', [1]] } })).toEqual({ text: 'SELECT 1', params: [1] });
    expect(sqlOfAnswer({ sql: [{ sql: ['SELECT 2', []] }, { sql: ['SELECT 3', []] }] })).toEqual({
      text: 'SELECT 2',
      params: [],
    });
  });

  it('is undefined for anything else', () => {
    expect(sqlOfAnswer({ sql: 'SELECT 1' })).toBeUndefined();
    expect(sqlOfAnswer({ error: 'no' })).toBeUndefined();
    expect(sqlOfAnswer('x')).toBeUndefined();
  });
});

describe('Cube 0.33.65 answers (recorded from its authorization fixture, tenantFilter as queryRewrite)', () => {
  it("lists every member, and reads tenantFilter's condition from /sql", () => {
    expect(parseMeta(recorded033['meta-service'].body)?.map((cube) => [cube.name, cube.measures])).toEqual([
      ['orders', ['orders.count', 'orders.total_amount']],
      ['products', ['products.count']],
    ]);
    const sql = sqlOfAnswer(recorded033['sql-service-count'].body);
    expect(sql && rowConditions(sql.text, sql.params)).toEqual({
      conditions: [{ sql: '"orders".tenant = ?', params: ['acme'] }],
      denied: false,
    });
  });

  it('finds no SQL in the refusal of a cube without a tenant member', () => {
    expect(recorded033['sql-products'].status).toBe(403);
    expect(sqlOfAnswer(recorded033['sql-products'].body)).toBeUndefined();
  });
});
