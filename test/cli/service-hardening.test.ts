/**
 * The service commands given input that must not change what is requested (path parameters), and
 * answers whose tag maps carry a `__proto__` member. Run in-process against the contract server.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import { runCli, type CliResult } from '../support/cli';
import { startContractServer, type ContractServer } from '../support/contract-server';

const API_KEY = 'emb_cli_hardening_7d2e4b91c0a5f638';

let server: ContractServer;

beforeAll(async () => {
  server = await startContractServer({ apiKey: API_KEY });
});
afterAll(() => server.close());
beforeEach(() => {
  server.requests.length = 0;
  server.faults.length = 0;
  server.dataProviders.clear();
});

async function cli(args: readonly string[]): Promise<CliResult> {
  const result = await runCli(args, { env: { EMBEDDABLE_API_KEY: API_KEY, EMBEDDABLE_BASE_URL: server.baseUrl } });
  expect(result.stdout + result.stderr).not.toContain(API_KEY);
  return result;
}

describe('provider: a name that URL handling would turn into another path', () => {
  test.each([
    ['delete', '.', ['--yes']],
    ['delete', '..', ['--yes']],
    ['show', '..', []],
    ['show', '.', []],
    ['update', '.', ['--provider-version', 'v1.0.0']],
  ])('provider %s --name %j is refused before any request, exit 1', async (action, name, rest) => {
    const result = await cli(['provider', action, '--name', name, ...rest]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`name: must not be empty, "." or ".." (it is a path parameter, and URL handling would turn it into another path), got "${name}"`);
    expect(result.stdout).toBe('');
    expect(server.requests).toEqual([]);
  });
});

describe('versions: a tag map with a "__proto__" member', () => {
  const at = '2024-03-01T10:00:00.000Z';
  const saved = [3, 2, 1].map((n) => `{"version":"v${n}","saved-at":"2024-03-01T09:0${n}:00.000Z","saved-by":"a@example.com","description":"Change ${n}"}`).join(',');
  /** The next list answer (part 4.1) carries the raw JSON text `tags`. */
  const listAnswers = (tags: string) =>
    server.fail({ method: 'GET', path: '/saved-versions', times: 1, action: { status: 200, body: `{"tags":${tags},"saved-versions":[${saved}]}` } });

  test('promote --from staging, with staging only inside "__proto__": exit 1, not set, nothing published', async () => {
    const id = server.addDashboard(3);
    listAnswers(`{"__proto__":{"version":"v1","updated-at":"${at}","staging":{"version":"v2","updated-at":"${at}"}}}`);
    const result = await cli(['versions', 'promote', id, '--from', 'staging', '--to', 'production']);
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      'cube-dual-auth versions promote: promoteVersion refused: staging is not set on this dashboard (no version was published to it), so there is nothing to promote; publish a version to it first\n',
    );
    expect(server.requestsTo('POST', '/publish')).toEqual([]);
  });

  test('rollback --tag production, with production only inside "__proto__": exit 1, nothing published', async () => {
    const id = server.addDashboard(3);
    listAnswers(`{"__proto__":{"version":"v1","updated-at":"${at}","production":{"version":"v3","updated-at":"${at}"}}}`);
    const result = await cli(['versions', 'rollback', id, '--tag', 'production']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('production is not set on this dashboard');
    expect(server.requestsTo('POST', '/publish')).toEqual([]);
  });

  test('list shows a "__proto__" tag that is set as a tag of its version', async () => {
    const id = server.addDashboard(3);
    listAnswers(`{"__proto__":{"version":"v2","updated-at":"${at}"},"staging":{"version":"v3","updated-at":"${at}"}}`);
    const result = await cli(['versions', 'list', id]);
    expect(result.code).toBe(0);
    expect(result.stdout.split('\n').map((line) => line.split(/\s{2,}/))).toEqual([
      ['VERSION', 'SAVED AT', 'SAVED BY', 'TAGS', 'DESCRIPTION'],
      ['v3', '2024-03-01T09:03:00.000Z', 'a@example.com', 'staging', 'Change 3'],
      ['v2', '2024-03-01T09:02:00.000Z', 'a@example.com', '__proto__', 'Change 2'],
      ['v1', '2024-03-01T09:01:00.000Z', 'a@example.com', 'Change 1'],
      [''],
    ]);
  });
});
