import { describe, expect, it } from 'vitest';
import { parseMeta, sqlOfAnswer } from '../../../src/cli/access/cube-answers';
import { alternativesOf, rowConditions, SQL_LIMITS, SqlShapeError } from '../../../src/cli/access/sql-conditions';
import { randomText, seeded, type Random } from '../../support/random';

/**
 * The reader as it was before it was bounded (recursive, quadratic on a repeated WHERE): the oracle for SQL shaped
 * as Cube writes it, one WHERE per SELECT.
 */
function reference(sql: string, params: readonly unknown[]): { sql: string; params: unknown[] }[] {
  type Token = { start: number; end: number; depth: number; kind: string; text: string };
  const tokens: Token[] = [];
  let depth = 0;
  let i = 0;
  while (i < sql.length) {
    const char = sql[i] as string;
    const start = i;
    if (char === "'" || char === '"' || char === '`') {
      i++;
      while (i < sql.length && !(sql[i] === char && sql[i + 1] !== char)) i += sql[i] === char ? 2 : 1;
      i++;
      tokens.push({ start, end: i, depth, kind: 'other', text: sql.slice(start, i) });
    } else if (char === '(') tokens.push({ start, end: ++i, depth: depth++, kind: 'open', text: char });
    else if (char === ')') {
      depth = Math.max(0, depth - 1);
      tokens.push({ start, end: ++i, depth, kind: 'close', text: char });
    } else if (char === '?' || (char === '$' && /\d/.test(sql[i + 1] ?? ''))) {
      i++;
      while (char === '$' && /\d/.test(sql[i] ?? '')) i++;
      tokens.push({ start, end: i, depth, kind: 'placeholder', text: sql.slice(start, i) });
    } else if (/\w/.test(char)) {
      while (i < sql.length && /\w/.test(sql[i] as string)) i++;
      tokens.push({ start, end: i, depth, kind: 'word', text: sql.slice(start, i) });
    } else {
      i++;
      if (!/\s/.test(char)) tokens.push({ start, end: i, depth, kind: 'other', text: char });
    }
  }
  const after = new Set(['GROUP', 'ORDER', 'LIMIT', 'HAVING', 'UNION', 'WINDOW', 'OFFSET']);
  const wrapped = (part: Token[], d: number): boolean =>
    part[0]?.kind === 'open' &&
    part[part.length - 1]?.kind === 'close' &&
    part[0].depth === d &&
    part.findIndex((t) => t.kind === 'close' && t.depth === d) === part.length - 1;
  const terms = (list: Token[], d: number): Token[][] => {
    const parts: Token[][] = [[]];
    for (const t of list) {
      if (t.depth === d && t.kind === 'word' && t.text.toUpperCase() === 'AND') parts.push([]);
      else (parts[parts.length - 1] as Token[]).push(t);
    }
    return parts.filter((p) => p.length > 0).flatMap((p) => (wrapped(p, d) ? terms(p.slice(1, -1), d + 1) : [p]));
  };
  let ordinal = 0;
  const paramOf = new Map<Token, unknown>();
  for (const t of tokens)
    if (t.kind === 'placeholder')
      paramOf.set(t, t.text === '?' ? params[ordinal++] : params[Number(t.text.slice(1)) - 1]);
  const out: { sql: string; params: unknown[] }[] = [];
  tokens.forEach((token, index) => {
    if (token.kind !== 'word' || token.text.toUpperCase() !== 'WHERE') return;
    const clause: Token[] = [];
    for (const next of tokens.slice(index + 1)) {
      if (next.depth < token.depth) break;
      if (next.depth === token.depth && next.kind === 'word' && after.has(next.text.toUpperCase())) break;
      clause.push(next);
    }
    for (const term of terms(clause, token.depth))
      out.push({
        sql: sql.slice((term[0] as Token).start, (term[term.length - 1] as Token).end),
        params: term.filter((t) => paramOf.has(t)).map((t) => paramOf.get(t)),
      });
  });
  return out;
}

/** SQL as Cube writes it, drawn at random: a SELECT with at most one WHERE, conditions nesting subqueries. */
function randomSelect(random: Random, depth: number): string {
  const atoms = ['"c".tenant = ?', 'x = $1', '1 = 0', "'it''s' = y", '"a b" IN (?, ?)', 'z > 0'];
  const condition = (level: number): string => {
    const roll = random.int(level > 3 ? 1 : 6);
    if (roll === 0 || roll === 5) return random.pick(atoms);
    if (roll === 1) return `${condition(level + 1)} AND ${condition(level + 1)}`;
    if (roll === 2) return `${condition(level + 1)} OR ${condition(level + 1)}`;
    if (roll === 3) return `(${condition(level + 1)})`;
    return depth < 2 ? `x IN (${randomSelect(random, depth + 1)})` : random.pick(atoms);
  };
  const where = random.int(4) === 0 ? '' : ` WHERE ${condition(0)}`;
  const tail = random.pick(['', ' GROUP BY 1', ' ORDER BY 1 LIMIT 10', ' LIMIT 10000']);
  return `SELECT "c".x FROM ${depth < 2 && random.int(3) === 0 ? `(${randomSelect(random, depth + 1)}) AS "c"` : 't'}${where}${tail}`;
}

describe('rowConditions: bounded, linear, and the same as before on the SQL Cube writes', () => {
  it('agrees with the former reader on random SQL of a fixed seed', () => {
    const random = seeded(4243);
    for (let run = 0; run < 1_500; run++) {
      const sql = randomSelect(random, 0);
      const params = ['acme', 'emea', 7];
      expect(rowConditions(sql, params).conditions, sql).toEqual(reference(sql, params));
    }
  });

  it('never fails on random text but for a refused shape; every condition is a piece of the text', () => {
    const random = seeded(43);
    const pieces = [
      'WHERE',
      ' ',
      'AND',
      'OR',
      '(',
      ')',
      '?',
      '$2',
      "'",
      '"',
      'x',
      '=',
      'GROUP',
      'SELECT',
      '1 = 0',
      '``',
    ];
    for (let run = 0; run < 2_000; run++) {
      const sql = randomText(random, pieces, random.int(60));
      let read: ReturnType<typeof rowConditions> | undefined;
      try {
        read = rowConditions(sql, ['a', 'b']);
      } catch (error) {
        expect(error).toBeInstanceOf(SqlShapeError);
        continue;
      }
      for (const condition of read.conditions) {
        expect(sql).toContain(condition.sql);
        expect(condition.sql.length).toBeGreaterThan(0);
        expect(condition.params.length).toBeLessThanOrEqual((sql.match(/\?|\$2/g) ?? []).length);
      }
      expect(read.denied).toBe(read.conditions.some((c) => /^1\s*=\s*0$/.test(c.sql)));
    }
  });

  it('refuses each shape past a limit, naming the limit', () => {
    const deep = `SELECT 1 WHERE ${'('.repeat(SQL_LIMITS.maxDepth + 1)}x${')'.repeat(SQL_LIMITS.maxDepth + 1)}`;
    expect(() => rowConditions(deep, [])).toThrow('its SQL nests parentheses deeper than 64 (the limit)');
    expect(() => rowConditions(`SELECT 1 ${'WHERE x = ? '.repeat(2_000)}`, [])).toThrow(
      'its SQL has more than 1000 row conditions (the limit)',
    );
    expect(() => rowConditions('x '.repeat(SQL_LIMITS.maxTokens + 1), [])).toThrow(
      `its SQL has more than ${SQL_LIMITS.maxTokens} tokens (the limit)`,
    );
    // Within the limits, nesting is unwrapped without recursion.
    const wrapped = `SELECT 1 WHERE ${'('.repeat(60)}a = ? AND b = ?${')'.repeat(60)}`;
    expect(rowConditions(wrapped, [1, 2]).conditions).toEqual([
      { sql: 'a = ?', params: [1] },
      { sql: 'b = ?', params: [2] },
    ]);
  });

  it('ends a clause at a repeated WHERE of the same depth, each term with its own parameter', () => {
    expect(rowConditions('SELECT 1 WHERE a = ? WHERE b = ?', ['x', 'y']).conditions).toEqual([
      { sql: 'a = ?', params: ['x'] },
      { sql: 'b = ?', params: ['y'] },
    ]);
  });
});

describe('alternativesOf: the OR alternatives of a condition', () => {
  it('splits at the top-level OR, takes off wrapping parentheses, and gives each its parameters', () => {
    expect(alternativesOf({ sql: '(tenant = ?) OR (tenant = ?)', params: ['acme', 'acme'] })).toEqual([
      { sql: 'tenant = ?', params: ['acme'] },
      { sql: 'tenant = ?', params: ['acme'] },
    ]);
    expect(alternativesOf({ sql: '((a = ? OR (b = ?)))', params: [1, 2] })).toEqual([
      { sql: 'a = ?', params: [1] },
      { sql: 'b = ?', params: [2] },
    ]);
    expect(alternativesOf({ sql: 'x IN (?, ?) OR y = ?', params: [1, 2, 3] })).toEqual([
      { sql: 'x IN (?, ?)', params: [1, 2] },
      { sql: 'y = ?', params: [3] },
    ]);
  });
});

describe('parseMeta and sqlOfAnswer on random bodies of a fixed seed', () => {
  it('never throw, and give only names that are strings and SQL that is text', () => {
    const random = seeded(434343);
    const values = (depth: number): unknown => {
      const roll = random.int(depth > 3 ? 4 : 8);
      if (roll === 0) return null;
      if (roll === 1) return random.pick(['orders', 'orders.count', '__proto__', 'SELECT 1 WHERE x = ?', '']);
      if (roll === 2) return random.int(3) - 1;
      if (roll === 3) return random.int(2) === 0;
      if (roll < 6) return Array.from({ length: random.int(4) }, () => values(depth + 1));
      const keys = ['cubes', 'name', 'type', 'measures', 'dimensions', 'segments', 'isVisible', 'public', 'sql'];
      return Object.fromEntries(Array.from({ length: random.int(5) }, () => [random.pick(keys), values(depth + 1)]));
    };
    for (let run = 0; run < 3_000; run++) {
      const body = values(0);
      const cubes = parseMeta(body);
      for (const cube of cubes ?? []) {
        expect(typeof cube.name).toBe('string');
        for (const member of [...cube.measures, ...cube.dimensions, ...cube.segments])
          expect(typeof member).toBe('string');
      }
      const sql = sqlOfAnswer(body);
      if (sql !== undefined) expect(typeof sql.text).toBe('string');
    }
  });
});
