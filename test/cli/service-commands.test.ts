/**
 * The service subcommands, run in-process through the CLI's `run` against the contract server.
 * Every run is checked for the API key and the deployment secret in its output.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import { jsonOf, runCli, terminalControlsIn, type CliResult } from '../support/cli';
import { definitionAt, startContractServer, type ContractServer } from '../support/contract-server';

const API_KEY = 'emb_cli_4c1d9e7a2b8f6053aa91';
const SECRET = 'cube-main-secret-8d3F2kQ9';
const PREVIEW_SECRET = 'cube-preview-secret-1Xw7Rt5';
const SECRETS = [API_KEY, SECRET, PREVIEW_SECRET];

let server: ContractServer;
let id: string;

beforeAll(async () => {
  // The server echoes secretKey in its records: the CLI must still never print it.
  server = await startContractServer({ apiKey: API_KEY, echoSecretKey: true });
});
afterAll(() => server.close());
beforeEach(() => {
  server.requests.length = 0;
  server.faults.length = 0;
  server.dataProviders.clear();
  id = server.addDashboard(35);
});

function env(extra: Record<string, string> = {}): Record<string, string> {
  return { EMBEDDABLE_API_KEY: API_KEY, EMBEDDABLE_BASE_URL: server.baseUrl, CUBEJS_API_SECRET: SECRET, PREVIEW_SECRET, ...extra };
}

/** The test environment without one variable. */
function without(name: string): Record<string, string> {
  return Object.fromEntries(Object.entries(env()).filter(([key]) => key !== name));
}

/** Runs the CLI and checks that no secret reached stdout or stderr. */
async function cli(args: readonly string[], environment = env(), stdin?: string): Promise<CliResult> {
  const result = await runCli(args, { env: environment, ...(stdin !== undefined && { stdin }) });
  for (const secret of SECRETS) {
    expect(result.stdout).not.toContain(secret);
    expect(result.stderr).not.toContain(secret);
  }
  return result;
}

const createMain = ['provider', 'create', '--name', 'cube-main', '--instance-url', 'https://main.example.com/cubejs-api/v1', '--provider-version', 'v1.0.0'];

describe('help', () => {
  test('the overview lists the service commands', async () => {
    const result = await cli(['--help']);
    expect(result.code).toBe(0);
    for (const name of ['provider', 'versions', 'security-token']) expect(result.stdout).toContain(name);
  });

  test.each([['provider'], ['versions'], ['security-token']])('%s --help exits 0 and documents the environment', async (name) => {
    const result = await cli([name, '--help']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('EMBEDDABLE_API_KEY');
  });
});

describe('provider', () => {
  test('create reads the secret from CUBEJS_API_SECRET and trims the Cube suffix', async () => {
    const result = await cli([...createMain, '--json']);
    expect(result.code).toBe(0);
    expect(jsonOf(result)).toMatchObject({ name: 'cube-main', response: { type: 'cube', credentials: { secretKey: '[redacted]', instanceUrl: 'https://main.example.com' } } });
    expect(server.requests[0]?.body).toEqual({ name: 'cube-main', type: 'cube', version: 'v1.0.0', credentials: { secretKey: SECRET, instanceUrl: 'https://main.example.com' } });
  });

  test('create reads the secret from the variable named by --secret-env', async () => {
    const result = await cli(['provider', 'create', '--name', 'cube-preview', '--instance-url', 'https://preview.example.com', '--provider-version', 'v1.0.0', '--secret-env', 'PREVIEW_SECRET']);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('Created data provider cube-preview (version v1.0.0).\n');
    expect(server.dataProviders.get('cube-preview')?.credentials.secretKey).toBe(PREVIEW_SECRET);
  });

  test('create without the secret variable is a usage error naming it', async () => {
    const rest = without('CUBEJS_API_SECRET');
    const result = await cli(createMain, rest);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('neither CUBEJS_API_SECRET nor CUBEJS_API_SECRETS is set');
    const named = await cli([...createMain, '--secret-env', 'NOPE_SECRET']);
    expect(named.stderr).toContain('NOPE_SECRET is not set');
    expect(server.requests).toHaveLength(0);
  });

  test.each([['--secret'], ['--secret-key'], ['--api-key']])('%s on the command line is refused without echoing the value', async (flag) => {
    const typed = 'typed-on-the-command-line-123';
    const result = await cli([...createMain, `${flag}=${typed}`]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('never taken from the command line');
    expect(result.stderr).not.toContain(typed);
  });

  test('a bad provider version is refused before sending (exit 1)', async () => {
    const result = await cli(['provider', 'create', '--name', 'x', '--instance-url', 'https://x.example.com', '--provider-version', '1.0']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('version: must be vMAJOR.MINOR.PATCH');
    expect(server.requests).toHaveLength(0);
  });

  test('a duplicate name is refused by the service (exit 1, JSON error)', async () => {
    await cli(createMain);
    const result = await cli([...createMain, '--json']);
    expect(result.code).toBe(1);
    expect(jsonOf(result)).toMatchObject({ error: { type: 'EmbeddableApiError', status: 409, operation: 'createDataProvider' } });
    expect(result.stderr).toContain('HTTP 409');
  });

  test('update, list, show and delete', async () => {
    await cli(createMain);
    const updated = await cli(['provider', 'update', '--name', 'cube-main', '--provider-version', 'v1.1.0', '--json']);
    expect(updated.code).toBe(0);
    expect(server.requests.at(-1)?.body).toEqual({ type: 'cube', version: 'v1.1.0' });

    const list = await cli(['provider', 'list']);
    expect(list.code).toBe(0);
    expect(list.stdout).toBe('NAME       TYPE  VERSION\ncube-main  cube  v1.1.0\n');
    expect(jsonOf<unknown[]>(await cli(['provider', 'list', '--json']))).toHaveLength(1);

    const show = await cli(['provider', 'show', '--name', 'cube-main']);
    expect(jsonOf(show)).toMatchObject({ name: 'cube-main', credentials: { secretKey: '[redacted]' } });

    const refused = await cli(['provider', 'delete', '--name', 'cube-main']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('needs --yes');
    const deleted = await cli(['provider', 'delete', '--name', 'cube-main', '--yes']);
    expect(deleted).toMatchObject({ code: 0, stdout: 'Deleted data provider cube-main.\n' });
    expect((await cli(['provider', 'show', '--name', 'cube-main'])).code).toBe(1);
  });

  test('update with --secret-env sends the secret; with a new URL, the trimmed URL', async () => {
    await cli(createMain);
    const result = await cli(['provider', 'update', '--name', 'cube-main', '--provider-version', 'v2.0.0', '--instance-url', 'https://new.example.com/cubejs-api/v1/', '--secret-env', 'PREVIEW_SECRET']);
    expect(result.code).toBe(0);
    expect(server.requests.at(-1)?.body).toEqual({ type: 'cube', version: 'v2.0.0', credentials: { secretKey: PREVIEW_SECRET, instanceUrl: 'https://new.example.com' } });
  });

  test.each([
    [['provider'], 'expected an action'],
    [['provider', 'rename'], 'got "rename"'],
    [['provider', 'list', '--colour'], "Unknown option '--colour'"],
    [['provider', 'list', 'extra'], 'expected no arguments'],
    [['provider', 'update', '--name', 'x'], '--provider-version is required'],
  ])('%j is a usage error', async (args, message) => {
    const result = await cli(args);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(message);
  });
});

describe('versions', () => {
  test('list prints a table with the tags pointing at each version', async () => {
    await cli(['versions', 'publish', id, 'v35', '--tags', 'production,staging']);
    await cli(['versions', 'publish', id, 'v2', '--tags', 'development']);
    const result = await cli(['versions', 'list', id]);
    expect(result.code).toBe(0);
    const lines = result.stdout.split('\n');
    expect(lines[0]).toMatch(/^VERSION\s+SAVED AT\s+SAVED BY\s+TAGS\s+DESCRIPTION$/);
    expect(lines[1]).toMatch(/^v35\s+2024-03-01T09:34:00\.000Z\s+author2@example\.com\s+production, staging\s+Change number 35$/);
    expect(lines.filter((l) => /^v\d+ /.test(l))).toHaveLength(30);
    expect(result.stdout).toContain('Note: development points at v2, older than the 30 listed.');
  });

  test('list shows what the service answered escaped, in the table', async () => {
    const versions = server.dashboards.get(id)?.versions ?? [];
    const newest = versions[versions.length - 1] as (typeof versions)[number];
    // A one-character CSI (C1), an ESC sequence and a right-to-left override: the text form removed none of them.
    versions[versions.length - 1] = { ...newest, savedBy: 'mallory\u009b2J\u001b]0;x\u0007@example.com', description: 'Änderung\u202e35' };
    const result = await cli(['versions', 'list', id]);
    expect(result.code).toBe(0);
    expect(terminalControlsIn(result.stdout)).toEqual([]);
    expect(result.stdout.split('\n')[1]).toMatch(/^v35\s+\S+\s+mallory\\u009b2J\\u001b\]0;x\\u0007@example\.com\s+Änderung\\u202e35$/);
  });

  test('list --json gives the tag map with updatedAt and the versions', async () => {
    await cli(['versions', 'publish', id, 'v3', '--tags', 'production']);
    const body = jsonOf<{ tags: Record<string, unknown>; savedVersions: Array<{ version: string }> }>(await cli(['versions', 'list', id, '--json']));
    expect(body.tags.production).toEqual({ version: 'v3', updatedAt: expect.any(String) });
    expect(body.savedVersions[0]?.version).toBe('v35');
  });

  test('show prints the definition', async () => {
    const result = await cli(['versions', 'show', id, 'v4']);
    expect(result.code).toBe(0);
    expect(jsonOf(result)).toMatchObject({ title: 'Sales overview (v4)', layoutHints: { columns: 12 } });
  });

  test('publish prints the new tag map; promoting and rolling back moves only production', async () => {
    const promoted = await cli(['versions', 'publish', id, 'v7', '--tags', 'production,staging', '--json']);
    expect(promoted.code).toBe(0);
    expect(jsonOf(promoted)).toEqual({ tags: { production: { version: 'v7', updatedAt: expect.any(String) }, staging: { version: 'v7', updatedAt: expect.any(String) } } });
    const rolledBack = await cli(['versions', 'publish', id, 'v6', '--tags', 'production']);
    expect(rolledBack.code).toBe(0);
    expect(rolledBack.stdout).toMatch(/^Published v6 to production\.\nTAG\s+VERSION\s+UPDATED AT\nproduction\s+v6\s+\S+Z\nstaging\s+v7\s+\S+Z\n$/);
  });

  test.each([
    [['production', '--tags', 'production'], 'BUILDER-172'],
    [['v1', '--tags', ''], 'BUILDER-996'],
    [['v1', '--tags', 'production,qa'], 'BUILDER-117'],
  ])('publish %j is refused before sending with %s (exit 1)', async (args, code) => {
    const result = await cli(['versions', 'publish', id, ...args, '--json']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(code);
    expect(jsonOf(result)).toMatchObject({ error: { type: 'EmbeddableValidationError', code } });
    expect(server.requests).toHaveLength(0);
  });

  test('publish of a version that does not exist is refused by the service with BUILDER-120', async () => {
    const result = await cli(['versions', 'publish', id, 'v99', '--tags', 'production']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('HTTP 404 BUILDER-120: the saved version does not exist for this dashboard');
  });

  test('an invalid API key: exit 1 with BUILDER-998, key not printed', async () => {
    const result = await cli(['versions', 'list', id], env({ EMBEDDABLE_API_KEY: `${API_KEY}-revoked` }));
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('HTTP 401 BUILDER-998');
    expect(result.stderr).not.toContain('-revoked');
  });

  test.each([
    [['versions', 'publish', 'x', 'v1'], '--tags is required'],
    [['versions', 'list'], 'expected <embeddableId>'],
    [['versions', 'show', 'x'], 'expected <embeddableId> <version>'],
    [['versions', 'list', 'x', '--timeout-ms', 'soon'], '--timeout-ms must be a whole number'],
  ])('%j is a usage error', async (args, message) => {
    const result = await cli(args);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(message);
  });

  test('a bad dashboard id is a validation error (exit 1)', async () => {
    const result = await cli(['versions', 'list', 'not-a-uuid']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('embeddableId: must be the dashboard');
  });
});

describe('versions promote', () => {
  test('publishes what staging has onto production and prints the new tag map (one list, one publish)', async () => {
    await cli(['versions', 'publish', id, 'v30', '--tags', 'production']);
    await cli(['versions', 'publish', id, 'v35', '--tags', 'staging']);
    const before = server.requests.length;
    const result = await cli(['versions', 'promote', id, '--from', 'staging', '--to', 'production']);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^Promoted v35 from staging to production \(was v30\)\.\nTAG\s+VERSION\s+UPDATED AT\nproduction\s+v35\s+\S+Z\nstaging\s+v35\s+\S+Z\n$/);
    expect(server.requests.slice(before).map((r) => r.method)).toEqual(['GET', 'POST']);
    expect(server.requests.at(-1)).toMatchObject({ path: `/api/v1/embeddables/${id}/saved-versions/v35/publish`, body: { tags: ['production'] } });
  });

  test('--to takes several tags; --json prints version, from, to, previous and tags', async () => {
    await cli(['versions', 'publish', id, 'v33', '--tags', 'staging']);
    const result = await cli(['versions', 'promote', id, '--from', 'staging', '--to', 'production,development', '--json']);
    expect(result.code).toBe(0);
    expect(jsonOf(result)).toEqual({
      version: 'v33',
      from: 'staging',
      to: ['production', 'development'],
      previous: { production: null, development: null },
      tags: {
        staging: { version: 'v33', updatedAt: expect.any(String) },
        production: { version: 'v33', updatedAt: expect.any(String) },
        development: { version: 'v33', updatedAt: expect.any(String) },
      },
    });
  });

  test('refuses when the --from tag is not set (exit 1, nothing published)', async () => {
    const result = await cli(['versions', 'promote', id, '--from', 'staging', '--to', 'production', '--json']);
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      'cube-dual-auth versions promote: promoteVersion refused: staging is not set on this dashboard (no version was published to it), so there is nothing to promote; publish a version to it first\n',
    );
    expect(jsonOf(result)).toMatchObject({ error: { type: 'EmbeddableStateError', operation: 'promoteVersion', code: 'ERR_TAG_ABSENT' } });
    expect(server.requests.map((r) => r.method)).toEqual(['GET']);
  });

  test.each([
    [['--from', 'staging', '--to', 'production,qa'], 'BUILDER-117'],
    [['--from', 'staging', '--to', ''], 'BUILDER-996'],
    [['--from', 'prod', '--to', 'production'], 'from: must be one of development, staging, production, got "prod"'],
    [['--from', 'staging', '--to', 'staging'], 'to: must not include the tag promoted from (staging)'],
  ])('%j is refused before sending (exit 1)', async (args, message) => {
    const result = await cli(['versions', 'promote', id, ...args]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(message);
    expect(server.requests).toHaveLength(0);
  });

  test.each([
    [['versions', 'promote', 'x', '--to', 'production'], '--from is required'],
    [['versions', 'promote', 'x', '--from', 'staging'], '--to is required'],
    [['versions', 'promote', '--from', 'staging', '--to', 'production'], 'expected <embeddableId>'],
  ])('%j is a usage error', async (args, message) => {
    const result = await cli(args);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(message);
  });
});

describe('versions rollback', () => {
  test('without --to: to the newest older version, printing from which to which', async () => {
    await cli(['versions', 'publish', id, 'v35', '--tags', 'production,staging']);
    const before = server.requests.length;
    const result = await cli(['versions', 'rollback', id, '--tag', 'production']);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^Rolled back production from v35 to v34\.\nTAG\s+VERSION\s+UPDATED AT\nproduction\s+v34\s+\S+Z\nstaging\s+v35\s+\S+Z\n$/);
    expect(server.requests.slice(before).map((r) => `${r.method} ${r.path}`)).toEqual([`GET /api/v1/embeddables/${id}/saved-versions`, `POST /api/v1/embeddables/${id}/saved-versions/v34/publish`]);
  });

  test('with --to, --json: from, to and the tag map; again: already there', async () => {
    await cli(['versions', 'publish', id, 'v35', '--tags', 'production']);
    const result = await cli(['versions', 'rollback', id, '--tag', 'production', '--to', 'v31', '--json']);
    expect(result.code).toBe(0);
    expect(jsonOf(result)).toEqual({ tag: 'production', from: 'v35', to: 'v31', tags: { production: { version: 'v31', updatedAt: expect.any(String) } } });
    const again = await cli(['versions', 'rollback', id, '--tag', 'production', '--to', 'v31']);
    expect(again.code).toBe(0);
    expect(again.stdout).toMatch(/^production already points at v31; nothing changed\.\n/);
  });

  test('refuses when the tag is not set, and when no version is older (exit 1, nothing published)', async () => {
    const absent = await cli(['versions', 'rollback', id, '--tag', 'production']);
    expect(absent.code).toBe(1);
    expect(absent.stderr).toContain('rollbackTag refused: production is not set on this dashboard');
    const small = server.addDashboard(3);
    await cli(['versions', 'publish', small, 'v1', '--tags', 'production']);
    const oldest = await cli(['versions', 'rollback', small, '--tag', 'production', '--json']);
    expect(oldest.code).toBe(1);
    expect(jsonOf(oldest)).toMatchObject({ error: { type: 'EmbeddableStateError', code: 'ERR_NO_OLDER_VERSION' } });
    expect(oldest.stderr).toContain('production points at v1, and no saved version is older than it');
    expect(server.requestsTo('POST', '/publish')).toHaveLength(1);
  });

  test.each([
    [['--tag', 'qa'], 'BUILDER-117'],
    [['--tag', 'production', '--to', 'staging'], 'BUILDER-172'],
    [['--tag', 'production', '--to', '7'], 'to: must be a saved-version label'],
  ])('%j is refused before sending (exit 1)', async (args, message) => {
    const result = await cli(['versions', 'rollback', id, ...args]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(message);
    expect(server.requests).toHaveLength(0);
  });

  test('a service error on publish: exit 1 with the status and code', async () => {
    await cli(['versions', 'publish', id, 'v35', '--tags', 'production']);
    const result = await cli(['versions', 'rollback', id, '--tag', 'production', '--to', 'v99']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('rollbackTag refused: HTTP 404 BUILDER-120');
  });

  test('missing --tag is a usage error', async () => {
    const result = await cli(['versions', 'rollback', id]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--tag is required');
  });
});

describe('versions diff', () => {
  test('prints the changes by section, after two reads', async () => {
    const v35 = definitionAt('v34');
    (v35.variables as Array<Record<string, unknown>>).push({ name: 'region', type: 'string' });
    (v35.widgets as Array<{ dimensions: { width: number } }>)[0]!.dimensions.width = 12;
    server.setDefinition(id, 'v34', definitionAt('v34'));
    server.setDefinition(id, 'v35', v35);
    const result = await cli(['versions', 'diff', id, 'v34', 'v35']);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(
      [
        'From v34 to v35:',
        'dashboard: no changes',
        'variables: 1 added',
        '  + region',
        'datasets: no changes',
        'widgets: 1 changed',
        '  ~ BarChart at 0,0',
        '      dimensions.width: 6 -> 12',
        '',
      ].join('\n'),
    );
    expect(server.requests.map((r) => r.path.split('/').slice(-2).join('/'))).toEqual(['v34/metadata', 'v35/metadata']);
  });

  test('--json prints the diff document; the same version twice is identical', async () => {
    const body = jsonOf(await cli(['versions', 'diff', id, 'v1', 'v2', '--json']));
    expect(body).toEqual({
      from: 'v1',
      to: 'v2',
      identical: false,
      dashboard: [{ field: 'title', before: 'Sales overview (v1)', after: 'Sales overview (v2)' }],
      variables: { added: [], removed: [], changed: [] },
      datasets: { added: [], removed: [], changed: [] },
      widgets: { added: [], removed: [], changed: [] },
    });
    expect((await cli(['versions', 'diff', id, 'v2', 'v2'])).stdout).toBe('v2 and v2 are identical.\n');
  });

  test('an unknown version: exit 1 with the service\'s 404', async () => {
    const result = await cli(['versions', 'diff', id, 'v1', 'v99']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('diffVersions refused: HTTP 404');
  });

  test.each([
    [['versions', 'diff', 'x', 'v1'], 2, 'expected <embeddableId> <versionA> <versionB>'],
    [['versions', 'diff', 'not-a-uuid', 'v1', 'v2'], 1, 'embeddableId: must be the dashboard'],
    [['versions', 'diff', 'ID', 'production', 'v2'], 1, 'BUILDER-172'],
  ])('%j: exit %i', async (args, code, message) => {
    const result = await cli(args.map((a) => (a === 'ID' ? id : a)));
    expect(result.code).toBe(code);
    expect(result.stderr).toContain(message);
    expect(server.requests).toHaveLength(0);
  });
});

describe('provider upsert', () => {
  const upsert = ['provider', 'upsert', '--name', 'cube-preview-42', '--instance-url', 'https://preview-42.example.com/cubejs-api/v1', '--provider-version', 'v1.0.0', '--secret-env', 'PREVIEW_SECRET'];

  test('creates the provider when it does not exist (update answered 404, then create)', async () => {
    const result = await cli(upsert);
    expect(result).toMatchObject({ code: 0, stdout: 'Created data provider cube-preview-42 (version v1.0.0).\n' });
    expect(server.requests.map((r) => r.method)).toEqual(['PUT', 'POST']);
    expect(server.dataProviders.get('cube-preview-42')).toMatchObject({ credentials: { secretKey: PREVIEW_SECRET, instanceUrl: 'https://preview-42.example.com' } });
  });

  test('updates it when it exists (one request); --json says which', async () => {
    await cli(upsert);
    const before = server.requests.length;
    const result = await cli([...upsert.slice(0, -4), '--provider-version', 'v1.1.0', '--json']);
    expect(result.code).toBe(0);
    expect(jsonOf(result)).toMatchObject({ name: 'cube-preview-42', action: 'updated', response: { version: 'v1.1.0', credentials: { secretKey: '[redacted]' } } });
    expect(server.requests.slice(before).map((r) => r.method)).toEqual(['PUT']);
    // Without --secret-env the secret is CUBEJS_API_SECRET, as for create.
    expect(server.dataProviders.get('cube-preview-42')?.credentials.secretKey).toBe(SECRET);
  });

  test.each([
    [['provider', 'upsert', '--name', 'x', '--provider-version', 'v1.0.0'], '--instance-url is required'],
    [['provider', 'upsert', '--name', 'x', '--instance-url', 'https://x.example.com'], '--provider-version is required'],
    [['provider', 'upsert', '--name', 'x', '--instance-url', 'https://x.example.com', '--provider-version', 'v1.0.0', '--secret-env', 'NOPE_SECRET'], 'NOPE_SECRET is not set'],
  ])('%j is a usage error', async (args, message) => {
    const result = await cli(args);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(message);
    expect(server.requests).toHaveLength(0);
  });

  test('a bad version is refused before sending; a service failure is exit 1', async () => {
    const bad = await cli([...upsert.slice(0, 6), '--provider-version', '1.0']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('version: must be vMAJOR.MINOR.PATCH');
    expect(server.requests).toHaveLength(0);
    server.fail({ method: 'PUT', times: 1, action: { status: 500 } });
    const failed = await cli(upsert);
    expect(failed.code).toBe(1);
    expect(failed.stderr).toContain('upsertDataProvider refused: HTTP 500');
    expect(server.requests.map((r) => r.method)).toEqual(['PUT']);
  });
});

describe('connection', () => {
  test('without EMBEDDABLE_API_KEY: usage error', async () => {
    const rest = without('EMBEDDABLE_API_KEY');
    const result = await cli(['versions', 'list', id], rest);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('EMBEDDABLE_API_KEY is not set');
  });

  test('without a base URL or region: usage error', async () => {
    const rest = without('EMBEDDABLE_BASE_URL');
    const result = await cli(['versions', 'list', id], rest);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('give --region');
  });

  test('--base-url wins over EMBEDDABLE_BASE_URL; --base-url with --region is a usage error', async () => {
    const result = await cli(['versions', 'list', id, '--base-url', server.baseUrl], env({ EMBEDDABLE_BASE_URL: 'http://127.0.0.1:9/' }));
    expect(result.code).toBe(0);
    expect((await cli(['versions', 'list', id, '--base-url', server.baseUrl, '--region', 'us'])).code).toBe(2);
  });

  test('a bad region is a validation error naming it', async () => {
    const rest = without('EMBEDDABLE_BASE_URL');
    const result = await cli(['versions', 'list', id, '--region', 'us/east'], rest);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('region: must be a region name');
  });

  test('an unreachable service: exit 1, reported as a network failure', async () => {
    server.fail({ times: 10, action: 'destroy' });
    const result = await cli(['versions', 'list', id, '--json']);
    expect(result.code).toBe(1);
    expect(jsonOf(result)).toMatchObject({ error: { type: 'EmbeddableNetworkError', code: 'ERR_NETWORK', attempts: 3 } });
  });

  test('a silent service: exit 1 after --timeout-ms', async () => {
    server.fail({ times: 10, action: 'hang' });
    const result = await cli(['versions', 'publish', id, 'v1', '--tags', 'production', '--timeout-ms', '200']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('no answer within 200 ms');
  });
});

describe('security-token', () => {
  beforeEach(() => cli(createMain));

  test('prints the token alone, and sends embeddableId with the context and provider', async () => {
    const result = await cli(['security-token', id, '--data-provider', 'cube-main', '--security-context', '{"tenantId":"acme"}', '--saved-version', 'production', '--expiry-seconds', '600']);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^tok_[0-9a-f]+\n$/);
    expect(server.requestsTo('POST', '/security-token')[0]?.body).toEqual({ embeddableId: id, securityContext: { tenantId: 'acme' }, dataProvider: 'cube-main', savedVersion: 'production', expiryInSeconds: 600 });
  });

  test('reads the security context from stdin with -, and prints the whole answer with --json', async () => {
    const result = await cli(['security-token', id, '--data-provider', 'cube-main', '--security-context', '-', '--json'], env(), '{"tenantId":"beta"}\n');
    expect(result.code).toBe(0);
    expect(jsonOf(result)).toEqual({ token: expect.stringMatching(/^tok_/) });
    expect(server.issuedTokens.at(-1)?.securityContext).toEqual({ tenantId: 'beta' });
  });

  test.each([
    [['--security-context', '{bad'], 'not valid JSON'],
    [['--security-context', '[]'], 'securityContext: must be an object'],
    [['--security-context', '{}', '--saved-version', 'latest'], 'savedVersion: must be a tag'],
    [['--security-context', '{}', '--expiry-seconds', 'soon'], 'expiryInSeconds: must be a positive whole number'],
  ])('%j is a validation error (exit 1)', async (args, message) => {
    const before = server.requests.length;
    const result = await cli(['security-token', id, '--data-provider', 'cube-main', ...args]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(message);
    expect(server.requests).toHaveLength(before);
  });

  test('an unknown data provider is refused by the service (exit 1)', async () => {
    const result = await cli(['security-token', id, '--data-provider', 'nope', '--security-context', '{}']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('HTTP 400');
  });

  test('missing --data-provider is a usage error', async () => {
    expect((await cli(['security-token', id, '--security-context', '{}'])).code).toBe(2);
  });
});
