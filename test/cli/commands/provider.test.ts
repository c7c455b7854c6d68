/** `cube-dual-auth provider`, in-process against the contract server; no run prints the API key or a secret. */
import { describe, expect, test } from 'vitest';
import { jsonOf } from '../../support/cli';
import type { ContractServer } from '../../support/contract-server';
import {
  CREATE_MAIN,
  createProvider,
  PREVIEW_SECRET,
  SECRET,
  serviceCommandsBed,
} from '../../support/service-commands';

let server: ContractServer;
const { cli, without } = serviceCommandsBed((bed) => ({ server } = bed));

describe('provider', () => {
  test('create reads the secret from CUBEJS_API_SECRET and trims the Cube suffix', async () => {
    const result = await cli([...CREATE_MAIN, '--json']);
    expect(result.code).toBe(0);
    expect(jsonOf(result)).toMatchObject({
      name: 'cube-main',
      response: {
        type: 'cube',
        credentials: { secretKey: '[redacted]', instanceUrl: 'https://main.cubecloudapp.dev' },
      },
    });
    expect(server.requests[0]?.body).toEqual({
      name: 'cube-main',
      type: 'cube',
      version: 'v1.0.0',
      credentials: { secretKey: SECRET, instanceUrl: 'https://main.cubecloudapp.dev' },
    });
  });

  test('create reads the secret from the variable named by --secret-env', async () => {
    const result = await cli([
      ...createProvider('cube-preview', 'https://preview.cubecloudapp.dev', 'v1.0.0'),
      '--secret-env',
      'PREVIEW_SECRET',
    ]);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('Created data provider cube-preview (version v1.0.0).\n');
    expect(server.dataProviders.get('cube-preview')?.credentials.secretKey).toBe(PREVIEW_SECRET);
  });

  test('create without the secret variable is a usage error naming it', async () => {
    const rest = without('CUBEJS_API_SECRET');
    const result = await cli(CREATE_MAIN, rest);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('neither CUBEJS_API_SECRET nor CUBEJS_API_SECRETS is set');
    const named = await cli([...CREATE_MAIN, '--secret-env', 'NOPE_SECRET']);
    expect(named.stderr).toContain('NOPE_SECRET is not set');
    expect(server.requests).toHaveLength(0);
  });

  test.each([['--secret'], ['--secret-key'], ['--api-key']])(
    '%s on the command line is refused without echoing the value',
    async (flag) => {
      const typed = 'typed-on-the-command-line-123';
      const result = await cli([...CREATE_MAIN, `${flag}=${typed}`]);
      expect(result.code).toBe(2);
      expect(result.stderr).toContain('never taken from the command line');
      expect(result.stderr).not.toContain(typed);
    },
  );

  test('a bad provider version is refused before sending (exit 1)', async () => {
    const result = await cli(createProvider('x', 'https://x.cubecloudapp.dev', '1.0'));
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('version: must be vMAJOR.MINOR.PATCH');
    expect(server.requests).toHaveLength(0);
  });

  test('a duplicate name is refused by the service (exit 1, JSON error)', async () => {
    await cli(CREATE_MAIN);
    const result = await cli([...CREATE_MAIN, '--json']);
    expect(result.code).toBe(1);
    expect(jsonOf(result)).toMatchObject({
      error: { type: 'EmbeddableApiError', status: 409, operation: 'createDataProvider' },
    });
    expect(result.stderr).toContain('HTTP 409');
  });

  test('update, list, show and delete', async () => {
    await cli(CREATE_MAIN);
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
    await cli(CREATE_MAIN);
    const result = await cli([
      'provider',
      'update',
      '--name',
      'cube-main',
      '--provider-version',
      'v2.0.0',
      '--instance-url',
      'https://new.cubecloudapp.dev/cubejs-api/v1/',
      '--secret-env',
      'PREVIEW_SECRET',
    ]);
    expect(result.code).toBe(0);
    expect(server.requests.at(-1)?.body).toEqual({
      type: 'cube',
      version: 'v2.0.0',
      credentials: { secretKey: PREVIEW_SECRET, instanceUrl: 'https://new.cubecloudapp.dev' },
    });
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

describe('provider upsert', () => {
  const upsert = [
    'provider',
    'upsert',
    '--name',
    'cube-preview-42',
    '--instance-url',
    'https://preview-42--acme.cubecloudapp.dev/cubejs-api/v1',
    '--provider-version',
    'v1.0.0',
    '--secret-env',
    'PREVIEW_SECRET',
  ];

  test('creates the provider when it does not exist (update answered 404, then create)', async () => {
    const result = await cli(upsert);
    expect(result).toMatchObject({ code: 0, stdout: 'Created data provider cube-preview-42 (version v1.0.0).\n' });
    expect(server.requests.map((r) => r.method)).toEqual(['PUT', 'POST']);
    expect(server.dataProviders.get('cube-preview-42')).toMatchObject({
      credentials: { secretKey: PREVIEW_SECRET, instanceUrl: 'https://preview-42--acme.cubecloudapp.dev' },
    });
  });

  test('updates it when it exists (one request); --json says which', async () => {
    await cli(upsert);
    const before = server.requests.length;
    const result = await cli([...upsert.slice(0, -4), '--provider-version', 'v1.1.0', '--json']);
    expect(result.code).toBe(0);
    expect(jsonOf(result)).toMatchObject({
      name: 'cube-preview-42',
      action: 'updated',
      response: { version: 'v1.1.0', credentials: { secretKey: '[redacted]' } },
    });
    expect(server.requests.slice(before).map((r) => r.method)).toEqual(['PUT']);
    // Without --secret-env the secret is CUBEJS_API_SECRET, as for create.
    expect(server.dataProviders.get('cube-preview-42')?.credentials.secretKey).toBe(SECRET);
  });

  test.each([
    [['provider', 'upsert', '--name', 'x', '--provider-version', 'v1.0.0'], '--instance-url is required'],
    [
      ['provider', 'upsert', '--name', 'x', '--instance-url', 'https://x.cubecloudapp.dev'],
      '--provider-version is required',
    ],
    [
      [
        'provider',
        'upsert',
        '--name',
        'x',
        '--instance-url',
        'https://x.cubecloudapp.dev',
        '--provider-version',
        'v1.0.0',
        '--secret-env',
        'NOPE_SECRET',
      ],
      'NOPE_SECRET is not set',
    ],
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
