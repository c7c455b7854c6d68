// `cube-dual-auth access` against a Cube stand-in on 127.0.0.1 (test/support/access-cube.ts), which answers what
// Cube 1.7.43 answered the authorization fixture. The real Cube lines are in
// test/integration/access-cube-*.integration.test.ts.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCheckAuth, type CheckAuth } from '../../../src';
import { jsonOf, runCli, terminalControlsIn, type CliResult } from '../../support/cli';
import { randomSecret, timed } from '../../support/claims';
import { cubeStandIn, HOSTILE_CUBE, HOSTILE_PARAM } from '../../support/access-cube';
import { startDeployment, type Deployment } from '../../support/deployment';
import { startJwksServer, type JwksServer } from '../../support/jwks-server';
import { generateKeyPair, type TestKeyPair } from '../../support/keys';
import { signToken } from '../../support/tokens';

const SECRET = randomSecret(32);
const AUTHORIZATION = {
  CUBE_DUAL_AUTH_TENANT_CLAIM: 'tenant',
  CUBE_DUAL_AUTH_GROUPS_CLAIM: 'groups',
  CUBE_DUAL_AUTH_SERVICE_GROUPS: 'embeddable',
};

let key: TestKeyPair;
let jwks: JwksServer;
let hook: CheckAuth;
let cube: Deployment;
let dir: string;
let env: Record<string, string>;
/** Every token written to a file, which must never be printed. */
const tokens: string[] = [];

/** A file holding an identity-provider token of `claims`. */
function idpTokenFile(name: string, claims: Record<string, unknown>): string {
  const token = signToken(timed({ sub: name, ...claims }), { key });
  tokens.push(token);
  const file = join(dir, `${name}.txt`);
  writeFileSync(file, `Bearer ${token}\n`);
  return file;
}

beforeAll(async () => {
  key = generateKeyPair('RS256', { kid: 'k1' });
  jwks = await startJwksServer({ keys: [key.jwk] });
  dir = mkdtempSync(join(tmpdir(), 'access-test-'));
  env = { CUBEJS_API_SECRET: SECRET, CUBEJS_JWK_URL: jwks.url, ...AUTHORIZATION };
  hook = createCheckAuth({
    apiSecret: SECRET,
    jwksUri: jwks.url,
    tenantClaim: 'tenant',
    groupsClaim: 'groups',
    serviceGroups: ['embeddable'],
  });
  cube = await startDeployment(cubeStandIn(hook));
});

afterAll(async () => {
  hook.close();
  await cube.close();
  await jwks.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Runs access in this process: neither the secret nor a token may be printed, nor anything a terminal acts on. */
async function access(
  args: string[],
  options: { env?: Record<string, string>; stdin?: string } = {},
): Promise<CliResult> {
  const result = await runCli(['access', ...args], {
    env: options.env ?? env,
    stdin: options.stdin,
    secrets: [SECRET, ...tokens],
  });
  expect(result.stdout + result.stderr).not.toMatch(/eyJ/);
  expect(terminalControlsIn(result.stdout + result.stderr)).toEqual([]);
  return result;
}

const SERVICE_ANALYST = ['--service', '--claims', '{"tenant":"acme","roles":["analyst"]}'];

describe('access: one token', () => {
  it("shows the service analyst's tenant and groups, cubes, view, members and row conditions", async () => {
    const before = cube.requests.length;
    const result = await access([cube.url, ...SERVICE_ANALYST]);
    expect(result.code, result.stderr).toBe(0);
    const lines = result.stdout.split('\n');
    expect(lines).toEqual(
      expect.arrayContaining([
        `Access at ${cube.url}/cubejs-api/v1 (timeout 5000 ms, deadline 120000 ms)`,
        'The first caller: service token minted with the API secret, claims {"tenant":"acme","roles":["analyst"]}, Request-Origin: embeddable',
        '  verified here  accepted on the shared-secret path: tenant "acme", groups "analyst", "embeddable"',
        '  Cube           accepted it: /meta shows 3 cubes, 1 view',
        '  cube "orders"',
        '    measures     "orders.count"',
        '    dimensions   "orders.tenant", "orders.region"',
        '    rows         "orders".tenant = ? ["acme"] (/sql of "orders.count")',
        '  view "embedded_orders"',
        '    rows         "orders".tenant = ? ["acme"] AND "orders".tenant = ? ["acme"] (/sql of "embedded_orders.count")',
        '  cube "compilation"',
        '    rows         every row (no condition) (/sql of "compilation.compiled_for")',
      ]),
    );
    // Reads only: /meta once, then /sql once per cube and view, each with the service's origin.
    const sent = cube.requests.slice(before);
    expect(sent.map((request) => new URL(request.path, cube.url).pathname)).toEqual([
      '/cubejs-api/v1/meta',
      ...Array(4).fill('/cubejs-api/v1/sql'),
    ]);
    expect(sent.every((request) => request.headers['request-origin'] === 'embeddable')).toBe(true);
  });

  it('reads the token from standard input with --token -', async () => {
    const token = signToken(timed({ sub: 'stdin', tenant: 'globex', groups: ['analyst'] }), { key });
    tokens.push(token);
    const result = await access([cube.url, '--token', '-', '--cube', 'orders'], { stdin: `Bearer ${token}\n` });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('The first caller: token from standard input\n');
    expect(result.stdout).toContain('    rows         "orders".tenant = ? ["globex"] (/sql of "orders.count")\n');
  });

  it('says plainly that no cube is visible, naming the groups', async () => {
    const file = idpTokenFile('nobody', { tenant: 'acme', groups: ['nobody'] });
    const result = await access([cube.url, '--token-file', file]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('  Cube           accepted it: /meta shows 0 cubes, 0 views\n');
    expect(result.stdout).toContain('  no cube is visible: no access policy grants the groups ["nobody"]\n');
  });

  it('reports a cube named with --cube that /meta hides, with no member of it to ask about', async () => {
    const intern = idpTokenFile('intern', { tenant: 'acme', groups: ['intern'] });
    const result = await access([cube.url, '--token-file', intern, '--cube', 'orders']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain(
      '  "orders": not shown by /meta\n    rows         not asked: no member of it is shown to either caller\n',
    );
  });

  it("gives Cube's refusal of a token and verify's fix, exit 1", async () => {
    const result = await access([cube.url, '--service', '--claims', '{"roles":["analyst"]}']);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain(
      '  verified here  refused: ERR_TENANT_MISSING: The token has no tenant claim "tenant" (CUBE_DUAL_AUTH_TENANT_CLAIM), so the request cannot be given a tenant\n' +
        '  Cube           refused the token: The token has no tenant claim "tenant"\n' +
        '  fix            Put the tenant in the security context the service signs, under the claim CUBE_DUAL_AUTH_TENANT_CLAIM names.\n',
    );
  });

  it('says when this environment cannot verify the token, and still asks Cube', async () => {
    const file = idpTokenFile('analyst-unknown-here', { tenant: 'acme', groups: ['analyst'] });
    const result = await access([cube.url, '--token-file', file], { env: { CUBEJS_API_SECRET: SECRET } });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/^ {2}verified here {2}not known here: ERR_JWKS_NOT_CONFIGURED: /m);
    expect(result.stdout).toContain('    rows         "orders".tenant = ? ["acme"] (/sql of "orders.count")\n');
  });

  it('exits 1 when Cube answers 500', async () => {
    const result = await access([cube.url, '--service', '--claims', '{"tenant":"boom","roles":["analyst"]}']);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain('  Cube           failed: 500: Error: Internal error\n');
  });

  it('ends a request Cube does not answer at the deadline, exit 1', async () => {
    const result = await access([
      cube.url,
      '--service',
      '--claims',
      '{"tenant":"slow","roles":["analyst"]}',
      '--timeout',
      '200',
    ]);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain('  Cube           failed: no complete answer within 200 ms\n');
  });

  it('exits 1 when Cube cannot be reached', async () => {
    const closed = await startDeployment(() => undefined);
    await closed.close();
    const result = await access([closed.url, ...SERVICE_ANALYST]);
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(
      /Cube {11}failed: cannot reach 127\.0\.0\.1:\d+: connection refused \(ECONNREFUSED\)/,
    );
  });

  it('escapes names and parameters from Cube that a terminal would act on, in text and in --json', async () => {
    const claims = ['--service', '--claims', '{"tenant":"hostile","roles":["analyst"]}'];
    const text = await access([cube.url, ...claims]);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toContain('  cube "evil\\u001b[2J\\u202e"\n');
    expect(text.stdout).toContain('x = ? ["\\u001b]0;owned\\u0007"]');
    const json = jsonOf<{ callers: { cubes: { name: string }[]; rows: { conditions: { params: string[] }[] }[] }[] }>(
      await access([cube.url, ...claims, '--json']),
    );
    expect(json.callers[0]?.cubes[0]?.name).toBe(HOSTILE_CUBE);
    expect(json.callers[0]?.rows[0]?.conditions[0]?.params).toEqual([HOSTILE_PARAM]);
  });

  it('refuses to mint a service token without an API secret, exit 1', async () => {
    const result = await access([cube.url, ...SERVICE_ANALYST], { env: {} });
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      'cube-dual-auth access: neither CUBEJS_API_SECRET nor CUBEJS_API_SECRETS is set: there is no secret to mint a service token with\n',
    );
  });
});

describe('access: two tokens compared', () => {
  it('finds the same data for the service analyst and an identity-provider analyst of the same tenant, in orders', async () => {
    const analyst = idpTokenFile('analyst', { tenant: 'acme', groups: ['analyst'] });
    const result = await access([cube.url, ...SERVICE_ANALYST, '--compare-token-file', analyst, '--cube', 'orders']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/\nThe same data: both callers see the same cubes, members and rows\.\n$/);
  });

  it('names what only the service sees (its view) and the rows that differ, over every cube', async () => {
    const analyst = idpTokenFile('analyst-all', { tenant: 'acme', groups: ['analyst'] });
    const result = await access([cube.url, ...SERVICE_ANALYST, '--compare-token-file', analyst]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain(
      [
        '  view "embedded_orders": only the first caller sees it',
        '  rows of "embedded_orders":',
        '    first   "orders".tenant = ? ["acme"] AND "orders".tenant = ? ["acme"]',
        '    second  1 = 0',
        'Not the same data: 2 differences.',
        '',
      ].join('\n'),
    );
    expect(result.stdout).toContain(
      '  "embedded_orders": not shown by /meta\n    rows         none: Cube denies it, 1 = 0 (/sql of "embedded_orders.count")\n',
    );
  });

  it('tells an analyst from an intern: members and rows', async () => {
    const analyst = idpTokenFile('analyst-2', { tenant: 'acme', groups: ['analyst'] });
    const intern = idpTokenFile('intern-2', { tenant: 'acme', groups: ['intern'] });
    const json = jsonOf<{ comparison: { same: boolean; differences: object[] } }>(
      await access([cube.url, '--token-file', analyst, '--compare-token-file', intern, '--cube', 'orders', '--json']),
    );
    expect(json.comparison).toEqual({
      same: false,
      differences: [
        { kind: 'cube', cube: 'orders', type: 'cube', only: 'first' },
        { kind: 'rows', cube: 'orders', first: '"orders".tenant = ? ["acme"]', second: '1 = 0' },
      ],
    });
  });

  it('tells tenants apart by the parameters of the same condition', async () => {
    const result = await access([
      cube.url,
      ...SERVICE_ANALYST,
      '--compare-service',
      '--compare-claims',
      '{"tenant":"globex","roles":["analyst"]}',
      '--cube',
      'orders',
    ]);
    expect(result.stdout).toContain(
      '  rows of "orders":\n    first   "orders".tenant = ? ["acme"]\n    second  "orders".tenant = ? ["globex"]\nNot the same data: 1 difference.\n',
    );
  });

  it('does not compare when Cube refuses one token, exit 1', async () => {
    const result = await access([cube.url, ...SERVICE_ANALYST, '--compare-service', '--compare-claims', '{}']);
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/\nNot compared: Cube did not accept both tokens\.\n$/);
  });
});

describe('access --json', () => {
  it('prints the documented shape', async () => {
    const json = jsonOf<Record<string, unknown>>(
      await access([cube.url, ...SERVICE_ANALYST, '--cube', 'orders', '--json']),
    );
    expect(json).toEqual({
      url: `${cube.url}/cubejs-api/v1`,
      timeoutMs: 5000,
      deadlineMs: 120000,
      deadlinePassed: false,
      ok: true,
      callers: [
        {
          side: 'first',
          token: 'service token minted with the API secret, claims {"tenant":"acme","roles":["analyst"]}',
          requestOrigin: 'embeddable',
          verifiedHere: {
            known: true,
            accepted: true,
            path: 'shared-secret',
            authorization: { tenant: 'acme', groups: ['analyst', 'embeddable'] },
            error: null,
          },
          cube: { accepted: true, status: 200, message: null, hint: null },
          cubes: [
            {
              name: 'orders',
              type: 'cube',
              measures: ['orders.count'],
              dimensions: ['orders.tenant', 'orders.region'],
              segments: [],
            },
          ],
          noCubeVisible: null,
          rows: [
            {
              cube: 'orders',
              shown: true,
              member: 'orders.count',
              summary: '"orders".tenant = ? ["acme"]',
              status: 'conditions',
              conditions: [{ sql: '"orders".tenant = ?', params: ['acme'] }],
              denied: false,
              message: null,
            },
          ],
        },
      ],
      comparison: null,
    });
  });
});

describe('access: the command line', () => {
  const usage = async (args: string[], message: string | RegExp) => {
    const before = cube.requests.length;
    const result = await access(args);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
    expect(cube.requests.length).toBe(before);
  };

  it('wants the token one way', async () => {
    await usage([cube.url], /give the token one way: --token-file <file>, --token - or --service \(got none\)/);
    await usage([cube.url, '--service', '--token', '-'], /\(got 2\)/);
    await usage([cube.url, '--service', '--token-file', 'token.jwt'], /\(got 2\)/);
    await usage([cube.url, '--token', '-', '--token-file', 'token.jwt'], /--token-file and --token exclude each other/);
  });

  it('never takes a token on the command line, and does not repeat it', async () => {
    const token = signToken(timed({ tenant: 'acme' }), { key });
    tokens.push(token);
    await usage([cube.url, '--token', token], /--token takes only - \(standard input\)/);
  });

  it('takes claims only for a service token, as JSON objects', async () => {
    await usage([cube.url, '--token-file', 'x', '--claims', '{}'], /--claims goes with --service/);
    await usage([cube.url, '--service', '--claims', '[1]'], /--claims must be a JSON object/);
    await usage(
      [cube.url, ...SERVICE_ANALYST, '--compare-service', '--compare-claims', 'nope'],
      /--compare-claims is not JSON/,
    );
    await usage(
      [cube.url, ...SERVICE_ANALYST, '--compare-claims', '{}'],
      /--compare-claims goes with --compare-service/,
    );
  });

  it('takes one second token', async () => {
    await usage(
      [cube.url, ...SERVICE_ANALYST, '--compare-service', '--compare-token-file', 'x'],
      /--compare-token-file and --compare-service exclude each other/,
    );
  });

  it('refuses a bad URL, timeout or cube name, and an unreadable token file', async () => {
    await usage(['not a url', ...SERVICE_ANALYST], /<cube-api-url> is not a URL/);
    await usage([cube.url, ...SERVICE_ANALYST, '--timeout', '0'], /--timeout must be a whole number/);
    await usage([cube.url, ...SERVICE_ANALYST, '--cube', 'a b'], /--cube takes a cube's or view's name/);
    await usage([cube.url, '--token-file', join(dir, 'missing.txt')], /cannot read .*missing\.txt: ENOENT/);
  });
});
