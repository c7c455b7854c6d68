// The README's Cube 1.x set-up, as a user follows it, in real Cube 1.7.43: examples/access-policies/ (cube.js is
// `{ checkAuth, contextToGroups, logger }` and nothing else; the model's access policies), configured by the README's
// environment for a Keycloak-style identity provider (test/support/readme-set-up.ts). That provider is declared in
// CUBE_DUAL_AUTH_PROVIDERS instead of CUBEJS_JWK_URL, beside a Cognito-shaped and an Okta-shaped issuer whose tokens
// write their groups in other formats (docs/authorization.md#claim-formats): the same Cube start serves all three.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../../scripts/ensure-cube.mjs';
import type { CubeAnswer } from '../support/real-cube';
import { AUDIENCE, readmeSetUp } from '../support/readme-set-up';
import { rowsOf } from './real-cube-scenarios';

const example = join(repoRoot, 'examples/access-policies');
const COGNITO = 'https://cognito-idp.eu-west-1.amazonaws.com/eu-west-1_Ab12Cd34';
const OKTA = 'https://acme.okta.example/oauth2/default';
const setUp = readmeSetUp({
  // The README's issuer and JWKS, as one provider of three; the other two are served by the same keys (signClaims).
  environment: ({ CUBEJS_JWK_URL: jwksUri, CUBEJS_JWT_ISSUER: issuer, ...readme }) => ({
    ...readme,
    CUBE_DUAL_AUTH_PROVIDERS: JSON.stringify([
      { issuer, jwksUri },
      { issuer: COGNITO, jwksUri, groupsClaim: 'custom:groups', groupsClaimFormat: 'json' },
      { issuer: OKTA, jwksUri, groupsClaim: 'scope', groupsClaimFormat: 'space' },
    ]),
  }),
  line: '1',
  cubeJs: readFileSync(join(example, 'cube.js'), 'utf8'),
  modelDir: join(example, 'model'),
  apps: {
    'acme-analyst': { tenant_id: 'acme', realm_access: { roles: ['analyst'] } },
    'globex-analyst': { tenant_id: 'globex', realm_access: { roles: ['analyst'] } },
    'acme-viewer': { tenant_id: 'acme', realm_access: { roles: ['viewer'] } },
    'acme-admin': { tenant_id: 'acme', realm_access: { roles: ['admin'] } },
  },
});
const { load, asService, asIdp } = setUp;

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

describe('Cube 1.7.43: groups written in other formats reach the same access policies', () => {
  const signed = (claims: Record<string, unknown>) => ({
    Authorization: setUp.identityProvider().signClaims({ aud: AUDIENCE, ...claims }),
  });
  // Cognito's ID token: its own claims, the tenant and the groups as custom attributes, which Cognito keeps as strings.
  const cognito = (groups: unknown) =>
    signed({
      iss: COGNITO,
      sub: 'c0ffee00-1111-2222-3333-444455556666',
      token_use: 'id',
      'cognito:username': 'ana',
      tenant_id: 'acme',
      'custom:groups': groups,
    });
  // Okta's access token (cid, uid, scp), with the groups as an OAuth scope string (RFC 9068's `scope`).
  const okta = (scope: unknown) =>
    signed({
      iss: OKTA,
      sub: 'ana@acme.example',
      cid: '0oa1b2c3',
      uid: '00u1b2c3',
      scp: ['openid'],
      tenant_id: 'globex',
      scope,
    });

  it('reads a Cognito JSON string and an Okta space-separated scope as groups, each to its own tenant', async () => {
    expectRows(await load(COUNT_BY_REGION, cognito('["analyst"]')), ACME_COUNTS);
    expectRows(await load(COUNT_BY_REGION, okta('openid profile analyst')), GLOBEX_COUNTS);
    expectDenied(await load(TOTALS_BY_REGION, cognito('["analyst"]')));
    expectRows(await load(TOTALS_BY_REGION, cognito('["viewer","admin"]')), [
      { 'orders.tenant': 'acme', 'orders.region': 'amer', 'orders.total_amount': 320 },
      { 'orders.tenant': 'acme', 'orders.region': 'emea', 'orders.total_amount': 200 },
    ]);
    expectRows(await load(ORDER_COUNT_BY_REGION, okta('openid viewer')), [
      { 'orders.tenant': 'globex', 'orders.region': 'apac', 'orders.order_count': 1 },
      { 'orders.tenant': 'globex', 'orders.region': 'emea', 'orders.order_count': 2 },
    ]);
    expectDenied(await load(COUNT_BY_REGION, okta('openid viewer')));
  });

  it.each<[string, () => Record<string, string>, string]>([
    [
      'a Cognito group not written as JSON',
      () => cognito('analyst'),
      'groups claim "custom:groups" is not in its declared format json: it is not JSON',
    ],
    [
      'a Cognito list where a string is declared',
      () => cognito(['analyst']),
      'groups claim "custom:groups" is not in its declared format json: it is a list, not a string',
    ],
    [
      'an Okta scope sent as a list',
      () => okta(['analyst']),
      'groups claim "scope" is not in its declared format space: it is a list, not a string',
    ],
  ])('refuses %s with 403 naming the claim, never reading it as one odd group', async (_, headers, message) => {
    const answer = await load(COUNT_BY_REGION, headers());
    expect(answer.status, answer.text).toBe(403);
    expect(answer.body).toEqual({ error: `The token's ${message}` });
  });
});

describe("Cube 1.7.43: no whole token in Cube's log with the README's cube.js (its `logger`)", () => {
  it('after the requests of the trial: accepted, a valid identity-provider token sent with Request-Origin, expired, a service token without it', async () => {
    await setUp.expectNoWholeTokenAfterTrial(COUNT_BY_REGION, 'acme-analyst', {
      tenant_id: 'acme',
      roles: ['analyst'],
    });
  });
});
