// The README's Cube 1.x set-up, as a user follows it, in real Cube 1.7.43: examples/access-policies/ (cube.js is
// `{ checkAuth, contextToGroups, logger }` and nothing else; the model's access policies), configured by the README's
// environment (CUBEJS_JWK_URL, CUBEJS_JWT_AUDIENCE, CUBEJS_JWT_ISSUER, a Keycloak-style identity provider's
// `tenant_id` and `/realm_access/roles`, CUBE_DUAL_AUTH_SERVICE_GROUPS), the data source from Cube's own variables.
// Cube's output is kept raw (the API secret masked only), so the test sees what a reader of Cube's log would.
import { randomBytes } from 'node:crypto';
import { cpSync, mkdirSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import jwt from 'jsonwebtoken';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureCube, repoRoot } from '../../scripts/ensure-cube.mjs';
import { startCube, type RunningCube } from '../../scripts/lib/cube-server.mjs';
import { startIdentityProvider, type RunningIdentityProvider } from '../../scripts/lib/identity-provider.mjs';
import { loadOverHttp, type CubeAnswer } from '../support/real-cube';
import { rowsOf } from './real-cube-scenarios';

const INSTALL_AND_START_TIMEOUT_MS = 15 * 60_000;
const AUDIENCE = 'https://cube.example/api';
const JWT_SHAPED = /eyJ[\w-]*\.[\w-]*\.[\w-]+/;

/** The identity provider's applications, by client id: Keycloak-style claims of the tokens it issues them. */
const IDP_APPS = {
  'acme-analyst': { tenant_id: 'acme', realm_access: { roles: ['analyst'] } },
  'globex-analyst': { tenant_id: 'globex', realm_access: { roles: ['analyst'] } },
  'acme-viewer': { tenant_id: 'acme', realm_access: { roles: ['viewer'] } },
  'acme-admin': { tenant_id: 'acme', realm_access: { roles: ['admin'] } },
} as const;
type IdpApp = keyof typeof IDP_APPS;

let cube: RunningCube;
let identityProvider: RunningIdentityProvider;
let apiSecret: string;
let projectDir: string;
const cubeOutput: string[] = [];

beforeAll(async () => {
  const installed = await ensureCube({ line: '1' });
  projectDir = join(installed.projectDir, `.access-policies-${process.pid}`);
  rmSync(projectDir, { recursive: true, force: true });
  mkdirSync(projectDir);
  for (const file of ['cube.js', 'model'])
    cpSync(join(repoRoot, 'examples/access-policies', file), join(projectDir, file), { recursive: true });
  // The seeded orders of examples/cube-project, written to a database file that CUBEJS_DB_NAME names.
  const database = join(projectDir, 'orders.sqlite');
  // (the line's copy of examples/cube-project/data/, which finds the line's sqlite3)
  const { createShopDatabase } = createRequire(join(installed.projectDir, 'cube.js'))('./data/shop-db.js') as {
    createShopDatabase(): Promise<{ exec(sql: string, done: (error: Error | null) => void): void }>;
  };
  const seeded = await createShopDatabase();
  await new Promise<void>((resolve, reject) =>
    seeded.exec(`VACUUM INTO '${database}'`, (error) => (error ? reject(error) : resolve())),
  );
  apiSecret = randomBytes(32).toString('base64url');
  identityProvider = await startIdentityProvider({
    audience: AUDIENCE,
    apps: Object.entries(IDP_APPS).map(([clientId, claims]) => ({ clientId, claims })),
  });
  cube = await startCube({
    projectDir,
    cubeDir: installed.projectDir,
    line: installed.line,
    env: {
      CUBEJS_DB_NAME: database,
      CUBEJS_API_SECRET: apiSecret,
      CUBEJS_JWK_URL: identityProvider.jwksUrl,
      CUBEJS_JWT_AUDIENCE: AUDIENCE,
      CUBEJS_JWT_ISSUER: identityProvider.issuer,
      CUBE_DUAL_AUTH_TENANT_CLAIM: 'tenant_id',
      CUBE_DUAL_AUTH_GROUPS_CLAIM: '/realm_access/roles',
      CUBE_DUAL_AUTH_SERVICE_GROUPS: 'embeddable',
    },
    redact: (text: string) => text.split(apiSecret).join('[secret]'),
    onLine: (line: string) => cubeOutput.push(line),
  });
}, INSTALL_AND_START_TIMEOUT_MS);

afterAll(async () => {
  await cube?.stop();
  await identityProvider?.close();
  if (projectDir) rmSync(projectDir, { recursive: true, force: true });
});

/** The service's headers: its token for `securityContext` (signed as it signs them), and its Request-Origin. */
function asService(securityContext: object, { withOrigin = true } = {}): Record<string, string> {
  const now = Math.floor(Date.now() / 1000);
  const token = jwt.sign({ ...securityContext, iat: now, exp: now + 300 }, apiSecret, { algorithm: 'HS256' });
  return { Authorization: token, ...(withOrigin && { 'Request-Origin': 'embeddable' }) };
}
const asIdp = async (app: IdpApp) => ({ Authorization: await identityProvider.issueToken(app) });
const load = (query: object, headers: Record<string, string>) => loadOverHttp(cube.apiUrl, query, headers);
function expectRows(answer: CubeAnswer, rows: unknown[]): void {
  expect(answer.status, answer.text).toBe(200);
  expect(rowsOf(answer.body)).toEqual(rows);
}

const COUNT_BY_REGION = {
  measures: ['orders.count'],
  dimensions: ['orders.tenant', 'orders.region'],
  order: { 'orders.tenant': 'asc', 'orders.region': 'asc' },
};

const ACME_COUNTS = [
  { 'orders.tenant': 'acme', 'orders.region': 'amer', 'orders.count': 2 },
  { 'orders.tenant': 'acme', 'orders.region': 'emea', 'orders.count': 2 },
];
const GLOBEX_COUNTS = [
  { 'orders.tenant': 'globex', 'orders.region': 'apac', 'orders.count': 1 },
  { 'orders.tenant': 'globex', 'orders.region': 'emea', 'orders.count': 2 },
];
const TOTALS_BY_REGION = { ...COUNT_BY_REGION, measures: ['orders.total_amount'] };
const ORDER_COUNT_BY_REGION = { ...COUNT_BY_REGION, measures: ['orders.order_count'] };
const COUNT_OF_ORDER_3 = {
  measures: ['orders.count'],
  dimensions: ['orders.region'],
  filters: [{ member: 'orders.id', operator: 'equals', values: ['3'] }],
};

// Cube's denial (CompilerApi.applyRowLevelSecurity): no policy grants a queried member, so the query answers no rows.
const expectDenied = (answer: CubeAnswer) => expectRows(answer, []);

describe("Cube 1.7.43: the README's Cube 1.x set-up (examples/access-policies), both callers through one policy", () => {
  it("gives each identity-provider analyst its own tenant's rows, without contextToAppId", async () => {
    expectRows(await load(COUNT_BY_REGION, await asIdp('acme-analyst')), ACME_COUNTS);
    expectRows(await load(COUNT_BY_REGION, await asIdp('globex-analyst')), GLOBEX_COUNTS);
  });

  it("denies an analyst the amounts, and gives an admin and the service's tokens every member of their tenant", async () => {
    expectDenied(await load(TOTALS_BY_REGION, await asIdp('acme-analyst')));
    expectRows(await load(TOTALS_BY_REGION, await asIdp('acme-admin')), [
      { 'orders.tenant': 'acme', 'orders.region': 'amer', 'orders.total_amount': 320 },
      { 'orders.tenant': 'acme', 'orders.region': 'emea', 'orders.total_amount': 200 },
    ]);
    expectRows(await load(COUNT_BY_REGION, asService({ tenant_id: 'globex' })), GLOBEX_COUNTS);
    expectRows(await load(COUNT_BY_REGION, asService({ tenant_id: 'acme', roles: ['analyst'] })), ACME_COUNTS);
  });

  // Listing `orders.id` itself is not asserted here: the preload cannot format a hidden primary key's values
  // (scripts/lib/cube-1-patches.cjs needs an annotation); a filter on it reaches the key just as well.
  it('lets an analyst query by id: its policy lists the primary key, which `count` needs', async () => {
    expectRows(await load(COUNT_OF_ORDER_3, await asIdp('acme-analyst')), [
      { 'orders.region': 'amer', 'orders.count': 1 },
    ]);
  });

  it('counts for a viewer without the primary key (a `number` measure of COUNT(*)), and denies it the ids', async () => {
    expectRows(await load(ORDER_COUNT_BY_REGION, await asIdp('acme-viewer')), [
      { 'orders.tenant': 'acme', 'orders.region': 'amer', 'orders.order_count': 2 },
      { 'orders.tenant': 'acme', 'orders.region': 'emea', 'orders.order_count': 2 },
    ]);
    expectDenied(await load(COUNT_BY_REGION, await asIdp('acme-viewer')));
    expectDenied(await load({ ...COUNT_OF_ORDER_3, measures: ['orders.order_count'] }, await asIdp('acme-viewer')));
  });
});

describe("Cube 1.7.43: no whole token in Cube's log with the README's cube.js (its `logger`)", () => {
  it('after the requests of the trial: accepted, a valid identity-provider token sent with Request-Origin, expired, a service token without it', async () => {
    const idpToken = await identityProvider.issueToken('acme-analyst');
    const now = Math.floor(Date.now() / 1000);
    // Signed by the identity provider an hour ago for 300 s (jsonwebtoken counts expiresIn from the payload's iat).
    const expired = identityProvider.signClaims({
      iss: identityProvider.issuer,
      aud: AUDIENCE,
      ...IDP_APPS['acme-analyst'],
      iat: now - 3600,
    });
    const service = asService({ tenant_id: 'acme', roles: ['analyst'] });
    const requests: Array<[Record<string, string>, number]> = [
      [{ Authorization: idpToken }, 200],
      [service, 200],
      [{ Authorization: idpToken, 'Request-Origin': 'embeddable' }, 403],
      [{ Authorization: expired }, 403],
      [{ Authorization: service['Authorization']! }, 403],
      [asService({ tenant_id: 'acme' }, { withOrigin: false }), 403],
    ];
    for (const [headers, status] of requests) {
      const answer = await load(COUNT_BY_REGION, headers);
      expect(answer.status, answer.text).toBe(status);
    }
    const output = cubeOutput.join('\n');
    // Counted, not shown: a failure must not print the tokens it found.
    expect(output.match(new RegExp(JWT_SHAPED, 'g'))?.length ?? 0, "whole JWTs in Cube's log").toBe(0);
    // Cube logged the refusals, each with its token field masked by the package's logger.
    expect(output.match(/"token":"\[token\]"/g)?.length).toBeGreaterThanOrEqual(4);
  });
});
