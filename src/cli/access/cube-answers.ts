/**
 * What `access` reads from Cube's answers: the cubes and views `/meta` shows a caller, and the SQL `/sql` gives for a
 * query (its row conditions are read by sql-conditions.ts). Every value comes from outside and is kept as data;
 * printing escapes it.
 */
import { isObject } from '../../http/json';

export { rowConditions, type QuerySql, type RowCondition } from './sql-conditions';

/** A cube or a view as `/meta` shows it to one caller. */
export interface VisibleCube {
  readonly name: string;
  readonly type: 'cube' | 'view';
  readonly measures: readonly string[];
  readonly dimensions: readonly string[];
  readonly segments: readonly string[];
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
