// Issue 34 in real Cube 0.33.65 (no access policies there): `cube-dual-auth access` shows the conditions the package's
// tenantFilter (queryRewrite in test/fixtures/authorization/cube-0.33/cube.js) adds for each caller, and its refusal
// of a cube without a tenant member, asked over HTTP with the token itself, as a process.
import { describe, expect, it } from 'vitest';
import { accessSuite } from '../support/access';
import { jsonOf } from '../support/cli';

const SERVICE_ACME = ['--service', '--claims', '{"tenant":"acme","roles":["analyst"]}'];
const PRODUCTS_REFUSED =
  'refused (403): The query cannot be kept to its tenant: it reads "products", which has no tenant member';

interface AccessJson {
  callers: Array<{
    cubes: Array<{ name: string; measures: string[]; dimensions: string[] }>;
    rows: Array<{
      cube: string;
      summary: string;
      status: string;
      conditions: Array<{ sql: string; params: unknown[] }>;
    }>;
  }>;
  comparison: { same: boolean; differences: object[] } | null;
}

describe('Cube 0.33.65: access shows the tenantFilter conditions of each caller', () => {
  const { access, idpTokenFile } = accessSuite('0.33', 'cube-0.33');

  it("shows the service's token every member, its tenant's condition on orders, and products refused", async () => {
    const result = await access([...SERVICE_ACME, '--json']);
    expect(result.code, result.stderr).toBe(0);
    const [service] = jsonOf<AccessJson>(result).callers;
    expect(service?.cubes.map((cube) => cube.name)).toEqual(['orders', 'products']);
    expect(service?.rows).toEqual([
      expect.objectContaining({
        cube: 'orders',
        status: 'conditions',
        conditions: [{ sql: '"orders".tenant = ?', params: ['acme'] }],
      }),
      expect.objectContaining({ cube: 'products', status: 'refused', summary: PRODUCTS_REFUSED }),
    ]);
  });

  it("finds the same data for the service's token and the identity provider's of the same tenant", async () => {
    const admin = await idpTokenFile('acme-admin');
    const result = await access([...SERVICE_ACME, '--compare-token-file', admin]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('    rows         "orders".tenant = ? ["acme"] (/sql of "orders.count")\n');
    expect(result.stdout).toMatch(/\nThe same data: both callers see the same cubes, members and rows\.\n$/);
  });

  it("tells another tenant's caller apart by the condition's parameter", async () => {
    const globex = await idpTokenFile('globex-admin');
    const result = await access([...SERVICE_ACME, '--compare-token-file', globex, '--cube', 'orders']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain(
      [
        '  rows of "orders":',
        '    first   "orders".tenant = ? ["acme"]',
        '    second  "orders".tenant = ? ["globex"]',
        'Not the same data: 1 difference.',
      ].join('\n'),
    );
  });

  it("gives Cube's refusal of a service token without a tenant and verify's fix, exit 1", async () => {
    const result = await access(['--service', '--claims', '{"roles":["analyst"]}']);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain('  Cube           refused the token: The token has no tenant claim "tenant"\n');
    expect(result.stdout).toContain(
      '  fix            Put the tenant in the security context the service signs, under the claim CUBE_DUAL_AUTH_TENANT_CLAIM names.\n',
    );
  });
});
