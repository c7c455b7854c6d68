/**
 * What the running Cube lets a caller see, asked with the caller's own token: `/meta` for the cubes, views and members
 * it shows, then `/sql` for a minimal query of each cube, whose SQL holds the row conditions Cube applies. Only those
 * two endpoints are read; no query is run against the database.
 */
import { maskTokens } from '../../errors';
import { isObject, JsonTooDeepError, parseOutsideJson } from '../../http/json';
import { NOT_CHECKED, type Deadline } from '../deadline';
import { get, type Answer } from '../probe/http';
import { endpoint } from '../probe/target';
import { parseMeta, rowConditions, sqlOfAnswer, type RowCondition, type VisibleCube } from './cube-answers';
import { SqlShapeError } from './sql-conditions';

/** A caller as `access` sends its requests. */
export interface Caller {
  readonly token: string;
  /** The `Request-Origin` value sent with the token (the service's), or undefined for none. */
  readonly origin: string | undefined;
}

/** Where and how requests go: every one has the same deadline. */
export interface RequestPlan {
  /** The REST base, `…/cubejs-api/v1`. */
  readonly base: URL;
  readonly timeoutMs: number;
  /** Where the proxy variables are read: the CLI's environment. */
  readonly env: NodeJS.ProcessEnv;
  /** The whole command's deadline: a request it ends, or would start after it, is not checked. */
  readonly deadline?: Deadline;
}

/** How Cube answered a request: as wanted, refused (403, or 400 for a query it will not take), or failed. */
export type Outcome<T> =
  | ({ readonly kind: 'answered' } & T)
  | { readonly kind: 'refused'; readonly status: number; readonly message: string }
  | { readonly kind: 'failed'; readonly status: number | null; readonly message: string }
  /** Not asked, or not answered, before the command's deadline. */
  | { readonly kind: 'not-checked'; readonly status: null; readonly message: string };

export type MetaOutcome = Outcome<{ readonly cubes: readonly VisibleCube[] }>;

/** The row conditions of one cube or view, read from the SQL of a query of `member`. */
export interface CubeRows {
  readonly cube: string;
  /** The member queried; null when neither caller is shown one of the cube's. */
  readonly member: string | null;
  readonly outcome: Outcome<{ readonly conditions: readonly RowCondition[]; readonly denied: boolean }> | null;
}

/** Most of Cube's message that is quoted: the gist, as `probe` quotes it. */
const MAX_SHOWN = 200;

/** Text of Cube's as it may be shown: the sent token and anything shaped like one masked, cut. */
function shown(text: string, token: string): string {
  const masked = maskTokens(text.split(token).join('[token]')).trim();
  return masked.length > MAX_SHOWN ? `${masked.slice(0, MAX_SHOWN)}...` : masked;
}

/** The body as JSON; undefined when it is not JSON, or is refused for nesting too deep (`refused` says why). */
function parsed(text: string, refused?: (reason: string) => void): unknown {
  try {
    return parseOutsideJson(text);
  } catch (error) {
    if (error instanceof JsonTooDeepError) refused?.(error.message);
    return undefined;
  }
}

/** Cube's `error` message when the body has one, else the body. */
function messageOf(text: string, token: string): string {
  const body = parsed(text);
  const error = isObject(body) ? body['error'] : undefined;
  return shown(typeof error === 'string' ? error : text, token);
}

async function ask(caller: Caller, url: URL, plan: RequestPlan): Promise<Answer> {
  const headers: Record<string, string> = {
    'user-agent': 'cube-dual-auth-access',
    accept: 'application/json',
    // As Cube's JavaScript client sends it: the bare token.
    authorization: caller.token,
  };
  if (caller.origin !== undefined) headers['request-origin'] = caller.origin;
  const { deadline } = plan;
  const timeoutMs = deadline === undefined ? plan.timeoutMs : deadline.within(plan.timeoutMs);
  return get(url, {
    headers,
    timeoutMs,
    env: plan.env,
    ...(deadline === undefined ? {} : { signal: deadline.signal }),
  });
}

/** Judges an answer: a 200 that `read` understands, a refusal, or a failure (with `what` it was not). */
async function judged<T>(
  caller: Caller,
  url: URL,
  plan: RequestPlan,
  what: string,
  read: (body: unknown) => T | undefined,
): Promise<Outcome<T>> {
  if (plan.deadline?.passed === true) return { kind: 'not-checked', status: null, message: NOT_CHECKED };
  const answer = await ask(caller, url, plan);
  if (answer.kind === 'unanswered')
    return answer.reason === NOT_CHECKED
      ? { kind: 'not-checked', status: null, message: NOT_CHECKED }
      : { kind: 'failed', status: null, message: answer.reason };
  const { status, text } = answer;
  if (status === 403 || status === 400) return { kind: 'refused', status, message: messageOf(text, caller.token) };
  if (status !== 200) return { kind: 'failed', status, message: `${status}: ${messageOf(text, caller.token)}` };
  let refusal: string | undefined;
  try {
    const value = read(parsed(text, (reason) => (refusal = reason)));
    if (value !== undefined) return { kind: 'answered', ...value };
  } catch (error) {
    if (!(error instanceof SqlShapeError)) throw error;
    refusal = error.message;
  }
  const problem = refusal === undefined ? `the body is not ${what}` : `the body is refused: ${refusal}`;
  return { kind: 'failed', status, message: `200, but ${problem}` };
}

/** The cubes, views and members `/meta` shows the caller. */
export function readMeta(caller: Caller, plan: RequestPlan): Promise<MetaOutcome> {
  return judged(caller, endpoint(plan.base, 'meta'), plan, "Cube's /meta answer (a list of cubes)", (body) => {
    const cubes = parseMeta(body);
    return cubes === undefined ? undefined : { cubes };
  });
}

/** The smallest query that reads `member`: a measure alone, or a dimension alone. */
function minimalQuery(member: string, kind: 'measure' | 'dimension'): object {
  return kind === 'measure' ? { measures: [member] } : { dimensions: [member] };
}

/** A member to query for a cube: the first measure shown, else the first dimension. */
export function memberToQuery(cube: VisibleCube): { name: string; kind: 'measure' | 'dimension' } | undefined {
  const [measure] = cube.measures;
  if (measure !== undefined) return { name: measure, kind: 'measure' };
  const [dimension] = cube.dimensions;
  return dimension === undefined ? undefined : { name: dimension, kind: 'dimension' };
}

/** The row conditions in the SQL Cube gives the caller for a minimal query of `member`. */
export async function readRows(
  caller: Caller,
  cube: string,
  member: { name: string; kind: 'measure' | 'dimension' } | undefined,
  plan: RequestPlan,
): Promise<CubeRows> {
  if (member === undefined) return { cube, member: null, outcome: null };
  const url = endpoint(plan.base, 'sql');
  url.searchParams.set('query', JSON.stringify(minimalQuery(member.name, member.kind)));
  const outcome = await judged(caller, url, plan, "Cube's /sql answer (the query's SQL)", (body) => {
    const sql = sqlOfAnswer(body);
    return sql === undefined ? undefined : rowConditions(sql.text, sql.params);
  });
  return { cube, member: member.name, outcome };
}
