// Issue 34 in real Cube 1.7.43: `cube-dual-auth access` shows what Cube's access policies let each token see, asked
// over HTTP with the token itself, as a process. The fixture (test/fixtures/authorization/cube-1/) grants `analyst`
// some members of `orders` and `admin` all, each with a row_level filter on the tenant; `intern` is named by no
// policy; the view `embedded_orders` is for the service's group only.
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { accessSuite } from '../support/access';
import { jsonOf } from '../support/cli';

const SERVICE_ANALYST = ['--service', '--claims', '{"tenant":"acme","roles":["analyst"]}'];
/** The deadline of the slow Cube's test: /meta of a Cube that has compiled the tenant's model answers well within it. */
const DEADLINE_MS = 10_000;
const ACME_ROWS = '"orders".tenant = ? ["acme"]';

interface AccessJson {
  ok: boolean;
  callers: Array<{
    verifiedHere: { authorization: { tenant: string | null; groups: string[] } | null };
    cube: { accepted: boolean; status: number | null; message: string | null; hint: string | null };
    cubes: Array<{ name: string; type: string; measures: string[]; dimensions: string[] }>;
    rows: Array<{ cube: string; summary: string; denied: boolean; status: string; message: string | null }>;
  }>;
  comparison: { same: boolean; differences: object[] } | null;
}

describe('Cube 1.7.43: access shows what access policies let each token see', () => {
  const { access, idpTokenFile, stack } = accessSuite('1', 'cube-1');

  it("shows the service's analyst its tenant, groups, members, and the analyst policy's row filter", async () => {
    const result = await access([...SERVICE_ANALYST, '--json']);
    expect(result.code, result.stderr).toBe(0);
    const [service] = jsonOf<AccessJson>(result).callers;
    expect(service?.verifiedHere.authorization).toEqual({ tenant: 'acme', groups: ['analyst', 'embeddable'] });
    expect(service?.cubes.find((cube) => cube.name === 'orders')).toMatchObject({
      type: 'cube',
      measures: ['orders.count'],
      dimensions: ['orders.tenant', 'orders.region'],
    });
    expect(service?.rows.find((rows) => rows.cube === 'orders')?.summary).toBe(ACME_ROWS);
    // Its view: the view's own policy and the cube's, both on the tenant.
    expect(service?.rows.find((rows) => rows.cube === 'embedded_orders')?.summary).toBe(
      `${ACME_ROWS} AND ${ACME_ROWS}`,
    );
  });

  it("finds the same data in orders for the service's analyst and the identity provider's analyst of the same tenant", async () => {
    const analyst = await idpTokenFile('acme-analyst');
    const result = await access([...SERVICE_ANALYST, '--compare-token-file', analyst, '--cube', 'orders']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain(`    rows         ${ACME_ROWS} (/sql of "orders.count")\n`);
    expect(result.stdout).toMatch(/\nThe same data: both callers see the same cubes, members and rows\.\n$/);
  });

  it('names the view only the service sees, and the 1 = 0 Cube gives the identity provider for it', async () => {
    const analyst = await idpTokenFile('acme-analyst');
    const result = await access([...SERVICE_ANALYST, '--compare-token-file', analyst]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain(
      [
        '  view "embedded_orders": only the first caller sees it',
        '  rows of "embedded_orders":',
        `    first   ${ACME_ROWS} AND ${ACME_ROWS}`,
        '    second  1 = 0',
        'Not the same data: 2 differences.',
      ].join('\n'),
    );
  });

  it("tells an analyst from an admin by the members the analyst's policy leaves out", async () => {
    const [analyst, admin] = [await idpTokenFile('acme-analyst'), await idpTokenFile('acme-admin')];
    const result = await access(['--token-file', analyst, '--compare-token-file', admin, '--cube', 'orders', '--json']);
    expect(result.code, result.stderr).toBe(0);
    const { comparison } = jsonOf<AccessJson>(result);
    expect(comparison?.same).toBe(false);
    expect(comparison?.differences).toEqual(
      expect.arrayContaining([
        { kind: 'member', cube: 'orders', member: 'orders.total_amount', only: 'second' },
        { kind: 'member', cube: 'orders', member: 'orders.product', only: 'second' },
      ]),
    );
    // The same row filter for both: only members differ.
    expect(comparison?.differences.filter((difference) => 'first' in difference)).toEqual([]);
  });

  it('shows a group no policy names no orders, and the denial Cube gives it there', async () => {
    const [analyst, intern] = [await idpTokenFile('acme-analyst'), await idpTokenFile('acme-intern')];
    const result = await access([
      '--token-file',
      intern,
      '--compare-token-file',
      analyst,
      '--cube',
      'orders',
      '--json',
    ]);
    expect(result.code, result.stderr).toBe(0);
    const { callers, comparison } = jsonOf<AccessJson>(result);
    expect(callers[0]?.verifiedHere.authorization).toEqual({ tenant: 'acme', groups: ['intern'] });
    expect(callers[0]?.cubes).toEqual([]);
    expect(callers[0]?.rows).toEqual([expect.objectContaining({ cube: 'orders', denied: true, summary: '1 = 0' })]);
    expect(comparison?.differences).toEqual([
      { kind: 'cube', cube: 'orders', type: 'cube', only: 'second' },
      { kind: 'rows', cube: 'orders', first: '1 = 0', second: ACME_ROWS },
    ]);
  });

  it("gives Cube's refusal of a token without a tenant and verify's fix, exit 1", async () => {
    const result = await access(['--token-file', await idpTokenFile('no-tenant')]);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain(
      '  Cube           refused the token: The token has no tenant claim "/https:~1~1cube.example~1claims/tenant"\n',
    );
    expect(result.stdout).toMatch(/\n {2}fix {12}Have the identity provider put the tenant in the claim/);
  });

  it('ends a Cube that answers too slowly at the deadline, exit 1', async () => {
    // A proxy in front of Cube that holds /sql answers back: /meta comes through, the rows do not in time.
    const slow = await slowProxy(stack().cube.url, 4 * DEADLINE_MS);
    try {
      const result = await access([...SERVICE_ANALYST, '--cube', 'orders'], {
        url: `${slow.url}/cubejs-api/v1`,
        timeoutMs: DEADLINE_MS,
      });
      expect(result.code).toBe(1);
      expect(result.stdout).toContain(`    rows         failed: no complete answer within ${DEADLINE_MS} ms`);
    } finally {
      await slow.close();
    }
  }, 90_000);

  it('exits 1 with what Cube says when it answers 500', async () => {
    const failing = await slowProxy(stack().cube.url, 0, 500);
    try {
      const result = await access(SERVICE_ANALYST, { url: `${failing.url}/cubejs-api/v1` });
      expect(result.code).toBe(1);
      expect(result.stdout).toContain('  Cube           failed: 500: Internal Server Error\n');
    } finally {
      await failing.close();
    }
  });
});

/**
 * A proxy to Cube on 127.0.0.1: /sql answers held back `delayMs`, or, with `status`, every request answered with it
 * and `{"error":"Internal Server Error"}`, as a gateway in front of a failing Cube answers.
 */
async function slowProxy(
  target: string,
  delayMs: number,
  status?: number,
): Promise<{ url: string; close(): Promise<void> }> {
  const timers = new Set<NodeJS.Timeout>();
  const server: Server = createServer((req, res) => {
    if (status !== undefined) {
      res.writeHead(status, { 'content-type': 'application/json' }).end('{"error":"Internal Server Error"}');
      return;
    }
    const upstream = httpRequest(new URL(req.url ?? '/', target), { headers: req.headers }, (answer) => {
      const pass = () => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      };
      if (!(req.url ?? '').includes('/sql')) return pass();
      const timer = setTimeout(pass, delayMs);
      timers.add(timer);
    });
    upstream.on('error', () => res.destroy());
    upstream.end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        timers.forEach((timer) => clearTimeout(timer));
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

describe('Cube 1.7.43 with a policy on every cube: a group no policy names is shown none', () => {
  // The fixture's model-policies-only/ holds `orders` alone, with a policy for `analyst` only.
  const { access, idpTokenFile } = accessSuite('1', 'cube-1', { CUBEJS_SCHEMA_PATH: 'model-policies-only' });

  it('says no cube is visible, naming the groups the hook gave', async () => {
    const result = await access(['--token-file', await idpTokenFile('acme-intern')]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain(
      '  Cube           accepted it: /meta shows 0 cubes, 0 views\n' +
        '  no cube is visible: no access policy grants the groups ["intern"]\n',
    );
  });

  it('shows the analyst the cube, and the intern its denial beside it', async () => {
    const [analyst, intern] = [await idpTokenFile('acme-analyst'), await idpTokenFile('acme-intern')];
    const result = await access(['--token-file', analyst, '--compare-token-file', intern]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain(
      [
        '  cube "orders": only the first caller sees it',
        '  rows of "orders":',
        `    first   ${ACME_ROWS}`,
        '    second  1 = 0',
        'Not the same data: 2 differences.',
      ].join('\n'),
    );
  });
});
