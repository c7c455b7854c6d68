// `access --compare` over conditions that differ only by a repeated term (issue 42): the same data.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomSecret } from '../../support/claims';
import { runCli } from '../../support/cli';
import { answer, startDeployment, type Deployment } from '../../support/deployment';

/** /sql answers by the token's "shape" claim: the tenant condition once, repeated in an OR, or for another tenant. */
const SQL: Record<string, [string, string[]]> = {
  once: ['SELECT 1 FROM t WHERE (tenant = ?) GROUP BY 1', ['acme']],
  repeated: ['SELECT 1 FROM t WHERE ((tenant = ?) OR (tenant = ?)) GROUP BY 1', ['acme', 'acme']],
  other: ['SELECT 1 FROM t WHERE ((tenant = ?) OR (tenant = ?)) GROUP BY 1', ['acme', 'globex']],
};

let cube: Deployment;
beforeAll(async () => {
  cube = await startDeployment((request, response) => {
    const payload = (request.headers.authorization ?? '').split('.')[1] ?? '';
    const { shape } = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as { shape: string };
    if (request.url?.includes('/meta'))
      return answer(
        response,
        200,
        JSON.stringify({ cubes: [{ name: 'orders', measures: [{ name: 'orders.count' }] }] }),
      );
    answer(response, 200, JSON.stringify({ sql: { sql: SQL[shape] } }));
  });
});
afterAll(() => cube.close());

const compare = (first: string, second: string) =>
  runCli(
    ['access', cube.url, '--service', '--claims', JSON.stringify({ shape: first }), '--compare-service'].concat([
      '--compare-claims',
      JSON.stringify({ shape: second }),
    ]),
    { env: { CUBEJS_API_SECRET: randomSecret() } },
  );

describe('access --compare', () => {
  it('counts (tenant = ?) OR (tenant = ?) with ["acme","acme"] as tenant = ? with ["acme"]', async () => {
    const result = await compare('once', 'repeated');
    expect(result.stdout).toContain('The same data: both callers see the same cubes, members and rows.');
    expect(result.code).toBe(0);
  });

  it('still tells an OR of two tenants from one', async () => {
    const result = await compare('once', 'other');
    expect(result.stdout).toContain('Not the same data: 1 difference.');
  });
});
