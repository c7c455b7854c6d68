// Issue 21, proven in real Cube 1.7.43: authorization from cube-dual-auth with Cube's own data access policies. The
// fixture's cube.js is `{ checkAuth, contextToGroups, contextToAppId, contextToOrchestratorId, logger }` from the
// installed package (and the SQLite driver, a database per tenant); its JavaScript model holds access_policy: a
// row-level filter on securityContext.tenant for two groups, member-level includes for `analyst`, every member for
// `admin` (test/fixtures/authorization/cube-1/). Policies are
// evaluated by Cube's own CompilerApi (applyRowLevelSecurity), untouched by the preload (scripts/lib/cube-1-preload.cjs).
// Service tokens are `{ tenant, roles }` signed with the API secret; the identity provider's tokens come from a real
// OpenID provider with tenant and groups under a namespaced claim, read by RFC 6901 pointers.
import { describe, expect, it } from 'vitest';
import { WORKFORCE_GROUP, type AuthorizationStack } from '../support/authorization-stack';
import {
  ACME_TOTALS,
  authorizationSuite,
  GLOBEX_TOTALS,
  TOTALS_BY_TENANT_AND_REGION,
} from '../support/authorization-suite';
import { CubeSocket, STACK_TRACE_LINE, type CubeAnswer, type SocketMessage } from '../support/real-cube';
import { rowsOf } from './real-cube-scenarios';

const COUNT_BY_TENANT_AND_REGION = {
  measures: ['orders.count'],
  dimensions: ['orders.tenant', 'orders.region'],
  order: { 'orders.tenant': 'asc', 'orders.region': 'asc' },
};
const COMPILED_FOR = { dimensions: ['compilation.compiled_for'] };
const OPENED_FOR = { dimensions: ['database.opened_for'] };

const ACME_COUNTS = [
  { 'orders.tenant': 'acme', 'orders.region': 'amer', 'orders.count': 2 },
  { 'orders.tenant': 'acme', 'orders.region': 'emea', 'orders.count': 2 },
];

describe('Cube 1.7.43: access policies over the tenant and groups cube-dual-auth gives both callers', () => {
  let stack: AuthorizationStack;
  const { load, asService, asIdp, expectRows, expectTokensMaskedAfterRefusals } = authorizationSuite(
    '1',
    'cube-1',
    (started) => (stack = started),
  );

  // Cube's denial (CompilerApi.applyRowLevelSecurity): no policy grants a queried member, so the query gets a
  // `1 = 0` segment and answers no rows.
  const expectDenied = (answer: CubeAnswer) => expectRows(answer, []);

  describe('the service (HS256, Request-Origin: embeddable), { tenant: "acme", roles: ["analyst"] }', () => {
    it("sees acme's rows of the analyst's members", async () => {
      expectRows(
        await load(COUNT_BY_TENANT_AND_REGION, asService({ tenant: 'acme', roles: ['analyst'] })),
        ACME_COUNTS,
      );
    });

    it('is denied a member the analyst policy does not include, as Cube denies', async () => {
      expectDenied(await load(TOTALS_BY_TENANT_AND_REGION, asService({ tenant: 'acme', roles: ['analyst'] })));
    });

    it('gains nothing from a groups claim of its own: the hook gives the groups, from roles', async () => {
      const context = { tenant: 'acme', roles: ['analyst'], groups: ['admin'] };
      expectDenied(await load(TOTALS_BY_TENANT_AND_REGION, asService(context)));
      expectRows(await load(COUNT_BY_TENANT_AND_REGION, asService(context)), ACME_COUNTS);
    });

    it('sees its own tenant only, whatever it filters on', async () => {
      const query = {
        ...COUNT_BY_TENANT_AND_REGION,
        filters: [{ member: 'orders.tenant', operator: 'equals', values: ['globex'] }],
      };
      expectDenied(await load(query, asService({ tenant: 'acme', roles: ['analyst'] })));
    });
  });

  describe("the identity provider's tokens (RS256), tenant and groups under a namespaced claim", () => {
    it("an admin sees its tenant's rows with every member", async () => {
      expectRows(await load(TOTALS_BY_TENANT_AND_REGION, await asIdp('acme-admin')), ACME_TOTALS);
      expectRows(await load(TOTALS_BY_TENANT_AND_REGION, await asIdp('globex-admin')), GLOBEX_TOTALS);
    });

    it("an analyst sees its tenant's rows of the analyst's members, and is denied the others", async () => {
      expectRows(await load(COUNT_BY_TENANT_AND_REGION, await asIdp('acme-analyst')), ACME_COUNTS);
      expectDenied(await load(TOTALS_BY_TENANT_AND_REGION, await asIdp('acme-analyst')));
    });

    it('a policy listing `count` without the primary key is denied `count`: Cube counts the key', async () => {
      expectDenied(await load(COUNT_BY_TENANT_AND_REGION, await asIdp('acme-counter')));
    });

    it('a group no policy names is denied, as Cube denies', async () => {
      expectDenied(await load(COUNT_BY_TENANT_AND_REGION, await asIdp('acme-intern')));
    });
  });

  describe("two identity providers: one provider's fixed groups never reach another provider's tokens", () => {
    const COUNT_BY_TENANT = { measures: ['orders.count'], dimensions: ['orders.tenant'] };

    it("gives every workforce token the provider's group, and its policy's rows", async () => {
      expectRows(await load(COUNT_BY_TENANT, { Authorization: await stack.workforceToken('workforce-acme') }), [
        { 'orders.tenant': 'acme', 'orders.count': 4 },
      ]);
    });

    it("never gives it to the other provider's tokens, nor to the service's", async () => {
      expectDenied(await load(COUNT_BY_TENANT, await asIdp('acme-intern')));
      expectDenied(await load(COUNT_BY_TENANT, asService({ tenant: 'acme', roles: ['intern'] })));
    });

    it('refuses a token of another provider, or of the service, that claims it (ERR_GROUPS_INVALID)', async () => {
      const refusal = {
        error: `The token's groups claim "/https:~1~1cube.example~1claims/groups" names "${WORKFORCE_GROUP}", which this deployment gives by configuration only`,
      };
      const fromIdp = await load(COUNT_BY_TENANT, await asIdp('acme-claims-auditor'));
      expect(fromIdp.status, fromIdp.text).toBe(403);
      expect(fromIdp.body).toEqual(refusal);
      const fromService = await load(COUNT_BY_TENANT, asService({ tenant: 'acme', roles: [WORKFORCE_GROUP] }));
      expect(fromService.status, fromService.text).toBe(403);
      expect(fromService.body).toEqual({
        error: `The token's groups claim "roles" names "${WORKFORCE_GROUP}", which this deployment gives by configuration only`,
      });
    });
  });

  describe("/meta: the members each caller's policies show (CompilerApi.patchVisibilityByAccessPolicy)", () => {
    async function ordersMembers(
      headers: Record<string, string>,
    ): Promise<{ measures: string[]; dimensions: string[] }> {
      const response = await fetch(`${stack.cube.apiUrl}/meta`, { headers, signal: AbortSignal.timeout(15_000) });
      const text = await response.text();
      expect(response.status, text).toBe(200);
      type Member = { name: string };
      const { cubes } = JSON.parse(text) as {
        cubes: Array<{ name: string; measures: Member[]; dimensions: Member[] }>;
      };
      const orders = cubes.find(({ name }) => name === 'orders');
      return {
        measures: orders?.measures.map(({ name }) => name) ?? [],
        dimensions: orders?.dimensions.map(({ name }) => name) ?? [],
      };
    }

    it("shows the service's analyst the analyst's members only, and an admin of the identity provider every one", async () => {
      expect(await ordersMembers(asService({ tenant: 'acme', roles: ['analyst'] }))).toEqual({
        measures: ['orders.count'],
        dimensions: ['orders.tenant', 'orders.region'],
      });
      const admin = await ordersMembers(await asIdp('acme-admin'));
      expect(admin.measures).toEqual(['orders.count', 'orders.total_amount']);
      expect(admin.dimensions).toEqual(expect.arrayContaining(['orders.tenant', 'orders.region', 'orders.product']));
    });
  });

  describe('a token without the tenant is refused at the hook', () => {
    function expectTenantMissing(answer: CubeAnswer, claim: string): void {
      expect(answer.status, answer.text).toBe(403);
      expect(answer.body).toEqual({ error: `The token has no tenant claim ${JSON.stringify(claim)}` });
      expect(answer.text).not.toMatch(STACK_TRACE_LINE);
    }

    it("from the service (ERR_TENANT_MISSING: no claim 'tenant')", async () => {
      expectTenantMissing(await load(COUNT_BY_TENANT_AND_REGION, asService({ roles: ['analyst'] })), 'tenant');
    });

    it('from the identity provider (ERR_TENANT_MISSING: nothing at the pointer)', async () => {
      expectTenantMissing(
        await load(COUNT_BY_TENANT_AND_REGION, await asIdp('no-tenant')),
        '/https:~1~1cube.example~1claims/tenant',
      );
    });
  });

  describe('contextToAppId and contextToOrchestratorId: one compiled model and one database per tenant, whichever caller asks', () => {
    // Cube compiles a model per contextToAppId answer, with the first request's context as COMPILE_CONTEXT, and builds
    // an orchestrator (drivers, query cache and queue) per contextToOrchestratorId answer, asking the fixture's
    // driverFactory for a database with the context of the first request that needs it. The `compilation` and
    // `database` cubes say whose. Each tenant here is first asked for in this test.
    const whose = async (auth: Record<string, string>) => {
      const compiled = await load(COMPILED_FOR, auth);
      return { compiled, opened: await load(OPENED_FOR, auth) };
    };
    const expectWhose = ({ compiled, opened }: { compiled: CubeAnswer; opened: CubeAnswer }, whom: string) => {
      expectRows(compiled, [{ 'compilation.compiled_for': whom }]);
      expectRows(opened, [{ 'database.opened_for': whom }]);
    };

    it('answers the service from the model and the database the identity provider caused for the same tenant, and the other way round', async () => {
      expectWhose(await whose(await asIdp('initech-admin')), 'initech by identity-provider');
      expectWhose(await whose(asService({ tenant: 'initech', roles: ['analyst'] })), 'initech by identity-provider');
      expectWhose(await whose(asService({ tenant: 'umbrella', roles: ['analyst'] })), 'umbrella by service');
      expectWhose(await whose(await asIdp('umbrella-admin')), 'umbrella by service');
    });
  });

  describe("over WebSocket: the same policies for the identity provider's tokens", () => {
    // WebSocket messages carry no Request-Origin header, so only key-set tokens complete the handshake there.
    it("gives an analyst its tenant's rows of the analyst's members, and denies the others, as over HTTP", async () => {
      const socket = await CubeSocket.open(stack.cube.webSocketUrl);
      const answerTo = (id: number) => (message: SocketMessage) => String(message.messageId) === String(id);
      try {
        socket.send({ authorization: await stack.idpToken('acme-analyst') });
        expect(await socket.next()).toEqual({ handshake: true });
        socket.send({ messageId: 1, method: 'load', params: { query: COUNT_BY_TENANT_AND_REGION } });
        const counts = await socket.next(answerTo(1));
        expect(counts.status, JSON.stringify(counts)).toBe(200);
        expect(rowsOf(counts.message)).toEqual(ACME_COUNTS);
        socket.send({ messageId: 2, method: 'load', params: { query: TOTALS_BY_TENANT_AND_REGION } });
        const totals = await socket.next(answerTo(2));
        expect(totals.status, JSON.stringify(totals)).toBe(200);
        expect(rowsOf(totals.message)).toEqual([]);
      } finally {
        socket.close();
      }
    });
  });

  describe('a view for the service only, by the group every service token gets (CUBE_DUAL_AUTH_SERVICE_GROUPS)', () => {
    // The fixture's `embedded_orders` view has one policy, for `embeddable`; Cube 1.7.43 applies it and the policies of
    // the cube under it (`orders`), so a caller needs a group each of them grants.
    const EMBEDDED_COUNTS = {
      measures: ['embedded_orders.count'],
      dimensions: ['embedded_orders.tenant', 'embedded_orders.region'],
      order: { 'embedded_orders.tenant': 'asc', 'embedded_orders.region': 'asc' },
    };

    it("gives the service's analyst its tenant's rows through the view", async () => {
      expectRows(await load(EMBEDDED_COUNTS, asService({ tenant: 'acme', roles: ['analyst'] })), [
        { 'embedded_orders.tenant': 'acme', 'embedded_orders.region': 'amer', 'embedded_orders.count': 2 },
        { 'embedded_orders.tenant': 'acme', 'embedded_orders.region': 'emea', 'embedded_orders.count': 2 },
      ]);
    });

    it("denies the identity provider's tokens, an admin's too, as Cube denies", async () => {
      expectDenied(await load(EMBEDDED_COUNTS, await asIdp('acme-admin')));
      expectDenied(await load(EMBEDDED_COUNTS, await asIdp('acme-analyst')));
    });

    it("denies a service token with no group the cube's policies grant: the view's policy does not lift them", async () => {
      expectDenied(await load(EMBEDDED_COUNTS, asService({ tenant: 'acme' })));
    });

    it('refuses a token that claims the group itself (ERR_GROUPS_INVALID)', async () => {
      const answer = await load(EMBEDDED_COUNTS, asService({ tenant: 'acme', roles: ['embeddable'] }));
      expect(answer.status, answer.text).toBe(403);
      expect(answer.body).toEqual({
        error:
          'The token\'s groups claim "roles" names "embeddable", which this deployment gives by configuration only',
      });
    });
  });

  describe("the package's logger", () => {
    it("keeps every token out of Cube's output after a run of refusals with tokens", async () => {
      await expectTokensMaskedAfterRefusals(COUNT_BY_TENANT_AND_REGION);
    });
  });
});
