// Issue 21, proven in real Cube 0.33.65 (no access policies there): the fixture's cube.js takes `checkAuth`, the
// `tenantFilter` queryRewrite helper and `logger` from the installed package (test/fixtures/authorization/cube-0.33/).
// The same tokens as on 1.x: service tokens `{ tenant, roles }` signed with the API secret; the identity provider's
// from a real OpenID provider, tenant and groups under a namespaced claim, read by RFC 6901 pointers.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAuthorizationStack, type AuthorizationStack } from '../support/authorization-stack';
import { loadOverHttp, STACK_TRACE_LINE, type CubeAnswer } from '../support/real-cube';
import { rowsOf } from './real-cube-scenarios';

const INSTALL_AND_START_TIMEOUT_MS = 15 * 60_000;
const JWT_SHAPED = /eyJ[\w-]*\.eyJ[\w-]*\.[\w-]+/;

const TOTALS_BY_TENANT_AND_REGION = {
  measures: ['orders.count', 'orders.total_amount'],
  dimensions: ['orders.tenant', 'orders.region'],
  order: { 'orders.tenant': 'asc', 'orders.region': 'asc' },
};
const ACME_TOTALS = [
  { 'orders.tenant': 'acme', 'orders.region': 'amer', 'orders.count': 2, 'orders.total_amount': 320 },
  { 'orders.tenant': 'acme', 'orders.region': 'emea', 'orders.count': 2, 'orders.total_amount': 200 },
];
const GLOBEX_TOTALS = [
  { 'orders.tenant': 'globex', 'orders.region': 'apac', 'orders.count': 1, 'orders.total_amount': 45 },
  { 'orders.tenant': 'globex', 'orders.region': 'emea', 'orders.count': 2, 'orders.total_amount': 1035 },
];

describe("Cube 0.33.65: tenantFilter keeps both callers to the tenant cube-dual-auth gives them", () => {
  let stack: AuthorizationStack;

  beforeAll(async () => {
    stack = await startAuthorizationStack('0.33', 'cube-0.33');
  }, INSTALL_AND_START_TIMEOUT_MS);

  afterAll(async () => {
    await stack?.stop();
  });

  const load = (query: object, headers: Record<string, string>): Promise<CubeAnswer> => loadOverHttp(stack.cube.apiUrl, query, headers);
  const asService = (context: object) => ({ Authorization: stack.serviceToken(context), ...stack.serviceHeaders });
  const asIdp = async (app: Parameters<AuthorizationStack['idpToken']>[0]) => ({ Authorization: await stack.idpToken(app) });

  function expectRows(answer: CubeAnswer, rows: unknown[]): void {
    expect(answer.status, answer.text).toBe(200);
    expect(rowsOf(answer.body)).toEqual(rows);
  }

  /** A 403 with the message, no stack trace (0.33 answers a queryRewrite error with its `stack` beside it). */
  function expectRefused(answer: CubeAnswer, error: string | RegExp): void {
    expect(answer.status, answer.text).toBe(403);
    expect(answer.body['error']).toMatch(error);
    expect(answer.text).not.toMatch(STACK_TRACE_LINE);
  }

  it("serves the service's token (HS256, Request-Origin: embeddable) its tenant's rows only", async () => {
    expectRows(await load(TOTALS_BY_TENANT_AND_REGION, asService({ tenant: 'acme', roles: ['analyst'] })), ACME_TOTALS);
    expectRows(await load(TOTALS_BY_TENANT_AND_REGION, asService({ tenant: 'globex', roles: ['analyst'] })), GLOBEX_TOTALS);
  });

  it("serves the identity provider's tokens (RS256, tenant at a pointer) their tenant's rows only", async () => {
    expectRows(await load(TOTALS_BY_TENANT_AND_REGION, await asIdp('acme-admin')), ACME_TOTALS);
    expectRows(await load(TOTALS_BY_TENANT_AND_REGION, await asIdp('globex-admin')), GLOBEX_TOTALS);
  });

  it("keeps a caller's own filter on another tenant to its tenant: no rows", async () => {
    const query = { ...TOTALS_BY_TENANT_AND_REGION, filters: [{ member: 'orders.tenant', operator: 'equals', values: ['globex'] }] };
    expectRows(await load(query, asService({ tenant: 'acme', roles: ['analyst'] })), []);
    expectRows(await load(query, await asIdp('acme-admin')), []);
  });

  it('refuses a query reading a cube without a tenant member with 403, from either caller', async () => {
    const query = { measures: ['products.count'] };
    const refusal = /^The query cannot be kept to its tenant: it reads "products", which has no tenant member/;
    expectRefused(await load(query, asService({ tenant: 'acme', roles: ['analyst'] })), refusal);
    expectRefused(await load(query, await asIdp('acme-admin')), refusal);
    expectRefused(await load({ ...TOTALS_BY_TENANT_AND_REGION, dimensions: ['orders.tenant', 'products.product'] }, await asIdp('acme-admin')), refusal);
  });

  it('refuses a token without the tenant at the hook with 403 (ERR_TENANT_MISSING)', async () => {
    expect((await load(TOTALS_BY_TENANT_AND_REGION, asService({ roles: ['analyst'] }))).body).toEqual({ error: 'The token has no tenant claim "tenant"' });
    const answer = await load(TOTALS_BY_TENANT_AND_REGION, await asIdp('no-tenant'));
    expect(answer.status, answer.text).toBe(403);
    expect(answer.body).toEqual({ error: 'The token has no tenant claim "/https:~1~1cube.example~1claims/tenant"' });
  });

  it("keeps every token out of Cube's output through the package's logger, after a run of refusals with tokens", async () => {
    const refusals = [
      { Authorization: stack.serviceToken({ tenant: 'acme', roles: ['analyst'] }) }, // no Request-Origin: HS256 on the key-set path
      { Authorization: await stack.idpToken('acme-admin'), ...stack.serviceHeaders }, // RS256 on the shared-secret path
      asService({ roles: ['analyst'] }), // no tenant
      await asIdp('no-tenant'),
    ];
    for (const headers of refusals) expect((await load(TOTALS_BY_TENANT_AND_REGION, headers)).status).toBe(403);
    const output = stack.cube.recentLogs();
    expect(output).toMatch(/\[token\]/);
    expect(output).not.toMatch(JWT_SHAPED);
    for (const token of stack.tokens) expect(output).not.toContain(token);
  });
});
