// What the authorization suites of both Cube lines share (test/integration/authorization-cube-*.integration.test.ts):
// the stack for the suite, requests as each caller sends them, the seed's totals, and the check that the package's
// logger keeps every token out of Cube's output.
import { afterAll, beforeAll, expect } from 'vitest';
import { rowsOf } from '../integration/real-cube-scenarios';
import { startAuthorizationStack, type AuthorizationStack, type IdpApp } from './authorization-stack';
import { loadOverHttp, type CubeAnswer } from './real-cube';

/** Installing a Cube line (once per machine) and starting it with its identity provider. */
const INSTALL_AND_START_TIMEOUT_MS = 15 * 60_000;
const JWT_SHAPED = /eyJ[\w-]*\.eyJ[\w-]*\.[\w-]+/;

export const TOTALS_BY_TENANT_AND_REGION = {
  measures: ['orders.count', 'orders.total_amount'],
  dimensions: ['orders.tenant', 'orders.region'],
  order: { 'orders.tenant': 'asc', 'orders.region': 'asc' },
};
/** The seed's orders of each tenant, by region, as {@link TOTALS_BY_TENANT_AND_REGION} answers them. */
export const ACME_TOTALS = [
  { 'orders.tenant': 'acme', 'orders.region': 'amer', 'orders.count': 2, 'orders.total_amount': 320 },
  { 'orders.tenant': 'acme', 'orders.region': 'emea', 'orders.count': 2, 'orders.total_amount': 200 },
];
export const GLOBEX_TOTALS = [
  { 'orders.tenant': 'globex', 'orders.region': 'apac', 'orders.count': 1, 'orders.total_amount': 45 },
  { 'orders.tenant': 'globex', 'orders.region': 'emea', 'orders.count': 2, 'orders.total_amount': 1035 },
];

export interface AuthorizationSuite {
  /** Loads `query` over Cube's REST API with `headers`. */
  load(query: object, headers: Record<string, string>): Promise<CubeAnswer>;
  /** The headers of the service: its token for `securityContext`, and its Request-Origin. */
  asService(securityContext: object): Record<string, string>;
  /** The headers of an app whose user signed in at the identity provider. */
  asIdp(app: IdpApp): Promise<Record<string, string>>;
  /** The answer is a 200 with these rows. */
  expectRows(answer: CubeAnswer, rows: unknown[]): void;
  /**
   * Sends `query` with tokens the hook refuses (each a 403), then checks Cube's output: Cube logs what it refuses
   * (its 'Auth Error' line carries the request's token) through the logger of cube.js, which masks every token.
   */
  expectTokensMaskedAfterRefusals(query: object): Promise<void>;
}

/**
 * Starts the stack of a Cube line serving `fixture` before the calling `describe` block's tests (handed to `use`,
 * if given, once it runs) and stops it after them; returns what the tests send and check with.
 */
export function authorizationSuite(
  lineId: string,
  fixture: string,
  use?: (stack: AuthorizationStack) => void,
): AuthorizationSuite {
  let stack: AuthorizationStack | undefined;
  beforeAll(async () => {
    stack = await startAuthorizationStack(lineId, fixture);
    use?.(stack);
  }, INSTALL_AND_START_TIMEOUT_MS);
  afterAll(async () => {
    await stack?.stop();
  });
  const started = (): AuthorizationStack => {
    if (stack === undefined) throw new Error('the authorization stack starts in beforeAll');
    return stack;
  };
  const load = (query: object, headers: Record<string, string>): Promise<CubeAnswer> =>
    loadOverHttp(started().cube.apiUrl, query, headers);
  const asService = (securityContext: object) => ({
    Authorization: started().serviceToken(securityContext),
    ...started().serviceHeaders,
  });
  const asIdp = async (app: IdpApp) => ({ Authorization: await started().idpToken(app) });
  return {
    load,
    asService,
    asIdp,
    expectRows(answer, rows) {
      expect(answer.status, answer.text).toBe(200);
      expect(rowsOf(answer.body)).toEqual(rows);
    },
    async expectTokensMaskedAfterRefusals(query) {
      const running = started();
      const refusals = [
        { Authorization: running.serviceToken({ tenant: 'acme', roles: ['analyst'] }) }, // no Request-Origin: HS256 on the key-set path
        { Authorization: await running.idpToken('acme-admin'), ...running.serviceHeaders }, // RS256 on the shared-secret path
        asService({ roles: ['analyst'] }), // no tenant
        await asIdp('no-tenant'),
      ];
      for (const headers of refusals) expect((await load(query, headers)).status).toBe(403);
      const output = running.cube.recentLogs();
      expect(output).toMatch(/\[token\]/);
      expect(output).not.toMatch(JWT_SHAPED);
      for (const token of running.tokens) expect(output).not.toContain(token);
    },
  };
}
