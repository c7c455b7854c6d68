/**
 * The service commands given input that must not change what is requested (path parameters), answers
 * whose tag maps carry a `__proto__` member, answers carrying what a terminal acts on (printed escaped by
 * the one rule of terminal-text.ts, `--json` included), and the API secret that create and upsert register
 * (read as the hook reads it). Run in-process against the contract server.
 */
import { describe, expect, test } from 'vitest';
import { jsonOf, runCli, terminalControlsIn, type CliResult } from '../support/cli';
import type { ContractServer } from '../support/contract-server';
import { contractServerPerFile } from '../support/service-commands';

const API_KEY = 'emb_cli_hardening_7d2e4b91c0a5f638';

let server: ContractServer;
contractServerPerFile({ apiKey: API_KEY }, (started) => (server = started));

async function cli(args: readonly string[], env: Record<string, string> = {}): Promise<CliResult> {
  return runCli(args, {
    env: { EMBEDDABLE_API_KEY: API_KEY, EMBEDDABLE_BASE_URL: server.baseUrl, ...env },
    secrets: [API_KEY],
  });
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
    expect(result.stderr).toContain(
      `name: must not be empty, "." or ".." (it is a path parameter, and URL handling would turn it into another path), got "${name}"`,
    );
    expect(result.stdout).toBe('');
    expect(server.requests).toEqual([]);
  });
});

describe('versions: a tag map with a "__proto__" member', () => {
  const at = '2024-03-01T10:00:00.000Z';
  const saved = [3, 2, 1]
    .map(
      (n) =>
        `{"version":"v${n}","saved-at":"2024-03-01T09:0${n}:00.000Z","saved-by":"a@example.com","description":"Change ${n}"}`,
    )
    .join(',');
  /** The next list answer (part 4.1) carries the raw JSON text `tags`. */
  const listAnswers = (tags: string) =>
    server.fail({
      method: 'GET',
      path: '/saved-versions',
      times: 1,
      action: { status: 200, body: `{"tags":${tags},"saved-versions":[${saved}]}` },
    });

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
    listAnswers(
      `{"__proto__":{"version":"v1","updated-at":"${at}","production":{"version":"v3","updated-at":"${at}"}}}`,
    );
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

/**
 * ESC starting a sequence, CSI as the one C1 character U+009B, RIGHT-TO-LEFT OVERRIDE, LINE SEPARATOR, a lone
 * surrogate: each one a terminal acts on. JSON.stringify alone escapes ESC (and the lone surrogate) but passes the rest.
 */
const HOSTILE = 'x\u001b[2J\u009b31m\u202eevil\u2028line\ud800y';
const ESCAPED = String.raw`x\u001b[2J\u009b31m\u202eevil\u2028line\ud800y`;

/** Printed output that has every character of {@link HOSTILE} escaped and none raw. */
function expectEscaped(text: string): void {
  expect(terminalControlsIn(text)).toEqual([]);
  expect(text).toContain(ESCAPED);
}

describe('answers carrying what a terminal acts on are printed escaped, --json included', () => {
  const provider = (name: string, version: string) => ({
    name,
    type: 'cube',
    version,
    credentials: { secretKey: 'not-echoed-0123456789', instanceUrl: 'https://x.cubecloudapp.dev' },
  });

  test('provider list --json: a name and a version from the service', async () => {
    server.dataProviders.set('a', provider(`cube${HOSTILE}`, `v1.0.0${HOSTILE}`));
    const result = await cli(['provider', 'list', '--json']);
    expect(result.code).toBe(0);
    expectEscaped(result.stdout);
    // `\uXXXX` is JSON's own escape: the document still parses to what the service said.
    expect(jsonOf(result)).toEqual([
      {
        name: `cube${HOSTILE}`,
        type: 'cube',
        version: `v1.0.0${HOSTILE}`,
        credentials: { instanceUrl: 'https://x.cubecloudapp.dev' },
      },
    ]);
  });

  test('provider show, whose text form is JSON: a version from the service', async () => {
    server.dataProviders.set('cube-main', provider('cube-main', HOSTILE));
    const result = await cli(['provider', 'show', '--name', 'cube-main']);
    expect(result.code).toBe(0);
    expectEscaped(result.stdout);
    expect(jsonOf<{ version: string }>(result).version).toBe(HOSTILE);
  });

  test('provider update --json: the record the service answers with', async () => {
    server.dataProviders.set('cube-main', provider(`cube-main`, 'v1.0.0'));
    server.fail({
      method: 'PUT',
      times: 1,
      action: { status: 200, body: JSON.stringify(provider('cube-main', HOSTILE)) },
    });
    const result = await cli(['provider', 'update', '--name', 'cube-main', '--provider-version', 'v2.0.0', '--json']);
    expect(result.code).toBe(0);
    expectEscaped(result.stdout);
  });

  test('versions list --json: a saved-by and a description from the service', async () => {
    const id = server.addDashboard(2);
    const versions = server.dashboards.get(id)?.versions ?? [];
    versions[1] = {
      ...(versions[1] as (typeof versions)[number]),
      savedBy: `mallory${HOSTILE}@example.com`,
      description: HOSTILE,
    };
    const result = await cli(['versions', 'list', id, '--json']);
    expect(result.code).toBe(0);
    expectEscaped(result.stdout);
    expect(result.stdout).toContain(`"saved-by": "mallory${ESCAPED}@example.com"`);
    expect(jsonOf<{ savedVersions: Array<Record<string, unknown>> }>(result).savedVersions[0]).toMatchObject({
      'saved-by': `mallory${HOSTILE}@example.com`,
    });
  });

  test('versions show, whose text form is JSON: the definition from the service', async () => {
    const id = server.addDashboard(1);
    server.setDefinition(id, 'v1', { name: 'sales', title: HOSTILE });
    const result = await cli(['versions', 'show', id, 'v1']);
    expect(result.code).toBe(0);
    expectEscaped(result.stdout);
    expect(jsonOf<{ title: string }>(result).title).toBe(HOSTILE);
  });

  test('security-token --json: the whole answer', async () => {
    const id = server.addDashboard(1);
    server.dataProviders.set('cube-main', provider('cube-main', 'v1.0.0'));
    server.fail({
      method: 'POST',
      path: '/security-token',
      times: 1,
      action: { status: 200, body: JSON.stringify({ token: 'tok_0123456789abcdef', note: HOSTILE }) },
    });
    const result = await cli([
      'security-token',
      id,
      '--data-provider',
      'cube-main',
      '--security-context',
      '{"tenantId":"acme"}',
      '--json',
    ]);
    expect(result.code).toBe(0);
    expectEscaped(result.stdout);
  });

  describe('a refusal quoting the service (a tag of the answer that has no version label)', () => {
    const badTags = () => {
      const id = server.addDashboard(1);
      server.fail({
        method: 'GET',
        path: '/saved-versions',
        times: 1,
        action: { status: 200, body: JSON.stringify({ tags: { [`prod${HOSTILE}`]: {} }, 'saved-versions': [] }) },
      });
      return id;
    };

    test('on standard error, one line, escaped by the same rule', async () => {
      const result = await cli(['versions', 'list', badTags()]);
      expect(result.code).toBe(1);
      expect(result.stdout).toBe('');
      expectEscaped(result.stderr);
      expect(result.stderr).toMatch(/^cube-dual-auth versions list: [^\n]*has no version label\n$/);
    });

    test('with --json, the error document too', async () => {
      const result = await cli(['versions', 'list', badTags(), '--json']);
      expect(result.code).toBe(1);
      expectEscaped(result.stderr);
      // The message quotes the tag as JSON already (ESC and the surrogate are escaped in it): the rest is escaped here.
      expect(terminalControlsIn(result.stdout)).toEqual([]);
      expect(result.stdout).toContain(String.raw`\\u001b[2J\u009b31m\u202eevil\u2028line\\ud800y`);
      expect(jsonOf<{ error: { message: string } }>(result).error.message).toContain(
        `tag ${JSON.stringify(`prod${HOSTILE}`)} has no version label`,
      );
    });
  });
});

describe('provider create and upsert register the secret the deployment signs with, as the hook reads it', () => {
  const create = [
    'provider',
    'create',
    '--name',
    'cube-main',
    '--instance-url',
    'https://main.cubecloudapp.dev',
    '--provider-version',
    'v1.0.0',
  ];
  const upsert = [
    'provider',
    'upsert',
    '--name',
    'cube-main',
    '--instance-url',
    'https://main.cubecloudapp.dev',
    '--provider-version',
    'v1.0.0',
  ];
  const A = 'rotation-first-secret-4f9c2a71';
  const B = 'rotation-second-secret-8b0e3d55';
  const C = 'single-secret-superseded-1a6d';
  const registered = () => server.dataProviders.get('cube-main')?.credentials.secretKey;

  test.each([
    ['create', create],
    ['upsert', upsert],
  ])('%s: CUBEJS_API_SECRETS=a,b replaces CUBEJS_API_SECRET=c, as in Cube: a is registered', async (_action, args) => {
    const result = await cli(args, { CUBEJS_API_SECRETS: `${A},${B}`, CUBEJS_API_SECRET: C });
    expect(result.code).toBe(0);
    expect(registered()).toBe(A);
    expect(result.stdout + result.stderr).not.toContain(A);
  });

  test('CUBEJS_API_SECRET alone is registered, trimmed as the hook reads it', async () => {
    const result = await cli(create, { CUBEJS_API_SECRET: ` ${C} ` });
    expect(result.code).toBe(0);
    expect(registered()).toBe(C);
  });

  test('--secret-env still names the variable to read, whatever the others hold', async () => {
    const result = await cli([...create, '--secret-env', 'PREVIEW_SECRET'], {
      CUBEJS_API_SECRETS: `${A},${B}`,
      PREVIEW_SECRET: C,
    });
    expect(result.code).toBe(0);
    expect(registered()).toBe(C);
  });

  test.each([
    ['neither set', {}],
    [
      'the additional secrets only (they verify, the deployment does not sign with them)',
      { CUBE_DUAL_AUTH_ADDITIONAL_API_SECRETS: A },
    ],
  ])('%s: a usage error naming both variables, nothing sent', async (_case, env) => {
    const result = await cli(create, env);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('neither CUBEJS_API_SECRET nor CUBEJS_API_SECRETS is set');
    expect(server.requests).toEqual([]);
  });
});
