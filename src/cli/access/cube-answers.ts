/**
 * What `access` reads from Cube's answers: the cubes and views `/meta` shows a caller, and the row conditions in the
 * SQL `/sql` gives for a query. Every value comes from outside and is kept as data; printing escapes it.
 */
import { isObject } from '../../http/json';

/** A cube or a view as `/meta` shows it to one caller. */
export interface VisibleCube {
  readonly name: string;
  readonly type: 'cube' | 'view';
  readonly measures: readonly string[];
  readonly dimensions: readonly string[];
  readonly segments: readonly string[];
}

/** One condition of a WHERE clause that Cube's SQL applies to rows, with the parameters its placeholders take. */
export interface RowCondition {
  readonly sql: string;
  readonly params: readonly unknown[];
}

/** The SQL Cube would run for a query: its row conditions, and whether one of them is a denial (`1 = 0`). */
export interface QuerySql {
  readonly conditions: readonly RowCondition[];
  readonly denied: boolean;
}

/** Names of the members a `/meta` list shows: Cube 1.x marks what access policies hide `isVisible: false`. */
function shownNames(list: unknown): string[] {
  if (!Array.isArray(list)) return [];
  return list
    .filter((member): member is Record<string, unknown> => isObject(member) && typeof member['name'] === 'string')
    .filter((member) => member['isVisible'] !== false && member['public'] !== false)
    .map((member) => member['name'] as string);
}

/**
 * The cubes and views of a `/meta` answer, with the members each shows; undefined when the body is not `/meta`'s
 * answer (no list of cubes). A cube without a shown member is left out, as Cube's own clients leave it out.
 */
export function parseMeta(body: unknown): VisibleCube[] | undefined {
  if (!isObject(body) || !Array.isArray(body['cubes'])) return undefined;
  return body['cubes']
    .filter((cube): cube is Record<string, unknown> => isObject(cube) && typeof cube['name'] === 'string')
    .map((cube) => ({
      name: cube['name'] as string,
      type: cube['type'] === 'view' ? ('view' as const) : ('cube' as const),
      measures: shownNames(cube['measures']),
      dimensions: shownNames(cube['dimensions']),
      segments: shownNames(cube['segments']),
    }))
    .filter((cube) => cube.measures.length + cube.dimensions.length + cube.segments.length > 0);
}

/**
 * The text and parameters of a `/sql` answer: `{"sql": {"sql": [text, params]}}` (a list of such for several
 * queries: the first); undefined when the body is not that.
 */
export function sqlOfAnswer(body: unknown): { readonly text: string; readonly params: readonly unknown[] } | undefined {
  if (!isObject(body)) return undefined;
  const outer = Array.isArray(body['sql']) ? (body['sql'] as unknown[])[0] : body['sql'];
  const inner = isObject(outer) ? outer['sql'] : undefined;
  if (!Array.isArray(inner) || typeof inner[0] !== 'string') return undefined;
  return { text: inner[0], params: Array.isArray(inner[1]) ? (inner[1] as unknown[]) : [] };
}

/** A piece of SQL at one nesting depth, as the scanner finds it. */
interface Token {
  readonly start: number;
  readonly end: number;
  readonly depth: number;
  readonly kind: 'word' | 'placeholder' | 'open' | 'close' | 'other';
  readonly text: string;
}

/** Splits SQL into words, placeholders and parentheses, with their depth; quoted text and identifiers stay whole. */
function scan(sql: string): Token[] {
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
    } else if (char === '(') {
      tokens.push({ start, end: ++i, depth: depth++, kind: 'open', text: char });
    } else if (char === ')') {
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
  return tokens;
}

/** What ends a WHERE clause at its own depth. */
const AFTER_WHERE = new Set(['GROUP', 'ORDER', 'LIMIT', 'HAVING', 'UNION', 'WINDOW', 'OFFSET']);

/** Whether `part` is one parenthesised expression at `depth`: `( ... )`, not `(a) = (b)`. */
function wrapped(part: readonly Token[], depth: number): boolean {
  const first = part[0];
  const last = part[part.length - 1];
  if (first?.kind !== 'open' || last?.kind !== 'close' || first.depth !== depth) return false;
  return part.findIndex((token) => token.kind === 'close' && token.depth === depth) === part.length - 1;
}

/** The AND terms of a condition at `depth`, parentheses that wrap a whole term taken off and their terms split too. */
function terms(tokens: readonly Token[], depth: number): Token[][] {
  const parts: Token[][] = [[]];
  for (const token of tokens) {
    if (token.depth === depth && token.kind === 'word' && token.text.toUpperCase() === 'AND') parts.push([]);
    else (parts[parts.length - 1] as Token[]).push(token);
  }
  return parts
    .filter((part) => part.length > 0)
    .flatMap((part) => (wrapped(part, depth) ? terms(part.slice(1, -1), depth + 1) : [part]));
}

const DENIAL = /^1\s*=\s*0$/;

/**
 * The row conditions of Cube's SQL: every WHERE clause (the outer query's, and those of subqueries Cube writes, such
 * as a cube's own `sql`), cut into its top-level AND terms, each with the parameters of its placeholders (`?` in
 * order, or `$n`). docs/cli-output.md (under "`access --json`") says what they come from on each Cube line.
 */
export function rowConditions(text: string, params: readonly unknown[]): QuerySql {
  const tokens = scan(text);
  let placeholder = 0;
  const paramOf = new Map<Token, unknown>();
  for (const token of tokens) {
    if (token.kind !== 'placeholder') continue;
    paramOf.set(token, token.text === '?' ? params[placeholder++] : params[Number(token.text.slice(1)) - 1]);
  }
  const conditions: RowCondition[] = [];
  tokens.forEach((token, index) => {
    if (token.kind !== 'word' || token.text.toUpperCase() !== 'WHERE') return;
    const clause: Token[] = [];
    for (const next of tokens.slice(index + 1)) {
      // A closing parenthesis of the subquery the clause is in is at a lower depth.
      if (next.depth < token.depth) break;
      if (next.depth === token.depth && next.kind === 'word' && AFTER_WHERE.has(next.text.toUpperCase())) break;
      clause.push(next);
    }
    for (const term of terms(clause, token.depth)) {
      conditions.push({
        sql: text.slice((term[0] as Token).start, (term[term.length - 1] as Token).end),
        params: term.filter((t) => paramOf.has(t)).map((t) => paramOf.get(t)),
      });
    }
  });
  return { conditions, denied: conditions.some((condition) => DENIAL.test(condition.sql)) };
}
