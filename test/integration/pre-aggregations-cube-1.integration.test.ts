// Pre-aggregations refreshed per tenant in real Cube 1.7.43 with cube-dual-auth's Cube options. The refresh worker's
// contexts come from cube.js's scheduledRefreshContexts, not through the hook: one for acme and one for globex, each
// with a tenant and groups; then one more without a tenant, and Cube's default (test/fixtures/authorization/cube-1-refresh/).
// Each tenant has its own database (contextToOrchestratorId, driverFactory) holding its own orders only; the fixture
// prints each database opened and each table created, so what the refresh worker did is known before any request
// reaches Cube. Cube's RefreshScheduler and query orchestrator are its own code, untouched by the preload
// (scripts/lib/cube-1-preload.cjs).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAuthorizationStack, type AuthorizationStack } from '../support/authorization-stack';
import { loadOverHttp } from '../support/real-cube';
import { rowsOf } from './real-cube-scenarios';

/** Installing Cube 1.7.43 (once per machine) and starting it with its identity provider. */
const INSTALL_AND_START_TIMEOUT_MS = 15 * 60_000;
/** The refresh worker runs every second (the fixture's scheduledRefreshTimer); its first builds follow Cube's start. */
const REFRESHED_WITHIN_MS = 60_000;
const BY_REGION = {
  measures: ['orders.count', 'orders.total_amount'],
  dimensions: ['orders.region'],
  order: { 'orders.region': 'asc' },
};
const PRE_AGGREGATION = 'prod_pre_aggregations.orders_by_region';
const NO_TENANT =
  "The refresh worker's security context has no tenant: give every context that scheduledRefreshContexts in cube.js returns a securityContext with tenant and groups";

/** A line the fixture printed. */
interface FixtureEvent {
  readonly event: 'database opened' | 'table created';
  readonly tenant: string | null;
  readonly table?: string;
}

/** Cube's output as it comes, the fixture's lines in it, and a wait for what they show. */
function cubeOutput() {
  const lines: string[] = [];
  const printed: FixtureEvent[] = [];
  let waiting: { done: () => boolean; resolve: () => void } | undefined;
  const onLine = (line: string) => {
    lines.push(line);
    if (line.startsWith('{') && line.includes('"fixture":"cube-1-refresh"'))
      printed.push(JSON.parse(line) as FixtureEvent);
    if (waiting?.done()) waiting.resolve();
  };
  const tablesCreated = (tenant: string | null) =>
    printed.filter((event) => event.event === 'table created' && event.tenant === tenant).map(({ table }) => table);
  const databasesOpened = () => printed.filter(({ event }) => event === 'database opened').map(({ tenant }) => tenant);
  /** Resolves once `done` holds, judged at each line Cube prints (the refresh worker runs on Cube's own timer). */
  const until = (done: () => boolean, what: string) =>
    new Promise<void>((resolve, reject) => {
      if (done()) return resolve();
      const deadline = setTimeout(
        () => reject(new Error(`${what} within ${REFRESHED_WITHIN_MS} ms:\n${lines.slice(-40).join('\n')}`)),
        REFRESHED_WITHIN_MS,
      );
      waiting = {
        done,
        resolve: () => {
          clearTimeout(deadline);
          waiting = undefined;
          resolve();
        },
      };
    });
  return { lines, onLine, tablesCreated, databasesOpened, until };
}

/** How a Cube that should stop ended: its exit, or 'still running' after the deadline. */
async function ending(exited: Promise<number | string>): Promise<string> {
  let deadline: NodeJS.Timeout | undefined;
  const late = new Promise<string>((resolve) => (deadline = setTimeout(resolve, REFRESHED_WITHIN_MS, 'still running')));
  const how = await Promise.race([exited.then((code) => `exited (${String(code)})`), late]);
  clearTimeout(deadline);
  return how;
}

describe('Cube 1.7.43: pre-aggregations refreshed for each tenant from scheduledRefreshContexts', () => {
  let stack: AuthorizationStack;
  const output = cubeOutput();

  beforeAll(async () => {
    stack = await startAuthorizationStack('1', 'cube-1-refresh', {
      env: { CUBEJS_REFRESH_WORKER: 'true' },
      onLine: output.onLine,
    });
    // Before any request: what the refresh worker alone opens and builds.
    await output.until(
      () => ['acme', 'globex'].every((tenant) => output.tablesCreated(tenant).length > 0),
      'the refresh worker built no pre-aggregation for acme and globex',
    );
  }, INSTALL_AND_START_TIMEOUT_MS);
  afterAll(async () => {
    await stack?.stop();
  });

  it("builds each tenant's pre-aggregation once, in that tenant's database, and refuses nothing", () => {
    for (const tenant of ['acme', 'globex'])
      expect(output.tablesCreated(tenant)).toEqual([
        expect.stringMatching(new RegExp(`^${PRE_AGGREGATION.replace('.', '\\.')}_`)),
      ]);
    expect(new Set(output.databasesOpened())).toEqual(new Set(['acme', 'globex']));
    expect(output.lines.join('\n')).not.toContain('has no tenant');
  });

  it("answers each tenant's callers, service and identity provider, from that pre-aggregation, with its own rows", async () => {
    const opened = output.databasesOpened().length;
    const acme = await loadOverHttp(stack.cube.apiUrl, BY_REGION, {
      Authorization: stack.serviceToken({ tenant: 'acme', roles: ['analyst'] }),
      ...stack.serviceHeaders,
    });
    expect(acme.status, acme.text).toBe(200);
    expect(rowsOf(acme.body)).toEqual([
      { 'orders.region': 'amer', 'orders.count': 2, 'orders.total_amount': 320 },
      { 'orders.region': 'emea', 'orders.count': 2, 'orders.total_amount': 200 },
    ]);
    const globex = await loadOverHttp(stack.cube.apiUrl, BY_REGION, {
      Authorization: await stack.idpToken('globex-admin'),
    });
    expect(globex.status, globex.text).toBe(200);
    expect(rowsOf(globex.body)).toEqual([
      { 'orders.region': 'apac', 'orders.count': 1, 'orders.total_amount': 45 },
      { 'orders.region': 'emea', 'orders.count': 2, 'orders.total_amount': 1035 },
    ]);
    for (const answer of [acme, globex])
      expect(Object.keys((answer.body['usedPreAggregations'] ?? {}) as object)).toEqual([PRE_AGGREGATION]);
    // Each request found its tenant's orchestrator and database as the refresh worker left them.
    expect(output.databasesOpened()).toHaveLength(opened);
    for (const tenant of ['acme', 'globex']) expect(output.tablesCreated(tenant)).toHaveLength(1);
  });
});

describe.each([
  {
    contexts: 'and-one-without-tenant',
    what: "scheduledRefreshContexts with one context without a tenant, beside acme's and globex's",
  },
  { contexts: 'cube-default', what: "no scheduledRefreshContexts: Cube's default, one empty context" },
])('Cube 1.7.43 with contextToOrchestratorId and $what', ({ contexts }) => {
  const output = cubeOutput();
  let stopped: string;

  beforeAll(async () => {
    const env = { CUBEJS_REFRESH_WORKER: 'true', FIXTURE_REFRESH_CONTEXTS: contexts };
    // Cube stops at the refresh worker's first run, about a second after it starts listening: before or after the
    // stack has seen it ready.
    stopped = await startAuthorizationStack('1', 'cube-1-refresh', { env, onLine: output.onLine }).then(
      async (stack) => {
        const how = await ending(stack.cube.exited);
        await stack.stop();
        return how;
      },
      (error: Error) => error.message,
    );
  }, INSTALL_AND_START_TIMEOUT_MS);

  it('refuses the context without a tenant in contextToOrchestratorId, naming scheduledRefreshContexts, which stops Cube', () => {
    expect(output.lines.join('\n')).toContain(NO_TENANT);
    expect(stopped).toMatch(/exited \((?!0\))/);
  });

  it('opens no database and builds nothing for it', () => {
    expect(output.databasesOpened().filter((tenant) => tenant !== 'acme' && tenant !== 'globex')).toEqual([]);
    expect(output.tablesCreated(null)).toEqual([]);
  });
});
