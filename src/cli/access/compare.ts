/** What differs between what two callers see: cubes and views, members, and the row conditions of each cube. */
import type { VisibleCube } from './cube-answers';
import type { CubeRows } from './inspect';
import { alternativesOf, type RowCondition } from './sql-conditions';

/** Which of the two callers: the token given first, or the one given with `--compare-*`. */
export type Side = 'first' | 'second';

export type Difference =
  /** A cube or view only one caller is shown. */
  | { readonly kind: 'cube'; readonly cube: string; readonly type: 'cube' | 'view'; readonly only: Side }
  /** A member of a cube both are shown, which only one caller is shown. */
  | { readonly kind: 'member'; readonly cube: string; readonly member: string; readonly only: Side }
  /** The rows of a cube are not kept by the same conditions for both. */
  | { readonly kind: 'rows'; readonly cube: string; readonly first: string; readonly second: string };

/** One caller's view: the cubes and views it is shown, and each asked cube's rows as {@link rowsSummary} tells them. */
interface SideView {
  readonly cubes: readonly VisibleCube[];
  /** With the conditions read (`access --json`'s `rows[]` has them), the rows are compared by those. */
  readonly rows: readonly {
    readonly cube: string;
    readonly summary: string;
    readonly conditions?: readonly RowCondition[];
  }[];
}

/**
 * What a cube's rows are compared by: its conditions, each repeated alternative and repeated term counted once
 * (`a AND a` keeps the rows `a` keeps); else the summary.
 */
function comparedRows(rows: SideView['rows'][number] | undefined): string {
  if (rows === undefined) return NOT_ASKED;
  if (rows.conditions === undefined || rows.conditions.length === 0) return rows.summary;
  return [...new Set(rows.conditions.map(comparedCondition))].join(' AND ');
}

/** Both callers' views of the same Cube. */
export interface Sides {
  readonly first: SideView;
  readonly second: SideView;
}

/** The rows of a cube not asked about for a caller (Cube refused it, so nothing was). */
const NOT_ASKED = 'not asked';

const membersOf = (cube: VisibleCube): string[] => [...cube.measures, ...cube.dimensions, ...cube.segments];

/**
 * What a cube's rows are kept by, as one text two callers' can be compared by: the conditions with their parameters
 * (in Cube's order), a refusal, or that no member was there to ask about.
 */
export function rowsSummary({ outcome }: CubeRows): string {
  if (outcome === null) return 'not asked: no member of it is shown';
  if (outcome.kind === 'refused') return `refused (${outcome.status}): ${outcome.message}`;
  if (outcome.kind === 'failed') return `failed: ${outcome.message}`;
  if (outcome.kind === 'not-checked') return outcome.message;
  if (outcome.conditions.length === 0) return 'every row (no condition)';
  return outcome.conditions.map(withParams).join(' AND ');
}

const withParams = ({ sql, params }: RowCondition): string =>
  params.length === 0 ? sql : `${sql} ${JSON.stringify(params)}`;

/**
 * One condition as it is compared: an alternative repeated with the same parameters counts once, so
 * `(t = ?) OR (t = ?)` with `["acme", "acme"]` is compared as `t = ? ["acme"]`.
 */
function comparedCondition(condition: RowCondition): string {
  const alternatives = alternativesOf(condition);
  const distinct = [...new Set(alternatives.map(withParams))];
  if (distinct.length === alternatives.length) return withParams(condition);
  return distinct.length === 1 ? (distinct[0] as string) : distinct.map((text) => `(${text})`).join(' OR ');
}

/** Every difference, in the order of the first caller's cubes and then the second's; none: the same data. */
export function compareSides({ first, second }: Sides): Difference[] {
  const differences: Difference[] = [];
  const names = [...new Set([...first.cubes, ...second.cubes].map((cube) => cube.name))];
  // Maps and sets, not searches: /meta decides how many cubes and members there are.
  const firstCubes = new Map(first.cubes.map((cube) => [cube.name, cube]));
  const secondCubes = new Map(second.cubes.map((cube) => [cube.name, cube]));
  for (const name of names) {
    const a = firstCubes.get(name);
    const b = secondCubes.get(name);
    if (a === undefined || b === undefined) {
      const only = (a ?? b) as VisibleCube;
      differences.push({ kind: 'cube', cube: name, type: only.type, only: a ? 'first' : 'second' });
      continue;
    }
    const inA = new Set(membersOf(a));
    const inB = new Set(membersOf(b));
    for (const member of [...inA].filter((m) => !inB.has(m)))
      differences.push({ kind: 'member', cube: name, member, only: 'first' });
    for (const member of [...inB].filter((m) => !inA.has(m)))
      differences.push({ kind: 'member', cube: name, member, only: 'second' });
  }
  // Rows are compared for every cube either side asked about (a hidden cube too: its denial is a difference).
  const asked = [...new Set([...first.rows, ...second.rows].map((rows) => rows.cube))];
  const firstRows = new Map(first.rows.map((rows) => [rows.cube, rows]));
  const secondRows = new Map(second.rows.map((rows) => [rows.cube, rows]));
  for (const cube of asked) {
    const a = firstRows.get(cube);
    const b = secondRows.get(cube);
    if (comparedRows(a) !== comparedRows(b))
      differences.push({ kind: 'rows', cube, first: a?.summary ?? NOT_ASKED, second: b?.summary ?? NOT_ASKED });
  }
  return differences;
}
