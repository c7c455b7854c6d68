/**
 * Cube's own options that read the hook's `tenant` and `groups`, each failing closed with a 403, never answering for
 * every tenant: docs/authorization.md#in-cubejs-groups-for-access-policies-a-tenant-for-everything-else.
 */
import type { ResolvedOptions } from '../config/options';
import { DualAuthConfigError, DualAuthError, forbidden, quote } from '../errors';

/** What Cube passes these options: its request context, whose `securityContext` the hook set. */
export interface CubeContext {
  readonly securityContext?: unknown;
  readonly requestId?: unknown;
}

/**
 * What `tenantFilter` reads of a query as Cube hands it to `queryRewrite` (normalized: filters use `member`); other
 * members are kept as they are. No index signature: Cube's own `Query` interface has none, and must fit this type.
 */
export interface CubeQuery {
  measures?: unknown[];
  dimensions?: unknown[];
  segments?: unknown[];
  timeDimensions?: { dimension?: unknown; granularity?: unknown; dateRange?: unknown }[];
  filters?: unknown[];
  order?: unknown;
  joinHints?: unknown[];
  subqueryJoins?: unknown[];
}

/** Cube's `queryRewrite` option: generic, so that it fits Cube's own `QueryRewriteFn` (its `Query` in and out). */
export type QueryRewrite = <Query extends CubeQuery>(
  query: Query,
  context: CubeContext,
) => Query & { filters: unknown[] };

/** The names of {@link CubeOptions}, in the order docs/reference.md lists them. */
export const CUBE_OPTION_NAMES = [
  'contextToGroups',
  'contextToAppId',
  'contextToOrchestratorId',
  'tenantFilter',
] as const;
type CubeOptionName = (typeof CUBE_OPTION_NAMES)[number];

/** The Cube options of a `checkAuth`, read from the same options; see {@link cubeOptionsOf}. */
export interface CubeOptions {
  /** Cube's `contextToGroups`: the request's `groups`, for access policies (Cube ≥ 1.0). */
  readonly contextToGroups: (context: CubeContext) => string[];
  /**
   * Cube's `contextToAppId`: `CUBE_APP_<tenant>`, so each tenant has its own compiled data model. The tenant is kept
   * as is when made of `[A-Za-z0-9._-]`; every other byte of its UTF-8 is written `%XX` (`a b` is `CUBE_APP_a%20b`).
   */
  readonly contextToAppId: (context: CubeContext) => string;
  /** Cube's `contextToOrchestratorId`: the id of `contextToAppId`, so each tenant has its own query cache and queue. */
  readonly contextToOrchestratorId: (context: CubeContext) => string;
  /**
   * A `queryRewrite` that adds `<member> equals <tenant>` for every cube or view the query touches, given the tenant
   * member of each (`{ orders: 'orders.tenant' }`), and refuses a query touching one it has none for.
   */
  tenantFilter(members: Readonly<Record<string, string>>): QueryRewrite;
}

function securityContextOf(context: CubeContext | undefined): Record<string, unknown> {
  const securityContext = typeof context === 'object' && context !== null ? context.securityContext : undefined;
  return typeof securityContext === 'object' && securityContext !== null
    ? (securityContext as Record<string, unknown>)
    : {};
}

/**
 * Cube's refresh worker names its requests so (its RefreshScheduler, on both lines). Its contexts come from cube.js's
 * `scheduledRefreshContexts`, never through the hook, so the refusal names that place to fix.
 */
const REFRESH_WORKER_REQUEST = 'scheduler-';

function missing(context: CubeContext, what: 'tenant' | 'groups', refusal: string): never {
  const { requestId } = typeof context === 'object' && context !== null ? context : ({} as CubeContext);
  if (typeof requestId === 'string' && requestId.startsWith(REFRESH_WORKER_REQUEST)) {
    throw forbidden(
      `The refresh worker's security context has no ${what}: give every context that scheduledRefreshContexts in cube.js returns a securityContext with tenant and groups; ${refusal}`,
    );
  }
  throw forbidden(`The security context has no ${what}; ${refusal}`);
}

/** The request's tenant; refused when there is none, so no request is answered for every tenant or a shared one. */
function tenantOf(context: CubeContext): string {
  const tenant = securityContextOf(context).tenant;
  if (typeof tenant !== 'string' || tenant === '') missing(context, 'tenant', 'refusing to answer for every tenant');
  return tenant;
}

function groupsOf(context: CubeContext): string[] {
  const groups = securityContextOf(context).groups;
  if (!Array.isArray(groups) || !groups.every((group) => typeof group === 'string'))
    missing(context, 'groups', 'refusing to choose access policies without them');
  return [...groups];
}

/** What a tenant keeps as is in an app id: printable, and safe in a log line, a queue key or a cache key. */
const ID_SAFE = /^[A-Za-z0-9._-]*$/;

/**
 * The tenant in printable ASCII without spaces, losslessly, as docs/authorization.md says. A lone surrogate, which a
 * token's JSON may hold, is encoded as its code point (WTF-8), never as U+FFFD, which would be another tenant's id.
 */
function idOfTenant(tenant: string): string {
  if (ID_SAFE.test(tenant)) return tenant;
  let id = '';
  for (const character of tenant) {
    id += ID_SAFE.test(character)
      ? character
      : utf8Bytes(character.codePointAt(0) as number)
          .map((byte) => `%${byte.toString(16).toUpperCase().padStart(2, '0')}`)
          .join('');
  }
  return id;
}

function utf8Bytes(codePoint: number): number[] {
  if (codePoint < 0x80) return [codePoint];
  if (codePoint < 0x800) return [0xc0 | (codePoint >> 6), 0x80 | (codePoint & 0x3f)];
  if (codePoint < 0x10000)
    return [0xe0 | (codePoint >> 12), 0x80 | ((codePoint >> 6) & 0x3f), 0x80 | (codePoint & 0x3f)];
  return [
    0xf0 | (codePoint >> 18),
    0x80 | ((codePoint >> 12) & 0x3f),
    0x80 | ((codePoint >> 6) & 0x3f),
    0x80 | (codePoint & 0x3f),
  ];
}

const appId = (context: CubeContext): string => `CUBE_APP_${idOfTenant(tenantOf(context))}`;

const NAME = /^[A-Za-z0-9_]+$/;
const MEMBER = /^[A-Za-z0-9_]+\.[A-Za-z0-9_]+$/;

/** Refuses the query with a 403 saying why; what it shows of the query is quoted. */
type Refuse = (why: string) => never;

/** Deeper `and`/`or` nesting than any query builder writes; it also ends a filter that contains itself. */
const MAX_FILTER_DEPTH = 32;

/** The cube (or view) a member name (`orders.count`, `orders.created_at.day`) belongs to; undefined for an alias. */
function cubeOfName(name: string): string | undefined {
  const dot = name.indexOf('.');
  return dot > 0 ? name.slice(0, dot) : undefined;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A list the query may leave out; anything else there is unreadable. Only our own key names reach the message. */
function listIn(query: Record<string, unknown>, key: string, refuse: Refuse): readonly unknown[] {
  const value = query[key];
  if (value === undefined) return [];
  return Array.isArray(value) ? value : refuse(`its "${key}" is not a list`);
}

/** Cube names an SQL API member expression lists: each must be a name, or what the SQL reads is unknown. */
function cubeNames(names: readonly unknown[], cubeName: string, refuse: Refuse): string[] {
  return names.map((name) =>
    typeof name === 'string' ? name : refuse(`the member expression ${quote(cubeName)} names a cube unreadably`),
  );
}

/**
 * The cubes a member of `measures`, `dimensions` or `segments` reads: a name's cube, or a member expression's cube
 * and the cubes its SQL names (the SQL API's `cubeParams`, every item of its expression but the SQL itself).
 */
function cubesOfMember(member: unknown, refuse: Refuse): string[] {
  if (typeof member === 'string') return [cubeOfName(member) ?? refuse(`the member ${quote(member)} names no cube`)];
  const { cubeName, expression } = isRecord(member) ? member : {};
  if (typeof cubeName !== 'string') return refuse('a member is neither a member name nor a member expression');
  if (Array.isArray(expression)) return [cubeName, ...cubeNames(expression.slice(0, -1), cubeName, refuse)];
  if (isRecord(expression)) {
    const { sourceMeasure, addFilters = [] } = expression;
    if (typeof sourceMeasure === 'string' && Array.isArray(addFilters) && addFilters.every(Array.isArray)) {
      return [
        cubeName,
        ...cubesOfMember(sourceMeasure, refuse),
        ...addFilters.flatMap((filter: unknown[]) => cubeNames(filter.slice(0, -1), cubeName, refuse)),
      ];
    }
  }
  // An evaluated expression (a function) hides the cubes it reads: which ones its SQL joins cannot be told.
  return refuse(`the member expression ${quote(cubeName)} does not say which cubes it reads`);
}

/**
 * The cubes of filters as Cube normalizes them (its Joi schema): each one a member's condition (`member`, or
 * `dimension` before normalizing) or a list of them (`and` or `or`), exactly one of these.
 */
function cubesOfFilters(filters: readonly unknown[], refuse: Refuse, depth = 0): string[] {
  if (depth > MAX_FILTER_DEPTH) refuse(`its filters are nested deeper than ${MAX_FILTER_DEPTH} levels`);
  return filters.flatMap((filter) => {
    if (!isRecord(filter)) return refuse('a filter is not an object');
    const given = (['member', 'dimension', 'and', 'or'] as const).filter((key) => filter[key] !== undefined);
    const [key] = given;
    if (key === undefined) return refuse('a filter names no member');
    if (given.length > 1) return refuse(`a filter has both "${key}" and "${given[1]}"`);
    const value = filter[key];
    if (key === 'and' || key === 'or') {
      return Array.isArray(value)
        ? cubesOfFilters(value, refuse, depth + 1)
        : refuse(`a filter's "${key}" is not a list`);
    }
    return typeof value === 'string' ? cubesOfMember(value, refuse) : refuse('a filter names no member');
  });
}

function cubesOfTimeDimensions(timeDimensions: readonly unknown[], refuse: Refuse): string[] {
  return timeDimensions.flatMap((timeDimension) => {
    if (!isRecord(timeDimension)) return refuse('a time dimension is not an object');
    const { dimension } = timeDimension;
    return typeof dimension === 'string'
      ? cubesOfMember(dimension, refuse)
      : refuse('a time dimension names no member');
  });
}

/**
 * The cubes the order names: `{ member: direction }`, or a list of `[member, direction]` (as Cube normalizes it) or
 * `{ id, desc }`. A name without a cube is the alias of a member expression, whose cubes are read where it stands.
 */
function cubesOfOrder(order: unknown, refuse: Refuse): string[] {
  if (order === undefined) return [];
  const names = Array.isArray(order)
    ? order.map((item: unknown) => (Array.isArray(item) ? item[0] : isRecord(item) ? item.id : undefined))
    : isRecord(order)
      ? Object.keys(order)
      : refuse('its "order" is neither a list nor an object');
  return names
    .map((name) => (typeof name === 'string' ? cubeOfName(name) : refuse('an item of its "order" names no member')))
    .filter((cube): cube is string => cube !== undefined);
}

function cubesOfJoinHints(joinHints: readonly unknown[], refuse: Refuse): string[] {
  return joinHints.flatMap((hint) =>
    Array.isArray(hint) && hint.every((cube) => typeof cube === 'string')
      ? (hint as string[])
      : refuse('a join hint is not a list of cube names'),
  );
}

/** Every cube and view a query reads rows of, from every place Cube takes members from. */
function cubesOf(query: Record<string, unknown>, refuse: Refuse): Set<string> {
  // The SQL of a subquery join is the SQL API's own, beyond any filter added here.
  if (listIn(query, 'subqueryJoins', refuse).length > 0)
    refuse('it has subquery joins, which a tenant filter cannot reach');
  return new Set([
    ...['measures', 'dimensions', 'segments'].flatMap((key) =>
      listIn(query, key, refuse).flatMap((member) => cubesOfMember(member, refuse)),
    ),
    ...cubesOfTimeDimensions(listIn(query, 'timeDimensions', refuse), refuse),
    ...cubesOfFilters(listIn(query, 'filters', refuse), refuse),
    ...cubesOfOrder(query.order, refuse),
    ...cubesOfJoinHints(listIn(query, 'joinHints', refuse), refuse),
  ]);
}

/** Checks the tenant members once, when `cube.js` is loaded: `{ cube: 'cube.member' }`. */
function checkedMembers(members: unknown): ReadonlyMap<string, string> {
  const fail: (problem: string) => never = (problem) => {
    throw new DualAuthConfigError('tenantFilter', problem);
  };
  if (typeof members !== 'object' || members === null || Array.isArray(members) || Object.keys(members).length === 0) {
    return fail("must be given each cube's tenant member, as { orders: 'orders.tenant' }");
  }
  const checked = new Map<string, string>();
  for (const [cube, member] of Object.entries(members as Record<string, unknown>)) {
    if (!NAME.test(cube)) fail(`names ${JSON.stringify(cube)}, which is not a cube or view name`);
    if (typeof member !== 'string' || !MEMBER.test(member))
      fail(
        `gives cube ${JSON.stringify(cube)} ${JSON.stringify(member)}, which is not a member name such as "${cube}.tenant"`,
      );
    checked.set(cube, member);
  }
  return checked;
}

function tenantFilter(members: Readonly<Record<string, string>>): QueryRewrite {
  const tenantMembers = checkedMembers(members);
  return (query, context) => {
    const tenant = tenantOf(context);
    const refuse: Refuse = (why) => {
      throw forbidden(`The query cannot be kept to its tenant: ${why}`);
    };
    if (!isRecord(query)) return refuse('it is not an object');
    const filtered = new Set<string>();
    for (const cube of readCubes(query, refuse)) {
      filtered.add(tenantMembers.get(cube) ?? refuse(`it reads ${quote(cube)}, which has no tenant member`));
    }
    const filters = [...filtered].map((member) => ({ member, operator: 'equals', values: [tenant] }));
    return { ...query, filters: [...listIn(query, 'filters', refuse), ...filters] };
  };
}

/**
 * {@link cubesOf}, failing closed on what no check above foresaw (a getter that throws, say): whatever cannot be read
 * is a 403, never a 500 (docs/security.md, "Security notes").
 */
function readCubes(query: Record<string, unknown>, refuse: Refuse): Set<string> {
  try {
    return cubesOf(query, refuse);
  } catch (error) {
    if (error instanceof DualAuthError) throw error;
    return refuse('it cannot be read');
  }
}

/**
 * The Cube options of a hook, as property descriptors for its `checkAuth`: getters that throw a `DualAuthConfigError`
 * when the options give them nothing to read, so `cube.js` stops Cube at start instead of refusing every request.
 */
export function cubeOptionsOf(options: ResolvedOptions): { readonly [K in CubeOptionName]: PropertyDescriptor } {
  const { authorization, names } = options;
  // Not enumerable: whatever lists a hook's members (a log, a copy of the options) must not trip the check.
  const needs = (name: string, value: unknown, tenant: boolean): PropertyDescriptor => ({
    get: () => {
      if (authorization === undefined || (tenant && !authorization.tenant)) {
        const what = tenant
          ? `a tenant claim (${names.tenantClaim})`
          : `authorization (${names.tenantClaim}, ${names.groupsClaim}, ${names.serviceGroups} or another of its settings)`;
        throw new DualAuthConfigError(
          name,
          `reads what the hook puts in the security context, which needs ${what}: set it`,
        );
      }
      return value;
    },
  });
  return {
    contextToGroups: needs('contextToGroups', groupsOf, false),
    contextToAppId: needs('contextToAppId', appId, true),
    contextToOrchestratorId: needs('contextToOrchestratorId', appId, true),
    tenantFilter: needs('tenantFilter', tenantFilter, true),
  };
}
