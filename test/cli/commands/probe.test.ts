import { mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sign as jwtSign, verify as jwtVerify } from 'jsonwebtoken';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCheckAuth, optionsFromEnv, type CheckAuth } from '../../../src';
import { jsonOf, runBin, runCli, terminalControlsIn, type CliOptions, type CliResult } from '../../support/cli';
import { randomSecret, timed } from '../../support/claims';
import {
  answer,
  cubeGateway,
  META_BODY,
  naiveCheckAuth,
  startDeployment,
  type Deployment,
  type Handler,
} from '../../support/deployment';
import { startJwksServer, type JwksServer } from '../../support/jwks-server';
import { ALL_CHECKS_PASS } from '../../support/probe';
import { generateKeyPair, type TestKeyPair } from '../../support/keys';
import { signToken } from '../../support/tokens';

/** The `--json` document, as `probe --help` documents it. */
interface ProbeJson {
  url: string;
  origin: string;
  timeoutMs: number;
  ok: boolean;
  checks: Array<{
    name: string;
    expected: 200 | 403;
    status: number | null;
    ms: number | null;
    verdict: 'PASS' | 'FAIL' | 'SKIP';
    reason: string;
  }>;
}

const CHECKS = [
  'no-token',
  'garbage-token',
  'service-token',
  'service-token-without-origin',
  'idp-token',
  'idp-token-with-origin',
];
const SECRET = randomSecret(32);
const env = { CUBEJS_API_SECRET: SECRET };

let key: TestKeyPair;
let jwks: JwksServer;
const hooks: CheckAuth[] = [];
const deployments: Deployment[] = [];
let dir: string;
let idpToken: string;
let idpTokenFile: string;

beforeAll(async () => {
  key = generateKeyPair('RS256', { kid: 'k1' });
  jwks = await startJwksServer({ keys: [key.jwk] });
  dir = mkdtempSync(join(tmpdir(), 'probe-test-'));
  idpToken = signToken(timed({ sub: 'user-1', tenant: 'globex' }), { key });
  idpTokenFile = join(dir, 'id-token.txt');
  writeFileSync(idpTokenFile, `Bearer ${idpToken}\n`);
});

afterAll(async () => {
  hooks.forEach((hook) => hook.close());
  await Promise.all(deployments.map((deployment) => deployment.close()));
  await jwks.close();
  rmSync(dir, { recursive: true, force: true });
});

async function deployment(handler: Handler): Promise<Deployment> {
  const started = await startDeployment(handler);
  deployments.push(started);
  return started;
}

/** A Cube whose cube.js holds this package's checkAuth, configured as given. */
function withOurHook(options: Parameters<typeof createCheckAuth>[0] = {}): Promise<Deployment> {
  const hook = createCheckAuth({ apiSecret: SECRET, jwksUri: jwks.url, ...options });
  hooks.push(hook);
  return deployment(cubeGateway(hook));
}

/** A Cube whose cube.js holds the usual snippet (jsonwebtoken, plain Errors): Cube answers 500. */
function withNaiveHook(): Promise<Deployment> {
  return deployment(cubeGateway(naiveCheckAuth(SECRET, key.publicKey)));
}

/** Runs probe in this process and checks what must hold for every run: neither the secret nor a whole token printed. */
async function probe(args: string[], options: CliOptions = {}): Promise<CliResult> {
  return runCli(['probe', ...args], { env, ...options, secrets: [SECRET, idpToken] });
}

async function probeJson(args: string[], options: CliOptions = {}): Promise<{ result: CliResult; json: ProbeJson }> {
  const result = await probe([...args, '--json'], options);
  return { result, json: jsonOf<ProbeJson>(result) };
}

/** The verdicts against a deployment that lets through what it must refuse: only the two valid tokens pass. */
const VALID_TOKENS_ONLY_PASS = {
  'no-token': 'FAIL',
  'garbage-token': 'FAIL',
  'service-token': 'PASS',
  'service-token-without-origin': 'FAIL',
  'idp-token': 'PASS',
  'idp-token-with-origin': 'FAIL',
};
const verdicts = (json: ProbeJson) => Object.fromEntries(json.checks.map((check) => [check.name, check.verdict]));
const check = (json: ProbeJson, name: string) => json.checks.find((c) => c.name === name)!;

describe('cube-dual-auth probe, against a deployment with this package', () => {
  it('passes every check, prints one line per check and exits 0', async () => {
    const cube = await withOurHook();
    const result = await probe([`${cube.url}/cubejs-api/v1`, '--token-file', idpTokenFile]);
    expect(result.code).toBe(0);
    expect(result.stderr).toBe('');
    const lines = result.stdout.split('\n');
    expect(lines[0]).toBe(`Probing ${cube.url}/cubejs-api/v1 (Request-Origin: embeddable, timeout 5000 ms)`);
    expect(lines.slice(2, 8)).toEqual(ALL_CHECKS_PASS);
    expect(lines.slice(8)).toEqual(['', 'OK: 6 passed, 0 failed, 0 skipped', '']);
  });

  it('--json: the documented shape, the six checks in order, with expected and answered statuses', async () => {
    const cube = await withOurHook();
    const { result, json } = await probeJson([cube.url, '--token-file', idpTokenFile]);
    expect(result.code).toBe(0);
    expect(Object.keys(json)).toEqual(['url', 'origin', 'timeoutMs', 'ok', 'checks']);
    expect(json).toMatchObject({ url: `${cube.url}/cubejs-api/v1`, origin: 'embeddable', timeoutMs: 5000, ok: true });
    expect(json.checks.map((c) => c.name)).toEqual(CHECKS);
    expect(json.checks.map((c) => [c.expected, c.status, c.verdict])).toEqual([
      [403, 403, 'PASS'],
      [403, 403, 'PASS'],
      [200, 200, 'PASS'],
      [403, 403, 'PASS'],
      [200, 200, 'PASS'],
      [403, 403, 'PASS'],
    ]);
    for (const c of json.checks) {
      expect(Object.keys(c)).toEqual(['name', 'expected', 'status', 'ms', 'verdict', 'reason']);
      expect(c.ms).toBeGreaterThanOrEqual(0);
    }
  });

  it('sends what the service and an app send: GET <base>/meta, the bare token, Request-Origin only where due', async () => {
    const cube = await withOurHook();
    await probe([`${cube.url}/cubejs-api/v1/`, '--token-file', idpTokenFile]);
    expect(cube.requests.map((r) => r.path)).toEqual(Array(6).fill('/cubejs-api/v1/meta'));
    const [none, garbage, service, serviceBare, idp, idpWithOrigin] = cube.requests.map((r) => r.headers);
    expect(none?.authorization).toBeUndefined();
    expect(garbage?.authorization).toMatch(/^eyJ[\w-]+\.[\w-]+\.[\w-]+$/);
    expect(service?.['request-origin']).toBe('embeddable');
    expect(jwtVerify(service?.authorization as string, SECRET, { algorithms: ['HS256'] })).toMatchObject({
      iat: expect.any(Number),
    });
    const { exp, iat } = jwtVerify(service?.authorization as string, SECRET) as { exp: number; iat: number };
    expect(exp - iat).toBe(60);
    expect(serviceBare?.authorization).toBe(service?.authorization);
    expect(serviceBare?.['request-origin']).toBeUndefined();
    expect(idp?.authorization).toBe(idpToken);
    expect(idp?.['request-origin']).toBeUndefined();
    expect(idpWithOrigin?.['request-origin']).toBe('embeddable');
    for (const r of [none, garbage, serviceBare, idp]) expect(r?.['request-origin']).toBeUndefined();
  });

  it('reads the identity provider token from standard input with --token -', async () => {
    const cube = await withOurHook();
    const { result, json } = await probeJson([cube.url, '--token', '-'], { stdin: `${idpToken}\n` });
    expect(result.code).toBe(0);
    expect(verdicts(json)).toMatchObject({ 'idp-token': 'PASS', 'idp-token-with-origin': 'PASS' });
    expect(cube.requests[4]?.headers.authorization).toBe(idpToken);
  });

  it('skips the service-token checks without an API secret and the idp-token checks without a token, saying why; exit 0', async () => {
    const cube = await withOurHook();
    const result = await probe([cube.url], { env: {} });
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(
      /^ {2}SKIP {2}service-token {19}- {9}- {2}neither CUBEJS_API_SECRET nor CUBEJS_API_SECRETS is set, nor an api-secrets file in CUBE_DUAL_AUTH_SECRETS_DIR: no service token to sign/m,
    );
    expect(result.stdout).toMatch(
      /^ {2}SKIP {2}idp-token-with-origin {11}- {9}- {2}no identity-provider token: give one with --token-file <file> or --token -$/m,
    );
    expect(result.stdout).toMatch(/\nOK: 2 passed, 0 failed, 4 skipped\n$/);
    expect(cube.requests).toHaveLength(2);
    const { json } = await probeJson([cube.url], { env: {} });
    expect(json.checks.filter((c) => c.verdict === 'SKIP').map((c) => [c.name, c.status, c.ms])).toEqual([
      ['service-token', null, null],
      ['service-token-without-origin', null, null],
      ['idp-token', null, null],
      ['idp-token-with-origin', null, null],
    ]);
  });

  it("signs a service token with each secret of Cube's rotation list CUBEJS_API_SECRETS, which replaces CUBEJS_API_SECRET", async () => {
    const [replaced, second] = [randomSecret(32), randomSecret(32)];
    const cube = await withOurHook({ apiSecret: [SECRET, second] });
    const { result, json } = await probeJson([cube.url], {
      env: { CUBEJS_API_SECRETS: `${SECRET},${second}`, CUBEJS_API_SECRET: replaced },
    });
    expect(check(json, 'service-token')).toMatchObject({
      status: 200,
      verdict: 'PASS',
      reason: expect.stringMatching(/\(each of the 2 API secrets in force\)$/),
    });
    expect(jwtVerify(cube.requests[2]?.headers.authorization as string, SECRET)).toMatchObject({
      exp: expect.any(Number),
    });
    expect(jwtVerify(cube.requests[3]?.headers.authorization as string, second)).toMatchObject({
      exp: expect.any(Number),
    });
    for (const secret of [replaced, second]) expect(result.stdout + result.stderr).not.toContain(secret);
  });

  it('fails the service-token check when the Cube refuses one API secret in force, naming where it came from', async () => {
    const cube = await withOurHook();
    const stale = randomSecret(32);
    const { result, json } = await probeJson([cube.url], { env: { CUBEJS_API_SECRETS: `${SECRET},${stale}` } });
    expect(result.code).toBe(1);
    expect(check(json, 'service-token')).toMatchObject({
      status: 403,
      verdict: 'FAIL',
      reason: expect.stringMatching(/^signed with the secret of CUBEJS_API_SECRETS: expected 200, got 403/),
    });
    expect(result.stdout + result.stderr).not.toContain(stale);
  });

  it('signs the service token with --claims, for a deployment that requires claims', async () => {
    const cube = await withOurHook({ requiredClaims: ['tenant'] });
    const without = await probeJson([cube.url]);
    expect(without.result.code).toBe(1);
    expect(check(without.json, 'service-token')).toMatchObject({
      status: 403,
      verdict: 'FAIL',
      reason: expect.stringMatching(/^expected 200, got 403: ".*tenant/),
    });
    const withClaims = await probeJson([cube.url, '--claims', '{"tenant":"acme"}']);
    expect(withClaims.result.code).toBe(0);
    expect(check(withClaims.json, 'service-token')).toMatchObject({ status: 200, verdict: 'PASS' });
    expect(jwtVerify(cube.requests.at(-2)?.headers.authorization as string, SECRET)).toMatchObject({ tenant: 'acme' });
  });

  it("suggests --claims when the deployment's tenant claim, read from the environment, is not in them", async () => {
    const cube = await withOurHook({ tenantClaim: 'tenant_id' });
    const tenantEnv = { ...env, CUBE_DUAL_AUTH_TENANT_CLAIM: 'tenant_id' };
    const without = await probeJson([cube.url], { env: tenantEnv });
    expect(check(without.json, 'service-token')).toMatchObject({
      status: 403,
      verdict: 'FAIL',
      reason: expect.stringMatching(
        /^expected 200, got 403: .*; service tokens need the tenant claim "tenant_id" \(CUBE_DUAL_AUTH_TENANT_CLAIM\): give the tenant to probe as with --claims '\{"tenant_id":"<tenant>"\}'$/,
      ),
    });
    // A JSON Pointer shapes the claims it suggests; the service's own claim takes the place of the shared one.
    const nested = await probeJson([cube.url], {
      env: { ...tenantEnv, CUBE_DUAL_AUTH_SERVICE_TENANT_CLAIM: '/securityContext/tenant' },
    });
    expect(check(nested.json, 'service-token').reason).toMatch(
      /--claims '\{"securityContext":\{"tenant":"<tenant>"\}\}'$/,
    );
    const given = await probeJson([cube.url, '--claims', '{"tenant_id":"acme"}'], { env: tenantEnv });
    expect(check(given.json, 'service-token')).toMatchObject({ status: 200, verdict: 'PASS' });
    // Without the setting in its environment, probe has nothing to suggest.
    expect(check((await probeJson([cube.url])).json, 'service-token').reason).not.toContain('--claims');
  });

  it('sends --origin, else CUBE_DUAL_AUTH_ORIGIN, as the Request-Origin of the service', async () => {
    const cube = await withOurHook({ origin: 'my-embedder' });
    const byDefault = await probeJson([cube.url]);
    expect(verdicts(byDefault.json)).toMatchObject({ 'service-token': 'FAIL' });
    const given = await probeJson([cube.url, '--origin', 'my-embedder']);
    expect(given.result.code).toBe(0);
    expect(given.json.origin).toBe('my-embedder');
    const fromEnv = await probeJson([cube.url], { env: { ...env, CUBE_DUAL_AUTH_ORIGIN: 'my-embedder' } });
    expect(fromEnv.result.code).toBe(0);
    expect(cube.requests.at(-2)?.headers['request-origin']).toBe('my-embedder');
  });
});

describe('cube-dual-auth probe, against deployments that fail the contract', () => {
  it('a naive hook (jsonwebtoken, plain Errors): the 500s and stack traces fail, exit 1', async () => {
    const cube = await withNaiveHook();
    const { result, json } = await probeJson([cube.url, '--token-file', idpTokenFile]);
    expect(result.code).toBe(1);
    expect(json.ok).toBe(false);
    expect(verdicts(json)).toEqual(VALID_TOKENS_ONLY_PASS);
    expect(check(json, 'no-token')).toMatchObject({
      status: 500,
      reason: expect.stringMatching(
        /^expected 403, got 500 \(what Cube answers when checkAuth throws a plain Error\); the body holds a stack trace: "JsonWebTokenError: jwt must be provided"$/,
      ),
    });
    expect(check(json, 'garbage-token').reason).toMatch(
      /^expected 403, got 500 .*; the body holds a stack trace: "JsonWebTokenError: /,
    );
  });

  it('a deployment that answers 500 to everything: every check fails, the summary says how many', async () => {
    const cube = await deployment((_request, response) => answer(response, 500, '{"error":"Internal Server Error"}'));
    const result = await probe([cube.url, '--token-file', idpTokenFile]);
    expect(result.code).toBe(1);
    expect(
      result.stdout.match(
        /^ {2}FAIL {2}.* 500 .*expected (200|403), got 500 \(what Cube answers when checkAuth throws a plain Error\)/gm,
      ),
    ).toHaveLength(6);
    expect(result.stdout).toMatch(/\nFAIL: 0 passed, 6 failed, 0 skipped\n$/);
  });

  it('a deployment that echoes the token fails, and probe shows the answer with the token masked', async () => {
    const cube = await deployment((request, response) => {
      const token = request.headers.authorization;
      if (token === undefined) return answer(response, 403, '{"error":"Authentication required"}');
      answer(response, 403, JSON.stringify({ error: `Invalid token ${token}` }));
    });
    const { result, json } = await probeJson([cube.url, '--token-file', idpTokenFile]);
    expect(result.code).toBe(1);
    expect(check(json, 'garbage-token')).toMatchObject({
      verdict: 'FAIL',
      reason: 'the body echoes the token: "Invalid token [token]"',
    });
    expect(check(json, 'service-token-without-origin').reason).toBe(
      'the body echoes the token: "Invalid token [token]"',
    );
    expect(check(json, 'idp-token-with-origin').reason).toBe('the body echoes the token: "Invalid token [token]"');
    const garbage = cube.requests[1]?.headers.authorization as string;
    expect(result.stdout).not.toContain(garbage);
  });

  it("a deployment that echoes only the token's signature fails", async () => {
    const cube = await deployment((request, response) => {
      const signature = request.headers.authorization?.split('.')[2];
      if (signature === undefined) return answer(response, 403, '{"error":"Authentication required"}');
      answer(response, 403, JSON.stringify({ error: `Bad signature ${signature}` }));
    });
    const { json } = await probeJson([cube.url]);
    expect(check(json, 'garbage-token')).toMatchObject({
      verdict: 'FAIL',
      reason: 'the body echoes the token\'s signature: "Bad signature [signature]"',
    });
    expect(json.checks.map((c) => c.reason).join('\n')).not.toContain(
      cube.requests[1]?.headers.authorization?.split('.')[2],
    );
  });

  it('a refusal laden with escape sequences is shown escaped, whole letters kept, in the report and in --json', async () => {
    const refusal = 'Nein\u001b[2J\u009b31m\u202e, Schlüssel ungültig';
    const cube = await deployment((_request, response) => answer(response, 403, JSON.stringify({ error: refusal })));
    const result = await probe([cube.url]);
    expect(terminalControlsIn(result.stdout)).toEqual([]);
    expect(result.stdout).toMatch(
      /^ {2}PASS {2}garbage-token {17}403 +\d+ ms {2}"Nein\\u001b\[2J\\u009b31m\\u202e, Schlüssel ungültig"$/m,
    );
    const { result: jsonResult, json } = await probeJson([cube.url]);
    expect(terminalControlsIn(jsonResult.stdout)).toEqual([]);
    expect(check(json, 'garbage-token').reason).toBe(JSON.stringify(refusal));
  });

  it('a 403 with a stack trace fails', async () => {
    const cube = await deployment((request, response) => {
      if (request.headers.authorization === undefined)
        return answer(response, 403, '{"error":"Authentication required"}');
      answer(
        response,
        403,
        JSON.stringify({
          error: 'Invalid token',
          stack: 'Error: Invalid token\n    at checkAuth (/cube/conf/cube.js:12:11)',
        }),
      );
    });
    const { json } = await probeJson([cube.url]);
    expect(check(json, 'garbage-token')).toMatchObject({
      status: 403,
      verdict: 'FAIL',
      reason: 'the body holds a stack trace: "Invalid token"',
    });
  });

  it("Cube's built-in authentication (another body for no token) fails the no-token check, naming both bodies", async () => {
    const cube = await deployment((_request, response) =>
      answer(response, 403, '{"error":"Authorization header isn\'t set"}'),
    );
    const { json } = await probeJson([cube.url]);
    expect(check(json, 'no-token')).toMatchObject({
      verdict: 'FAIL',
      reason:
        '403, but the body is "{\\"error\\":\\"Authorization header isn\'t set\\"}", not {"error":"Authentication required"}',
    });
  });

  it('an open deployment (200 to anyone) fails every check that must be refused', async () => {
    const cube = await deployment((_request, response) => answer(response, 200, META_BODY));
    const { json } = await probeJson([cube.url, '--token-file', idpTokenFile]);
    expect(verdicts(json)).toEqual(VALID_TOKENS_ONLY_PASS);
    expect(check(json, 'no-token').reason).toBe(
      'expected 403, got 200: the deployment accepted a request it must refuse',
    );
  });

  it("a 200 that is not Cube's /meta (a login page of a proxy) fails", async () => {
    const cube = await withOurHook();
    const proxy = await deployment((request, response) =>
      request.headers.authorization === undefined
        ? answer(response, 403, '{"error":"Authentication required"}')
        : answer(response, 200, '<html>Sign in</html>', 'text/html'),
    );
    const { json } = await probeJson([proxy.url]);
    expect(check(json, 'service-token')).toMatchObject({
      status: 200,
      verdict: 'FAIL',
      reason: "200, but the body is not Cube's /meta answer (no list of cubes)",
    });
    expect(cube.requests).toHaveLength(0);
  });
});

describe('cube-dual-auth probe, against a deployment that does not answer', () => {
  it('a deployment that hangs: the first check fails at the deadline, the others are not sent', async () => {
    const cube = await deployment(() => undefined);
    const { result, json } = await probeJson([cube.url, '--timeout', '200', '--token-file', idpTokenFile]);
    expect(result.code).toBe(1);
    expect(json.timeoutMs).toBe(200);
    expect(json.checks.map((c) => [c.name, c.status, c.verdict, c.reason])).toEqual([
      ['no-token', null, 'FAIL', 'no complete answer within 200 ms'],
      ...CHECKS.slice(1).map((name) => [name, null, 'FAIL', 'not sent: no-token got no answer']),
    ]);
    expect(check(json, 'no-token').ms).toBeGreaterThanOrEqual(200);
    expect(cube.requests).toHaveLength(1);
    // One deadline, not six.
    expect(result.ms).toBeLessThan(6 * 200 + result.lateMs);
  });

  it('a deployment that hangs on some requests only: each of those fails at its deadline, the others are judged', async () => {
    const hook = createCheckAuth({ apiSecret: SECRET });
    hooks.push(hook);
    const gateway = cubeGateway(hook);
    const cube = await deployment((request, response) =>
      request.headers['request-origin'] === undefined && request.headers.authorization !== undefined
        ? undefined
        : gateway(request, response),
    );
    const { json } = await probeJson([cube.url, '--timeout', '200']);
    expect(json.checks.map((c) => [c.name, c.verdict, c.reason.slice(0, 32)])).toEqual([
      ['no-token', 'PASS', '"Authentication required"'],
      ['garbage-token', 'FAIL', 'no complete answer within 200 ms'],
      ['service-token', 'PASS', '/meta lists 1 cube'],
      ['service-token-without-origin', 'FAIL', 'no complete answer within 200 ms'],
      ['idp-token', 'SKIP', 'no identity-provider token: give'],
      ['idp-token-with-origin', 'SKIP', 'no identity-provider token: give'],
    ]);
  });

  it('an address where nothing listens: connection refused, the others not sent', async () => {
    const closed = await deployment(() => undefined);
    await closed.close();
    const result = await probe([closed.url]);
    expect(result.code).toBe(1);
    const port = new URL(closed.url).port;
    expect(result.stdout).toMatch(
      new RegExp(
        `^ {2}FAIL {2}no-token {24}- +\\d+ ms {2}cannot reach 127\\.0\\.0\\.1:${port}: connection refused \\(ECONNREFUSED\\)$`,
        'm',
      ),
    );
    expect(result.stdout).toMatch(/^ {2}FAIL {2}garbage-token {19}- {9}- {2}not sent: no-token got no answer$/m);
  });
});

describe('cube-dual-auth probe, usage errors (exit 2)', () => {
  it.each([
    [
      ['not a url'],
      /^cube-dual-auth probe: <cube-api-url> is not a URL: expected something like https:\/\/cube\.example\.com\/cubejs-api\/v1\n/,
    ],
    [['ftp://cube.example.com'], /<cube-api-url> must be an http\(s\) URL/],
    [['https://user:pw@cube.example.com'], /<cube-api-url> must not carry credentials/],
    [['https://cube.example.com/cubejs-api/v1?x=1'], /<cube-api-url> must not have a query or a fragment/],
    [[], /expected <cube-api-url>, got 0 argument\(s\)/],
    [['https://a.example', 'https://b.example'], /expected <cube-api-url>, got 2 argument\(s\)/],
    [['https://cube.example.com', '--token', '-', '--token-file', 'x'], /--token-file and --token exclude each other/],
    [
      ['https://cube.example.com', '--timeout', '0'],
      /--timeout must be a whole number of milliseconds from 1 to 600000, got "0"/,
    ],
    [['https://cube.example.com', '--timeout', '5s'], /--timeout must be a whole number of milliseconds/],
    [['https://cube.example.com', '--claims', '[1]'], /--claims must be a JSON object/],
    [['https://cube.example.com', '--origin', 'two words'], /--origin must be a non-empty header value without spaces/],
    [
      ['https://cube.example.com', '--token-file', '/nonexistent/id-token'],
      /cannot read \/nonexistent\/id-token: ENOENT/,
    ],
  ])('%j', async (args, message) => {
    const result = await probe(args);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(message);
    expect(result.stderr).toMatch(/\nRun 'cube-dual-auth probe --help' for usage\.\n$/);
  });

  it('refuses a token on the command line without repeating it', async () => {
    const result = await probe(['https://cube.example.com', '--token', idpToken]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(
      /--token takes only - \(standard input\): tokens are never taken from the command line/,
    );
  });

  it('refuses an empty token file and standard input, and a file of two tokens', async () => {
    const empty = join(dir, 'empty.txt');
    writeFileSync(empty, '\n');
    expect((await probe(['https://cube.example.com', '--token-file', empty])).stderr).toMatch(
      `no token in ${empty}: it is empty`,
    );
    expect((await probe(['https://cube.example.com', '--token', '-'], { stdin: '' })).stderr).toMatch(
      'no token in standard input: it is empty',
    );
    const result = await probe(['https://cube.example.com', '--token', '-'], { stdin: `${idpToken}\n${idpToken}\n` });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(
      'standard input must hold one token: one line of printable characters without spaces',
    );
  });

  it('--help documents the checks, the JSON shape and the exit status', async () => {
    const result = await runCli(['probe', '--help']);
    expect(result.code).toBe(0);
    for (const name of CHECKS) expect(result.stdout).toMatch(new RegExp(`^ {2}${name} `, 'm'));
    expect(result.stdout).toContain('{"url": string, "origin": string, "timeoutMs": number, "ok": boolean,');
    expect(result.stdout).toContain(
      'Exit status:\n  0  no check failed (skipped ones allowed)\n  1  a check failed\n  2  wrong command line',
    );
  });
});

describe('cube-dual-auth probe, the built bin', () => {
  it('exits 0 against a deployment with this package, 1 against the naive hook, 2 on a wrong command line', async () => {
    const good = await withOurHook();
    const naive = await withNaiveHook();
    const passed = await runBin(['probe', good.url, '--token', '-'], { env, stdin: idpToken });
    expect(passed.code, passed.stdout + passed.stderr).toBe(0);
    expect(passed.stdout).toMatch(/\nOK: 6 passed, 0 failed, 0 skipped\n$/);
    const failed = await runBin(['probe', naive.url, '--token-file', idpTokenFile], { env });
    expect(failed.code).toBe(1);
    expect(failed.stdout).toMatch(/\nFAIL: 2 passed, 4 failed, 0 skipped\n$/);
    const usage = await runBin(['probe', 'nowhere'], { env });
    expect(usage.code).toBe(2);
    for (const result of [passed, failed, usage])
      expect(result.stdout + result.stderr).not.toMatch(new RegExp(`${SECRET}|${idpToken}`));
  });

  it('exits at the deadline against a deployment that hangs', async () => {
    const hung = await deployment(() => undefined);
    const result = await runBin(['probe', hung.url, '--timeout', '300'], { env });
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/no complete answer within 300 ms/);
    // Nothing keeps the process alive after the report: it exits once it has written it.
    expect(result.ms - result.outputEndMs!).toBeLessThan(1_000 + result.lateMs);
  });
});

describe('probe as the readiness probe through the three-step rotation of docs/rotation.md', () => {
  /** Replaces a file whole, as Kubernetes swaps a Secret's volume. */
  function swap(file: string, text: string): void {
    writeFileSync(`${file}.next`, text);
    renameSync(`${file}.next`, file);
  }

  /** Waits until the hook's verdict on a token signed with `secret` is `accepted`: the reload is in force. */
  async function inForce(hook: CheckAuth, secret: string, accepted: boolean): Promise<void> {
    const token = jwtSign({ iat: Math.floor(Date.now() / 1000) }, secret, { algorithm: 'HS256' });
    for (let i = 0; i < 100; i++) {
      const explanation = await hook.explain({ headers: { 'request-origin': 'embeddable' } }, token);
      if (explanation.accepted === accepted) return;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error('the secrets directory was not reloaded within 5 s');
  }

  it('passes at every step with the old secret left in the environment, and names the file it signed from', async () => {
    const [OLD, NEW] = [randomSecret(32), randomSecret(32)];
    const secrets = join(dir, 'rotation-secrets');
    mkdirSync(secrets);
    const file = join(secrets, 'api-secrets');
    writeFileSync(file, `${OLD}\n`);
    // The pod's environment keeps the secret it started with, as a Deployment's env does.
    const pod = { CUBEJS_API_SECRET: OLD, CUBE_DUAL_AUTH_SECRETS_DIR: secrets, CUBE_DUAL_AUTH_SECRETS_POLL_MS: '100' };
    const hook = createCheckAuth(optionsFromEnv(pod));
    hooks.push(hook);
    const cube = await deployment(cubeGateway(hook));
    const readiness = async () => {
      const { result, json } = await probeJson([cube.url], { env: pod });
      return { code: result.code, serviceToken: check(json, 'service-token') };
    };
    expect(await readiness()).toMatchObject({ code: 0, serviceToken: { verdict: 'PASS' } });
    // Step 1: the new secret beside the old one, on every replica.
    swap(file, `${NEW}\n${OLD}\n`);
    await inForce(hook, NEW, true);
    expect(await readiness()).toMatchObject({
      code: 0,
      serviceToken: { verdict: 'PASS', reason: expect.stringMatching(/each of the 2 API secrets in force/) },
    });
    // Step 2 changes the service only: the Cube holds both still.
    expect(await readiness()).toMatchObject({ code: 0, serviceToken: { verdict: 'PASS' } });
    // Step 3: the old secret leaves the file; CUBEJS_API_SECRET still holds it.
    swap(file, `${NEW}\n`);
    await inForce(hook, OLD, false);
    expect(await readiness()).toMatchObject({ code: 0, serviceToken: { verdict: 'PASS', status: 200 } });
    // The control: judged from the environment alone, as before, the probe would fail every pod here.
    const stale = await probeJson([cube.url], { env: { CUBEJS_API_SECRET: OLD } });
    expect(stale.result.code).toBe(1);
    expect(check(stale.json, 'service-token')).toMatchObject({ verdict: 'FAIL', status: 403 });
  });
});
