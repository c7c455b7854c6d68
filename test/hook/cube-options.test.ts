import { describe, expect, it } from 'vitest';
import { resolveOptions, type DualAuthOptions } from '../../src/config/options';
import { DualAuthConfigError } from '../../src/errors';
import { cubeOptionsOf, type CubeOptions, type CubeQuery } from '../../src/hook/cube-options';
import { createCheckAuth } from '../../src/hook/check-auth';
import { randomSecret, timed } from '../support/claims';
import { refusalOf, serviceRequest } from '../support/requests';
import { signToken } from '../support/tokens';

const SECRET = randomSecret();

function cubeOptions(options: DualAuthOptions): CubeOptions {
  return Object.defineProperties({}, cubeOptionsOf(resolveOptions({ apiSecret: SECRET, ...options }))) as CubeOptions;
}

const WITH_TENANT = cubeOptions({ tenantClaim: 'tenant_id', serviceGroups: ['embeddable'] });
/** Cube's request context, as its gateway hands it to these options. */
const context = (securityContext: unknown) => ({ securityContext, requestId: 'r-1' });
const ACME = context({ tenant: 'acme', groups: ['analyst', 'embeddable'], tenant_id: 'acme' });

describe('contextToGroups, contextToAppId, contextToOrchestratorId', () => {
  it("read the hook's groups and tenant", () => {
    expect(WITH_TENANT.contextToGroups(ACME)).toEqual(['analyst', 'embeddable']);
    expect(WITH_TENANT.contextToAppId(ACME)).toBe('CUBE_APP_acme');
    expect(WITH_TENANT.contextToOrchestratorId(ACME)).toBe('CUBE_APP_acme');
  });

  it('keep the id of an ordinary tenant: CUBE_APP_<tenant>', () => {
    for (const tenant of ['acme', 'Acme-Corp_2', 'eu.acme', '42', 'a'.repeat(200)]) {
      const cubeContext = context({ tenant, groups: [] });
      expect(WITH_TENANT.contextToAppId(cubeContext)).toBe(`CUBE_APP_${tenant}`);
      expect(WITH_TENANT.contextToOrchestratorId(cubeContext)).toBe(`CUBE_APP_${tenant}`);
    }
  });

  it('encode any other tenant into printable ASCII without spaces, each its own id', () => {
    const tenants = [
      'a b',
      'a%20b',
      'a_b',
      'a\nb',
      'a\r\nb',
      'a\tb',
      'a\u0000b',
      'a\u001b[31mb',
      'a\u007fb',
      ' ',
      '  ',
      '%',
      '%25',
      '%%',
      'a/b',
      'a:b',
      'a+b',
      'a?b',
      'é',
      'e\u0301',
      'ｅ',
      '租户',
      '🦄',
      '\ud83e',
      '\udd84',
      '\udd84\ud83e',
      '\ufffd',
      '\u200b',
      '\u2028',
      'acme',
      'Acme',
    ];
    const ids = tenants.map((tenant) => WITH_TENANT.contextToAppId(context({ tenant, groups: [] })));
    expect(new Set(ids).size).toBe(tenants.length);
    for (const id of ids) expect(id).toMatch(/^CUBE_APP_[\x21-\x7e]+$/);
    expect(ids.slice(0, 3)).toEqual(['CUBE_APP_a%20b', 'CUBE_APP_a%2520b', 'CUBE_APP_a_b']);
    expect(WITH_TENANT.contextToOrchestratorId(context({ tenant: '租户', groups: [] }))).toBe(
      'CUBE_APP_%E7%A7%9F%E6%88%B7',
    );
    // Lossless: the UTF-8 of a well-formed tenant comes back from its id.
    const decoded = (id: string) =>
      Buffer.from(
        id
          .slice('CUBE_APP_'.length)
          .replace(/%([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16))),
        'latin1',
      ).toString('utf8');
    for (const [index, tenant] of tenants.entries()) {
      if (!/\p{Cs}/u.test(tenant)) expect(decoded(ids[index] as string)).toBe(tenant);
    }
  });

  it('fail closed: a context without a tenant is a 403, never a shared app or cache', () => {
    for (const securityContext of [{ groups: [] }, { tenant: '' }, { tenant: 7 }, null, undefined]) {
      for (const option of [WITH_TENANT.contextToAppId, WITH_TENANT.contextToOrchestratorId]) {
        expect(refusalOf(() => option(context(securityContext)))).toMatchObject({
          status: 403,
          code: 'ERR_FORBIDDEN',
          message: 'The security context has no tenant; refusing to answer for every tenant',
        });
      }
    }
    expect(refusalOf(() => WITH_TENANT.contextToAppId(undefined as never)).status).toBe(403);
  });

  it('fail closed: a context without groups is a 403, not an empty set of groups', () => {
    for (const securityContext of [{ tenant: 'acme' }, { groups: 'analyst' }, { groups: ['a', 1] }]) {
      expect(refusalOf(() => WITH_TENANT.contextToGroups(context(securityContext)))).toMatchObject({
        status: 403,
        code: 'ERR_FORBIDDEN',
        message: 'The security context has no groups; refusing to choose access policies without them',
      });
    }
  });

  it("name scheduledRefreshContexts when the refresh worker's context lacks them (its requests are 'scheduler-…')", () => {
    // As Cube's RefreshScheduler builds it from a context of scheduledRefreshContexts (or its default, null).
    const refresh = (securityContext: unknown) => ({ authInfo: null, securityContext, requestId: 'scheduler-4b1f' });
    const advice =
      "The refresh worker's security context has no %s: give every context that scheduledRefreshContexts in cube.js returns a securityContext with tenant and groups; ";
    for (const option of [WITH_TENANT.contextToAppId, WITH_TENANT.contextToOrchestratorId]) {
      expect(refusalOf(() => option(refresh({})))).toMatchObject({
        status: 403,
        message: `${advice.replace('%s', 'tenant')}refusing to answer for every tenant`,
      });
    }
    expect(refusalOf(() => WITH_TENANT.contextToGroups(refresh({ tenant: 'acme' })))).toMatchObject({
      status: 403,
      message: `${advice.replace('%s', 'groups')}refusing to choose access policies without them`,
    });
    expect(WITH_TENANT.contextToOrchestratorId(refresh({ tenant: 'acme', groups: [] }))).toBe('CUBE_APP_acme');
  });

  it('hands Cube a copy of the groups', () => {
    const groups = WITH_TENANT.contextToGroups(ACME);
    groups.push('admin');
    expect(WITH_TENANT.contextToGroups(ACME)).toEqual(['analyst', 'embeddable']);
  });

  it('stop the start, naming what is missing, when the options give them nothing to read', () => {
    const none = cubeOptions({});
    for (const name of ['contextToGroups', 'contextToAppId', 'contextToOrchestratorId', 'tenantFilter'] as const) {
      expect(() => none[name]).toThrow(DualAuthConfigError);
    }
    expect(() => none.contextToGroups).toThrow(
      /^cube-dual-auth: contextToGroups reads what the hook puts in the security context, which needs authorization \(option "tenantClaim", option "groupsClaim", option "serviceGroups" or another of its settings\): set it$/,
    );
    const groupsOnly = cubeOptions({ serviceGroups: ['embeddable'] });
    expect(typeof groupsOnly.contextToGroups).toBe('function');
    expect(() => groupsOnly.contextToAppId).toThrow(
      'cube-dual-auth: contextToAppId reads what the hook puts in the security context, which needs a tenant claim (option "tenantClaim"): set it',
    );
    expect(() => groupsOnly.tenantFilter).toThrow(/^cube-dual-auth: tenantFilter reads/);
  });
});

describe('tenantFilter', () => {
  const rewrite = WITH_TENANT.tenantFilter({
    orders: 'orders.tenant',
    customers: 'customers.tenant_id',
    orders_view: 'orders_view.tenant',
  });
  const tenantFilters = (query: CubeQuery) =>
    (rewrite(query, ACME).filters ?? []).filter((filter) => (filter as { values?: unknown[] }).values?.[0] === 'acme');

  it('adds the tenant filter of every cube a query touches, once each, keeping the query', () => {
    // A member tenantFilter does not read (limit) is kept, with the query's own type.
    const query: CubeQuery & { limit: number } = {
      measures: ['orders.count'],
      dimensions: ['customers.city'],
      filters: [{ member: 'orders.status', operator: 'equals', values: ['paid'] }],
      timeDimensions: [{ dimension: 'orders.created_at', granularity: 'day', dateRange: ['2026-01-01', '2026-01-31'] }],
      order: { 'orders.count': 'desc' },
      limit: 100,
    };
    const rewritten = rewrite(query, ACME);
    expect(rewritten.limit).toBe(100);
    expect(rewritten).toEqual({
      ...query,
      filters: [
        { member: 'orders.status', operator: 'equals', values: ['paid'] },
        { member: 'orders.tenant', operator: 'equals', values: ['acme'] },
        { member: 'customers.tenant_id', operator: 'equals', values: ['acme'] },
      ],
    });
    expect(query.filters).toHaveLength(1);
  });

  it.each<[string, CubeQuery, string[]]>([
    [
      'a segment',
      { measures: ['orders.count'], segments: ['customers.active'] },
      ['orders.tenant', 'customers.tenant_id'],
    ],
    [
      'a filter nested in and/or',
      {
        measures: ['orders.count'],
        filters: [
          {
            or: [
              { member: 'orders.status', operator: 'set' },
              { and: [{ member: 'customers.city', operator: 'equals', values: ['x'] }] },
            ],
          },
        ],
      },
      ['orders.tenant', 'customers.tenant_id'],
    ],
    [
      'a filter by "dimension"',
      { measures: ['orders.count'], filters: [{ dimension: 'customers.city', operator: 'set' }] },
      ['orders.tenant', 'customers.tenant_id'],
    ],
    [
      'a time dimension only',
      { timeDimensions: [{ dimension: 'customers.created_at', granularity: 'month' }] },
      ['customers.tenant_id'],
    ],
    ['a time dimension in dimensions', { dimensions: ['orders.created_at.day'] }, ['orders.tenant']],
    [
      'the order, as an array',
      { measures: ['orders.count'], order: [['customers.city', 'asc']] },
      ['orders.tenant', 'customers.tenant_id'],
    ],
    [
      'a join hint',
      { measures: ['orders.count'], joinHints: [['orders', 'customers']] },
      ['orders.tenant', 'customers.tenant_id'],
    ],
    ['a view', { measures: ['orders_view.count'] }, ['orders_view.tenant']],
    [
      'an SQL API member expression and the cubes its SQL names',
      {
        measures: [{ cubeName: 'orders', name: 'm', expression: ['orders', 'customers', 'return `${orders.amount}`'] }],
      },
      ['orders.tenant', 'customers.tenant_id'],
    ],
    [
      'a patched measure',
      {
        measures: [
          {
            cubeName: 'orders',
            name: 'm',
            expression: {
              type: 'PatchMeasure',
              sourceMeasure: 'orders.count',
              replaceAggregationType: null,
              addFilters: [['customers', 'return `x`']],
            },
          },
        ],
      },
      ['orders.tenant', 'customers.tenant_id'],
    ],
  ])('reads the cubes of %s', (_, query, members) => {
    expect(tenantFilters(query).map((filter) => (filter as { member: string }).member)).toEqual(members);
  });

  it.each<[string, CubeQuery, string]>([
    [
      'a cube it has no tenant member for',
      { measures: ['orders.count'], dimensions: ['products.name'] },
      'it reads "products", which has no tenant member',
    ],
    [
      'such a cube in a nested filter only',
      { measures: ['orders.count'], filters: [{ and: [{ member: 'products.name', operator: 'set' }] }] },
      'it reads "products", which has no tenant member',
    ],
    [
      'such a cube in a join hint only',
      { measures: ['orders.count'], joinHints: [['orders', 'products']] },
      'it reads "products", which has no tenant member',
    ],
    [
      'a member expression that hides its cubes',
      { measures: [{ cubeName: 'orders', name: 'm', expression: () => 'x' }] },
      'the member expression "orders" does not say which cubes it reads',
    ],
    [
      'subquery joins',
      { measures: ['orders.count'], subqueryJoins: [{ sql: 'SELECT 1', on: 'x', joinType: 'LEFT', alias: 'q' }] },
      'it has subquery joins, which a tenant filter cannot reach',
    ],
    [
      'a filter naming no member',
      { measures: ['orders.count'], filters: [{ operator: 'set' }] },
      'a filter names no member',
    ],
    ['a member naming no cube', { measures: ['count'] }, 'the member "count" names no cube'],
  ])('refuses, 403, a query touching %s', (_, query, why) => {
    expect(refusalOf(() => rewrite(query, ACME))).toMatchObject({
      status: 403,
      code: 'ERR_FORBIDDEN',
      message: `The query cannot be kept to its tenant: ${why}`,
    });
  });

  /** `depth` levels of `and` around a filter of orders. */
  const nested = (depth: number): unknown =>
    Array.from({ length: depth }).reduce<unknown>((inner) => ({ and: [inner] }), {
      member: 'orders.status',
      operator: 'set',
    });
  const cyclic: Record<string, unknown[]> = { or: [] };
  cyclic.or?.push(cyclic);
  const throwing = Object.defineProperty({ measures: ['orders.count'] }, 'filters', {
    enumerable: true,
    get: () => {
      throw new TypeError("Cannot read properties of undefined (reading 'map')");
    },
  });

  // Shapes Cube's own validation would refuse, and shapes no caller sends: none may crash the rewrite with a 500.
  it.each<[string, unknown, string]>([
    ['null', null, 'it is not an object'],
    ['a string', 'SELECT 1', 'it is not an object'],
    ['a list', [{ measures: ['orders.count'] }], 'it is not an object'],
    ['"filters" as a string', { measures: ['orders.count'], filters: 'orders.status' }, 'its "filters" is not a list'],
    ['"filters" as an object', { filters: { member: 'orders.status' } }, 'its "filters" is not a list'],
    ['"filters" as null', { measures: ['orders.count'], filters: null }, 'its "filters" is not a list'],
    ['a null filter', { measures: ['orders.count'], filters: [null] }, 'a filter is not an object'],
    ['a filter as a string', { filters: ['orders.status'] }, 'a filter is not an object'],
    ['a filter as a list', { filters: [['orders.status', 'set']] }, 'a filter is not an object'],
    ['"and" as a string', { filters: [{ and: 'orders.status' }] }, 'a filter\'s "and" is not a list'],
    ['"or" as an object', { filters: [{ or: { member: 'orders.status' } }] }, 'a filter\'s "or" is not a list'],
    ['junk nested in "or"', { filters: [{ or: [{ and: [42] }] }] }, 'a filter is not an object'],
    [
      'a filter with a member and "and"',
      { filters: [{ member: 'orders.status', operator: 'set', and: [{ member: 'products.name', operator: 'set' }] }] },
      'a filter has both "member" and "and"',
    ],
    ['a filter with "and" and "or"', { filters: [{ and: [], or: [] }] }, 'a filter has both "and" and "or"'],
    ['a filter whose member is a number', { filters: [{ member: 7, operator: 'set' }] }, 'a filter names no member'],
    ['an empty filter', { measures: ['orders.count'], filters: [{}] }, 'a filter names no member'],
    ['filters nested 40 deep', { filters: [nested(40)] }, 'its filters are nested deeper than 32 levels'],
    ['a filter that contains itself', { filters: [cyclic] }, 'its filters are nested deeper than 32 levels'],
    ['a null time dimension', { timeDimensions: [null] }, 'a time dimension is not an object'],
    ['a time dimension as a string', { timeDimensions: ['orders.created_at'] }, 'a time dimension is not an object'],
    ['"timeDimensions" as a string', { timeDimensions: 'orders.created_at' }, 'its "timeDimensions" is not a list'],
    ['a time dimension without one', { timeDimensions: [{ granularity: 'day' }] }, 'a time dimension names no member'],
    ['a time dimension of null', { timeDimensions: [{ dimension: null }] }, 'a time dimension names no member'],
    ['"measures" as a string', { measures: 'orders.count' }, 'its "measures" is not a list'],
    ['"dimensions" as null', { measures: ['orders.count'], dimensions: null }, 'its "dimensions" is not a list'],
    ['"segments" as an object', { segments: { 'orders.paid': true } }, 'its "segments" is not a list'],
    ['a null measure', { measures: [null] }, 'a member is neither a member name nor a member expression'],
    ['a number as a dimension', { dimensions: [42] }, 'a member is neither a member name nor a member expression'],
    [
      'a list as a segment',
      { segments: [['orders.paid']] },
      'a member is neither a member name nor a member expression',
    ],
    [
      'a member expression naming a cube by a number',
      { measures: [{ cubeName: 'orders', name: 'm', expression: ['orders', 7, 'return `1`'] }] },
      'the member expression "orders" names a cube unreadably',
    ],
    [
      'a patched measure whose "addFilters" is a string',
      { measures: [{ cubeName: 'orders', expression: { sourceMeasure: 'orders.count', addFilters: 'customers' } }] },
      'the member expression "orders" does not say which cubes it reads',
    ],
    [
      'a patched measure filtering by a number',
      { measures: [{ cubeName: 'orders', expression: { sourceMeasure: 'orders.count', addFilters: [[1, 'x']] } }] },
      'the member expression "orders" names a cube unreadably',
    ],
    [
      '"order" as a string',
      { measures: ['orders.count'], order: 'orders.count' },
      'its "order" is neither a list nor an object',
    ],
    ['"order" as null', { measures: ['orders.count'], order: null }, 'its "order" is neither a list nor an object'],
    ['a null item of "order"', { measures: ['orders.count'], order: [null] }, 'an item of its "order" names no member'],
    [
      'an "order" pair without a name',
      { measures: ['orders.count'], order: [[7, 'asc']] },
      'an item of its "order" names no member',
    ],
    ['"joinHints" as a string', { measures: ['orders.count'], joinHints: 'orders' }, 'its "joinHints" is not a list'],
    [
      'a join hint as a string',
      { measures: ['orders.count'], joinHints: ['orders'] },
      'a join hint is not a list of cube names',
    ],
    [
      'a join hint naming null',
      { measures: ['orders.count'], joinHints: [['orders', null]] },
      'a join hint is not a list of cube names',
    ],
    [
      '"subqueryJoins" as an object',
      { measures: ['orders.count'], subqueryJoins: {} },
      'its "subqueryJoins" is not a list',
    ],
    ['a member that throws when read', throwing, 'it cannot be read'],
  ])('refuses, 403, a query it cannot read: %s', (_, query, why) => {
    const error = refusalOf(() => rewrite(query as CubeQuery, ACME));
    expect(error).toMatchObject({
      status: 403,
      type: 'Forbidden',
      code: 'ERR_FORBIDDEN',
      message: `The query cannot be kept to its tenant: ${why}`,
    });
  });

  it('names what it cannot read without echoing it: printable, short, no value of the query but a quoted name', () => {
    const junk = `\u001b]0;pwned\u0007${'x'.repeat(5_000)}\n`;
    for (const query of [
      { filters: junk },
      { filters: [{ member: { toString: () => junk }, operator: 'set' }] },
      { timeDimensions: [junk] },
      { order: junk },
      { joinHints: [[junk, null]] },
      { measures: [`${junk}.count`] },
    ]) {
      const { message } = refusalOf(() => rewrite(query as CubeQuery, ACME));
      expect(message).toMatch(/^The query cannot be kept to its tenant: [\x20-\x7e]+$/);
      expect(message.length).toBeLessThan(160);
      expect(message).not.toContain('pwned\u0007');
    }
  });

  it('keeps every readable shape as it came: Cube 1.7.43 normalized, absent members, {id, desc} order', () => {
    // What Cube 1.7.43's normalizeQuery hands queryRewrite: limit and timezone set, the order as pairs.
    const normalized = {
      measures: ['orders.count'],
      dimensions: [],
      filters: [{ or: [{ member: 'customers.city', operator: 'equals', values: ['x'] }] }],
      timeDimensions: [{ dimension: 'orders.created_at', granularity: 'day', dateRange: ['2026-01-01', '2026-01-31'] }],
      order: [['orders.count', 'desc']],
      limit: 10_000,
      timezone: 'UTC',
    };
    expect(rewrite(normalized, ACME)).toEqual({
      ...normalized,
      filters: [
        ...normalized.filters,
        { member: 'orders.tenant', operator: 'equals', values: ['acme'] },
        { member: 'customers.tenant_id', operator: 'equals', values: ['acme'] },
      ],
    });
    const sparse = { measures: ['orders.count'], segments: undefined, order: [{ id: 'customers.city', desc: true }] };
    expect(tenantFilters(sparse).map((filter) => (filter as { member: string }).member)).toEqual([
      'orders.tenant',
      'customers.tenant_id',
    ]);
    expect(tenantFilters({ measures: ['orders.count'], filters: [nested(32)] })).toHaveLength(1);
  });

  it('refuses a request without a tenant, whatever the query', () => {
    expect(refusalOf(() => rewrite({ measures: ['orders.count'] }, context({ groups: [] })))).toMatchObject({
      status: 403,
      message: 'The security context has no tenant; refusing to answer for every tenant',
    });
  });

  it('quotes what it shows of a query', () => {
    const error = refusalOf(() => rewrite({ measures: [`evil\u001b[31m.count`] }, ACME));
    expect(error.message).toBe(
      'The query cannot be kept to its tenant: it reads "evil?[31m", which has no tenant member',
    );
  });

  it.each<[unknown, string]>([
    [{}, "must be given each cube's tenant member, as { orders: 'orders.tenant' }"],
    [['orders.tenant'], "must be given each cube's tenant member"],
    [{ 'orders.x': 'orders.tenant' }, 'names "orders.x", which is not a cube or view name'],
    [{ orders: 'tenant' }, 'gives cube "orders" "tenant", which is not a member name such as "orders.tenant"'],
  ])('stops the start when given %j', (members, problem) => {
    expect(() => WITH_TENANT.tenantFilter(members as Record<string, string>)).toThrow(
      new DualAuthConfigError('tenantFilter', problem).message,
    );
  });
});

describe("as members of createCheckAuth's hook, from its options", () => {
  it('reads the context its own verification made: the whole set-up for a policy in the model', async () => {
    const checkAuth = createCheckAuth({ apiSecret: SECRET, tenantClaim: 'org', serviceGroups: ['embeddable'] });
    try {
      const req = serviceRequest();
      await checkAuth(req, signToken(timed({ org: 'acme', roles: ['analyst'] }), { alg: 'HS256', key: SECRET }));
      const cubeContext = { securityContext: (req as { securityContext: unknown }).securityContext };
      expect(checkAuth.contextToGroups(cubeContext)).toEqual(['analyst', 'embeddable']);
      expect(checkAuth.contextToAppId(cubeContext)).toBe('CUBE_APP_acme');
      expect(checkAuth.contextToOrchestratorId(cubeContext)).toBe('CUBE_APP_acme');
      expect(
        checkAuth.tenantFilter({ orders: 'orders.tenant' })({ measures: ['orders.count'] }, cubeContext).filters,
      ).toEqual([{ member: 'orders.tenant', operator: 'equals', values: ['acme'] }]);
    } finally {
      checkAuth.close();
    }
  });

  it('throws when taken from a hook whose options configure no authorization, so cube.js stops Cube at start', () => {
    const checkAuth = createCheckAuth({ apiSecret: SECRET });
    try {
      expect(() => ({ contextToGroups: checkAuth.contextToGroups })).toThrow(DualAuthConfigError);
      // Listing the hook's members reads none of them.
      expect(Object.keys(checkAuth)).toEqual(['prefetch', 'close', 'explain']);
    } finally {
      checkAuth.close();
    }
  });
});
