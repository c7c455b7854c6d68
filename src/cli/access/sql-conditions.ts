/**
 * The row conditions in the SQL Cube's `/sql` gives: every WHERE clause cut into its AND terms, each with the
 * parameters of its placeholders. The SQL comes from outside, so reading it is bounded: one scan and one pass over the
 * clauses, no recursion, time linear in the text (already capped at 1 MiB), and a shape past {@link SQL_LIMITS} is
 * refused with the limit it passed (docs/cli.md, "Faults and limits").
 */

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

/** What SQL is read: Cube's own nests a few parentheses and writes a few WHERE clauses with a few terms. */
export const SQL_LIMITS = {
  /** Parentheses inside each other. */
  maxDepth: 64,
  /** Words, placeholders, parentheses and other signs. */
  maxTokens: 200_000,
  /** Row conditions found in all WHERE clauses together. */
  maxConditions: 1_000,
  /** Characters of those conditions together (a subquery's are counted in each condition holding it). */
  maxConditionChars: 1_000_000,
} as const;

/** SQL refused for its shape: it passes one of {@link SQL_LIMITS}. */
export class SqlShapeError extends Error {
  override readonly name = 'SqlShapeError';
  readonly code = 'ERR_SQL_REFUSED';
}

const WORD = 0;
const PLACEHOLDER = 1;
const OPEN = 2;
const CLOSE = 3;
const OTHER = 4;

/** The SQL as tokens in parallel arrays: where each starts and ends, its depth and kind, and for `(` its `)`. */
interface Scanned {
  readonly text: string;
  readonly start: number[];
  readonly end: number[];
  readonly depth: number[];
  readonly kind: number[];
  /** For an opening parenthesis, the index of its closing one (-1: never closed); else -1. */
  readonly match: number[];
  /** How many placeholders come before each token (one more entry, for the end). */
  readonly placeholdersBefore: number[];
  /** The placeholders' texts, in order. */
  readonly placeholders: string[];
}

const isWordCode = (code: number): boolean =>
  (code >= 48 && code <= 57) || (code >= 65 && code <= 90) || (code >= 97 && code <= 122) || code === 95;
const isDigit = (code: number): boolean => code >= 48 && code <= 57;
const isSpace = (code: number): boolean => code === 32 || (code >= 9 && code <= 13);

/** Splits SQL into words, placeholders and parentheses, with their depth; quoted text and identifiers stay whole. */
function scan(text: string): Scanned {
  const out: Scanned = {
    text,
    start: [],
    end: [],
    depth: [],
    kind: [],
    match: [],
    placeholdersBefore: [],
    placeholders: [],
  };
  const opened: number[] = [];
  const push = (from: number, to: number, kind: number, depth: number): void => {
    if (out.kind.length >= SQL_LIMITS.maxTokens)
      throw new SqlShapeError(`its SQL has more than ${SQL_LIMITS.maxTokens} tokens (the limit)`);
    out.placeholdersBefore.push(out.placeholders.length);
    out.start.push(from);
    out.end.push(to);
    out.depth.push(depth);
    out.kind.push(kind);
    out.match.push(-1);
    if (kind === PLACEHOLDER) out.placeholders.push(text.slice(from, to));
  };
  let i = 0;
  while (i < text.length) {
    const code = text.charCodeAt(i);
    const from = i;
    const char = text[i] as string;
    if (char === "'" || char === '"' || char === '`') {
      i++;
      while (i < text.length && !(text[i] === char && text[i + 1] !== char)) i += text[i] === char ? 2 : 1;
      push(from, ++i, OTHER, opened.length);
    } else if (char === '(') {
      if (opened.length >= SQL_LIMITS.maxDepth)
        throw new SqlShapeError(`its SQL nests parentheses deeper than ${SQL_LIMITS.maxDepth} (the limit)`);
      push(from, ++i, OPEN, opened.length);
      opened.push(out.kind.length - 1);
    } else if (char === ')') {
      const open = opened.pop();
      push(from, ++i, CLOSE, opened.length);
      if (open !== undefined) out.match[open] = out.kind.length - 1;
    } else if (char === '?' || (char === '$' && isDigit(text.charCodeAt(i + 1)))) {
      i++;
      while (char === '$' && isDigit(text.charCodeAt(i))) i++;
      push(from, i, PLACEHOLDER, opened.length);
    } else if (isWordCode(code)) {
      while (i < text.length && isWordCode(text.charCodeAt(i))) i++;
      push(from, i, WORD, opened.length);
    } else {
      i++;
      if (!isSpace(code)) push(from, i, OTHER, opened.length);
    }
  }
  out.placeholdersBefore.push(out.placeholders.length);
  return out;
}

/** The word at `index` in capitals, when it is a word short enough to be a keyword. */
function keyword(scanned: Scanned, index: number): string | undefined {
  if (scanned.kind[index] !== WORD) return undefined;
  const from = scanned.start[index] as number;
  const to = scanned.end[index] as number;
  return to - from <= 6 ? scanned.text.slice(from, to).toUpperCase() : undefined;
}

/** What ends a WHERE clause at its own depth: these, another WHERE, or the parenthesis its subquery ends at. */
const AFTER_WHERE = new Set(['GROUP', 'ORDER', 'LIMIT', 'HAVING', 'UNION', 'WINDOW', 'OFFSET']);

/** A run of tokens `[from, to)`. */
type Range = readonly [from: number, to: number];

/** The WHERE clauses of the SQL, in the order they start: one pass, each clause ended where its depth ends. */
function whereClauses(scanned: Scanned): Range[] {
  const clauses: [number, number][] = [];
  const active: { readonly clause: number; readonly depth: number }[] = [];
  const endTop = (at: number): void => {
    const top = active.pop();
    if (top !== undefined) (clauses[top.clause] as [number, number])[1] = at;
  };
  for (let i = 0; i < scanned.kind.length; i++) {
    const depth = scanned.depth[i] as number;
    while (active.length > 0 && (active[active.length - 1]?.depth as number) > depth) endTop(i);
    const word = keyword(scanned, i);
    if (word === undefined) continue;
    const atTop = active.length > 0 && active[active.length - 1]?.depth === depth;
    if (atTop && (word === 'WHERE' || AFTER_WHERE.has(word))) endTop(i);
    if (word === 'WHERE') {
      clauses.push([i + 1, scanned.kind.length]);
      active.push({ clause: clauses.length - 1, depth });
    }
  }
  return clauses;
}

/**
 * Cuts `[from, to)` at the words `separator` of its own depth (a parenthesised group is stepped over whole), and
 * takes off the parentheses that wrap a whole part.
 */
function split(scanned: Scanned, [from, to]: Range, separator: string): Range[] {
  const parts: Range[] = [];
  let partFrom = from;
  let i = from;
  while (i < to) {
    if (scanned.kind[i] === OPEN) {
      const close = scanned.match[i] as number;
      i = close === -1 || close >= to ? to : close + 1;
      continue;
    }
    if (keyword(scanned, i) === separator) {
      parts.push([partFrom, i]);
      partFrom = i + 1;
    }
    i++;
  }
  parts.push([partFrom, to]);
  return parts.filter(([a, b]) => b > a);
}

/** Whether `[from, to)` is one parenthesised expression: `( ... )`, not `(a) = (b)`. */
function wrapped(scanned: Scanned, [from, to]: Range): boolean {
  return scanned.kind[from] === OPEN && scanned.match[from] === to - 1;
}

/**
 * The terms of a clause between `separator`s (AND, or OR), in order: a part wrapped whole in parentheses is split
 * too, at its own depth. An explicit stack, not recursion: each token is looked at once per depth it is split at.
 */
function termsOf(scanned: Scanned, clause: Range, separator: 'AND' | 'OR'): Range[] {
  const terms: Range[] = [];
  const stack: { readonly range: Range; readonly split: boolean }[] = [{ range: clause, split: true }];
  for (let item = stack.pop(); item !== undefined; item = stack.pop()) {
    if (item.split) {
      const parts = split(scanned, item.range, separator);
      for (let p = parts.length - 1; p >= 0; p--) stack.push({ range: parts[p] as Range, split: false });
    } else if (wrapped(scanned, item.range)) {
      const [from, to] = item.range;
      if (to - from > 2) stack.push({ range: [from + 1, to - 1], split: true });
    } else {
      terms.push(item.range);
    }
  }
  return terms;
}

/** The text of a run of tokens, as written. */
function textOf(scanned: Scanned, [from, to]: Range): string {
  return scanned.text.slice(scanned.start[from], scanned.end[to - 1]);
}

const DENIAL = /^1\s*=\s*0$/;

/**
 * The row conditions of Cube's SQL: every WHERE clause (the outer query's, and its subqueries'), cut into its
 * top-level AND terms, each with the parameters of its placeholders (`?` in order, or `$n`); docs/cli-output.md
 * ("`access --json`") says what they come from. Throws {@link SqlShapeError} past {@link SQL_LIMITS}.
 * @example `rowConditions('SELECT 1 WHERE (t = ?) AND x > 0', ['acme'])`: `t = ?` with `['acme']`, `x > 0`
 */
export function rowConditions(text: string, params: readonly unknown[]): QuerySql {
  const scanned = scan(text);
  let ordinal = 0;
  const values = scanned.placeholders.map((placeholder) =>
    placeholder === '?' ? params[ordinal++] : params[Number(placeholder.slice(1)) - 1],
  );
  const conditions: RowCondition[] = [];
  let chars = 0;
  for (const clause of whereClauses(scanned)) {
    for (const term of termsOf(scanned, clause, 'AND')) {
      const sql = textOf(scanned, term);
      chars += sql.length;
      if (conditions.length >= SQL_LIMITS.maxConditions)
        throw new SqlShapeError(`its SQL has more than ${SQL_LIMITS.maxConditions} row conditions (the limit)`);
      if (chars > SQL_LIMITS.maxConditionChars)
        throw new SqlShapeError(
          `its row conditions hold more than ${SQL_LIMITS.maxConditionChars} characters together (the limit)`,
        );
      const [from, to] = term;
      conditions.push({
        sql,
        params: values.slice(scanned.placeholdersBefore[from], scanned.placeholdersBefore[to]),
      });
    }
  }
  return { conditions, denied: conditions.some((condition) => DENIAL.test(condition.sql)) };
}

/**
 * The alternatives of a condition, `a OR (b OR c)`, each without parentheses that wrap it whole and with its own
 * parameters: what `access --compare` dedupes, so that `(t = ?) OR (t = ?)` with `["acme", "acme"]` is `t = ?`
 * with `["acme"]`. Throws {@link SqlShapeError} as {@link rowConditions} does.
 */
export function alternativesOf(condition: RowCondition): RowCondition[] {
  const scanned = scan(condition.sql);
  return termsOf(scanned, [0, scanned.kind.length], 'OR').map(([from, to]) => ({
    sql: textOf(scanned, [from, to]),
    params: condition.params.slice(scanned.placeholdersBefore[from], scanned.placeholdersBefore[to]),
  }));
}
