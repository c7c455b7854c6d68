/**
 * The promotion commands as a CI job runs them: the built bin, spawned, against the contract server on
 * 127.0.0.1. Exit statuses, what is printed, what reaches the service, and that no secret is printed.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { jsonOf, runBin, type CliResult } from '../support/cli';
import { definitionAt, startContractServer, type ContractServer } from '../support/contract-server';

const API_KEY = 'emb_ci_5e0b7c2d9a1f4e38b6c7';
const PREVIEW_SECRET = 'cube-preview-secret-Hq4v9Lz2';

let server: ContractServer;
let id: string;

beforeAll(async () => {
  server = await startContractServer({ apiKey: API_KEY, echoSecretKey: true });
});
afterAll(() => server.close());
beforeEach(() => {
  server.requests.length = 0;
  server.dataProviders.clear();
  id = server.addDashboard(8);
});

/** Runs the bin with the CI job's environment and checks that neither the key nor the secret was printed. */
async function ci(args: readonly string[]): Promise<CliResult> {
  return runBin(args, {
    env: { EMBEDDABLE_API_KEY: API_KEY, EMBEDDABLE_BASE_URL: server.baseUrl, PREVIEW_SECRET },
    secrets: [API_KEY, PREVIEW_SECRET],
  });
}

describe('versions promote, rollback and diff, spawned', () => {
  it('promote: staging to production, exit 0, the new tag map; then rollback moves production back', async () => {
    expect((await ci(['versions', 'publish', id, 'v7', '--tags', 'production,staging'])).code).toBe(0);
    expect((await ci(['versions', 'publish', id, 'v8', '--tags', 'staging'])).code).toBe(0);

    const promoted = await ci(['versions', 'promote', id, '--from', 'staging', '--to', 'production']);
    expect(promoted.code).toBe(0);
    expect(promoted.stdout).toMatch(
      /^Promoted v8 from staging to production \(was v7\)\.\nTAG\s+VERSION\s+UPDATED AT\nproduction\s+v8\s+\S+Z\nstaging\s+v8\s+\S+Z\n$/,
    );

    const rolledBack = await ci(['versions', 'rollback', id, '--tag', 'production', '--json']);
    expect(rolledBack.code).toBe(0);
    expect(jsonOf(rolledBack)).toMatchObject({
      tag: 'production',
      from: 'v8',
      to: 'v7',
      tags: { production: { version: 'v7' }, staging: { version: 'v8' } },
    });
    expect(server.requests.map((r) => r.method)).toEqual(['POST', 'POST', 'GET', 'POST', 'GET', 'POST']);
  });

  it('promote from a tag that is not set: exit 1, nothing published', async () => {
    const result = await ci(['versions', 'promote', id, '--from', 'staging', '--to', 'production']);
    expect(result).toMatchObject({ code: 1, stdout: '' });
    expect(result.stderr).toContain('promoteVersion refused: staging is not set on this dashboard');
    expect(server.requests.map((r) => r.method)).toEqual(['GET']);
  });

  it('rollback with no older version: exit 1, nothing published', async () => {
    await ci(['versions', 'publish', id, 'v1', '--tags', 'production']);
    const result = await ci(['versions', 'rollback', id, '--tag', 'production']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('production points at v1, and no saved version is older than it');
    expect(server.requestsTo('POST', '/publish')).toHaveLength(1);
  });

  it('a bad dashboard id: exit 1 before any request; a service error: exit 1 with its code', async () => {
    const bad = await ci(['versions', 'rollback', 'not-a-uuid', '--tag', 'production']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('embeddableId: must be the dashboard');
    expect(server.requests).toHaveLength(0);
    server.fail({ method: 'GET', times: 1, action: { status: 500 } });
    const failed = await ci(['versions', 'promote', id, '--from', 'staging', '--to', 'production']);
    expect(failed.code).toBe(1);
    expect(failed.stderr).toContain('promoteVersion refused: HTTP 500: the service failed; try again later');
  });

  it('diff: the changes by section, exit 0', async () => {
    const v8 = definitionAt('v7');
    (v8.widgets as Array<{ dimensions: { width: number } }>)[0]!.dimensions.width = 12;
    server.setDefinition(id, 'v8', v8);
    const result = await ci(['versions', 'diff', id, 'v7', 'v8']);
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(result.stdout).toBe(
      'From v7 to v8:\ndashboard: no changes\nvariables: no changes\ndatasets: no changes\nwidgets: 1 changed\n  ~ BarChart at 0,0\n      dimensions.width: 6 -> 12\n',
    );
  });
});

describe('provider upsert, spawned', () => {
  const upsert = [
    'provider',
    'upsert',
    '--name',
    'cube-pr-17',
    '--instance-url',
    'https://pr-17--acme.cubecloudapp.dev/cubejs-api/v1',
    '--secret-env',
    'PREVIEW_SECRET',
  ];

  it('creates, then updates, the preview deployment', async () => {
    const created = await ci([...upsert, '--provider-version', 'v1.0.0']);
    expect(created).toMatchObject({ code: 0, stdout: 'Created data provider cube-pr-17 (version v1.0.0).\n' });
    const updated = await ci([...upsert, '--provider-version', 'v1.0.1']);
    expect(updated).toMatchObject({ code: 0, stdout: 'Updated data provider cube-pr-17 (version v1.0.1).\n' });
    expect(server.requests.map((r) => r.method)).toEqual(['PUT', 'POST', 'PUT']);
    expect(server.dataProviders.get('cube-pr-17')).toMatchObject({
      version: 'v1.0.1',
      credentials: { secretKey: PREVIEW_SECRET, instanceUrl: 'https://pr-17--acme.cubecloudapp.dev' },
    });
  });

  it('without the secret variable: exit 2, nothing sent', async () => {
    const result = await runBin([...upsert.slice(0, -2), '--provider-version', 'v1.0.0'], {
      env: { EMBEDDABLE_API_KEY: API_KEY, EMBEDDABLE_BASE_URL: server.baseUrl },
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('neither CUBEJS_API_SECRET nor CUBEJS_API_SECRETS is set');
    expect(server.requests).toHaveLength(0);
  });
});
