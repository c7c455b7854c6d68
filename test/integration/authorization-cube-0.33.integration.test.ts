// Issue 21, proven in real Cube 0.33.65 (no access policies there): the fixture's cube.js takes `checkAuth`, the
// `tenantFilter` queryRewrite helper and `logger` from the installed package (test/fixtures/authorization/cube-0.33/).
// The same tokens as on 1.x: service tokens `{ tenant, roles }` signed with the API secret; the identity provider's
// from a real OpenID provider, tenant and groups under a namespaced claim, read by RFC 6901 pointers.
import { describe, expect, it } from 'vitest';
import {
  ACME_TOTALS,
  authorizationSuite,
  GLOBEX_TOTALS,
  TOTALS_BY_TENANT_AND_REGION,
} from '../support/authorization-suite';
import { STACK_TRACE_LINE, type CubeAnswer } from '../support/real-cube';

describe('Cube 0.33.65: tenantFilter keeps both callers to the tenant cube-dual-auth gives them', () => {
  const { load, asService, asIdp, expectRows, expectTokensMaskedAfterRefusals } = authorizationSuite(
    '0.33',
    'cube-0.33',
  );

  /** A 403 with the message, no stack trace (0.33 answers a queryRewrite error with its `stack` beside it). */
  function expectRefused(answer: CubeAnswer, error: string | RegExp): void {
    expect(answer.status, answer.text).toBe(403);
    expect(answer.body['error']).toMatch(error);
    expect(answer.text).not.toMatch(STACK_TRACE_LINE);
  }

  it("serves the service's token (HS256, Request-Origin: embeddable) its tenant's rows only", async () => {
    expectRows(await load(TOTALS_BY_TENANT_AND_REGION, asService({ tenant: 'acme', roles: ['analyst'] })), ACME_TOTALS);
    expectRows(
      await load(TOTALS_BY_TENANT_AND_REGION, asService({ tenant: 'globex', roles: ['analyst'] })),
      GLOBEX_TOTALS,
    );
  });

  it("serves the identity provider's tokens (RS256, tenant at a pointer) their tenant's rows only", async () => {
    expectRows(await load(TOTALS_BY_TENANT_AND_REGION, await asIdp('acme-admin')), ACME_TOTALS);
    expectRows(await load(TOTALS_BY_TENANT_AND_REGION, await asIdp('globex-admin')), GLOBEX_TOTALS);
  });

  it("keeps a caller's own filter on another tenant to its tenant: no rows", async () => {
    const query = {
      ...TOTALS_BY_TENANT_AND_REGION,
      filters: [{ member: 'orders.tenant', operator: 'equals', values: ['globex'] }],
    };
    expectRows(await load(query, asService({ tenant: 'acme', roles: ['analyst'] })), []);
    expectRows(await load(query, await asIdp('acme-admin')), []);
  });

  it('refuses a query reading a cube without a tenant member with 403, from either caller', async () => {
    const query = { measures: ['products.count'] };
    const refusal = /^The query cannot be kept to its tenant: it reads "products", which has no tenant member/;
    expectRefused(await load(query, asService({ tenant: 'acme', roles: ['analyst'] })), refusal);
    expectRefused(await load(query, await asIdp('acme-admin')), refusal);
    expectRefused(
      await load(
        { ...TOTALS_BY_TENANT_AND_REGION, dimensions: ['orders.tenant', 'products.product'] },
        await asIdp('acme-admin'),
      ),
      refusal,
    );
  });

  it('refuses a token without the tenant at the hook with 403 (ERR_TENANT_MISSING)', async () => {
    expect((await load(TOTALS_BY_TENANT_AND_REGION, asService({ roles: ['analyst'] }))).body).toEqual({
      error: 'The token has no tenant claim "tenant"',
    });
    const answer = await load(TOTALS_BY_TENANT_AND_REGION, await asIdp('no-tenant'));
    expect(answer.status, answer.text).toBe(403);
    expect(answer.body).toEqual({ error: 'The token has no tenant claim "/https:~1~1cube.example~1claims/tenant"' });
  });

  it("keeps every token out of Cube's output through the package's logger, after a run of refusals with tokens", async () => {
    await expectTokensMaskedAfterRefusals(TOTALS_BY_TENANT_AND_REGION);
  });
});
