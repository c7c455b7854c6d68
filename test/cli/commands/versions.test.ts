/** `cube-dual-auth versions`, in-process against the contract server; no run prints the API key or a secret. */
import { describe, expect, test } from 'vitest';
import { jsonOf, terminalControlsIn } from '../../support/cli';
import { definitionAt, type ContractServer } from '../../support/contract-server';
import { API_KEY, serviceCommandsBed } from '../../support/service-commands';

let server: ContractServer;
let id: string;
const { cli, env } = serviceCommandsBed((bed) => ({ server, id } = bed));

describe('versions', () => {
  test('list prints a table with the tags pointing at each version', async () => {
    await cli(['versions', 'publish', id, 'v35', '--tags', 'production,staging']);
    await cli(['versions', 'publish', id, 'v2', '--tags', 'development']);
    const result = await cli(['versions', 'list', id]);
    expect(result.code).toBe(0);
    const lines = result.stdout.split('\n');
    expect(lines[0]).toMatch(/^VERSION\s+SAVED AT\s+SAVED BY\s+TAGS\s+DESCRIPTION$/);
    expect(lines[1]).toMatch(
      /^v35\s+2024-03-01T09:34:00\.000Z\s+author2@example\.com\s+production, staging\s+Change number 35$/,
    );
    expect(lines.filter((l) => /^v\d+ /.test(l))).toHaveLength(30);
    expect(result.stdout).toContain('Note: development points at v2, older than the 30 listed.');
  });

  test('list shows what the service answered escaped, in the table', async () => {
    const versions = server.dashboards.get(id)?.versions ?? [];
    const newest = versions[versions.length - 1] as (typeof versions)[number];
    // A one-character CSI (C1), an ESC sequence and a right-to-left override: the text form removed none of them.
    versions[versions.length - 1] = {
      ...newest,
      savedBy: 'mallory\u009b2J\u001b]0;x\u0007@example.com',
      description: 'Änderung\u202e35',
    };
    const result = await cli(['versions', 'list', id]);
    expect(result.code).toBe(0);
    expect(terminalControlsIn(result.stdout)).toEqual([]);
    expect(result.stdout.split('\n')[1]).toMatch(
      /^v35\s+\S+\s+mallory\\u009b2J\\u001b\]0;x\\u0007@example\.com\s+Änderung\\u202e35$/,
    );
  });

  test('list --json gives the tag map with updatedAt and the versions', async () => {
    await cli(['versions', 'publish', id, 'v3', '--tags', 'production']);
    const body = jsonOf<{ tags: Record<string, unknown>; savedVersions: Array<{ version: string }> }>(
      await cli(['versions', 'list', id, '--json']),
    );
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
    expect(jsonOf(promoted)).toEqual({
      tags: {
        production: { version: 'v7', updatedAt: expect.any(String) },
        staging: { version: 'v7', updatedAt: expect.any(String) },
      },
    });
    const rolledBack = await cli(['versions', 'publish', id, 'v6', '--tags', 'production']);
    expect(rolledBack.code).toBe(0);
    expect(rolledBack.stdout).toMatch(
      /^Published v6 to production\.\nTAG\s+VERSION\s+UPDATED AT\nproduction\s+v6\s+\S+Z\nstaging\s+v7\s+\S+Z\n$/,
    );
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
    expect(result.stdout).toMatch(
      /^Promoted v35 from staging to production \(was v30\)\.\nTAG\s+VERSION\s+UPDATED AT\nproduction\s+v35\s+\S+Z\nstaging\s+v35\s+\S+Z\n$/,
    );
    expect(server.requests.slice(before).map((r) => r.method)).toEqual(['GET', 'POST']);
    expect(server.requests.at(-1)).toMatchObject({
      path: `/api/v1/embeddables/${id}/saved-versions/v35/publish`,
      body: { tags: ['production'] },
    });
  });

  test('--to takes several tags; --json prints version, from, to, previous and tags', async () => {
    await cli(['versions', 'publish', id, 'v33', '--tags', 'staging']);
    const result = await cli([
      'versions',
      'promote',
      id,
      '--from',
      'staging',
      '--to',
      'production,development',
      '--json',
    ]);
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
    expect(jsonOf(result)).toMatchObject({
      error: { type: 'EmbeddableStateError', operation: 'promoteVersion', code: 'ERR_TAG_ABSENT' },
    });
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
    expect(result.stdout).toMatch(
      /^Rolled back production from v35 to v34\.\nTAG\s+VERSION\s+UPDATED AT\nproduction\s+v34\s+\S+Z\nstaging\s+v35\s+\S+Z\n$/,
    );
    expect(server.requests.slice(before).map((r) => `${r.method} ${r.path}`)).toEqual([
      `GET /api/v1/embeddables/${id}/saved-versions`,
      `POST /api/v1/embeddables/${id}/saved-versions/v34/publish`,
    ]);
  });

  test('with --to, --json: from, to and the tag map; again: already there', async () => {
    await cli(['versions', 'publish', id, 'v35', '--tags', 'production']);
    const result = await cli(['versions', 'rollback', id, '--tag', 'production', '--to', 'v31', '--json']);
    expect(result.code).toBe(0);
    expect(jsonOf(result)).toEqual({
      tag: 'production',
      from: 'v35',
      to: 'v31',
      tags: { production: { version: 'v31', updatedAt: expect.any(String) } },
    });
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

  test("an unknown version: exit 1 with the service's 404", async () => {
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
