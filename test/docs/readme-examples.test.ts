/**
 * The README and the pages of docs/ show what the commands print: every `$ cube-dual-auth ...` example in them is
 * run again, with the built bin, against a deployment that reproduces the example (identity providers and Cube
 * deployments on 127.0.0.1, tokens made here with the claims shown), and must print what the page shows. What
 * varies from run to run is normalised on both sides: ports, durations, dates, the last characters of a token, the
 * Cube project's directory. An example with a line "(... left out)" shows a selection of the lines, in their order.
 * docs/ci-cd.md's examples, of the service's commands, have a test of their own (ci-cd.test.ts).
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { createCheckAuth, optionsFromEnv, type CheckAuth } from '../../src';
import { runBin } from '../support/cli';
import { cubeJsIn, RECOMMENDED_CUBE_JS } from '../support/cube';
import { randomSecret } from '../support/claims';
import { cubeStandIn } from '../support/access-cube';
import { cubeGateway, naiveCheckAuth, startDeployment, type Deployment } from '../support/deployment';
import { examplesIn, shellWords } from '../support/doc-examples';
import { startIssuerServer, type IssuerServer } from '../support/issuer-server';
import { startJwksServer, type JwksServer } from '../support/jwks-server';
import { generateKeyPair, publicJwk } from '../support/keys';
import { signToken } from '../support/tokens';

const root = join(__dirname, '..', '..');
/** The pages whose examples this test runs: the README and every page of docs/ but ci-cd.md. */
const PAGES = [
  'README.md',
  ...readdirSync(join(root, 'docs'))
    .filter((file) => file.endsWith('.md') && file !== 'ci-cd.md')
    .map((file) => `docs/${file}`),
];

/** Where a run happens: the environment, the working directory, and the values of the line's variables. */
interface Scene {
  readonly env: Record<string, string>;
  readonly cwd: string;
  readonly variables: Record<string, string>;
}

/** One run behind the pages: a command line as a page writes it, in a scene. */
interface Run {
  readonly line: string;
  readonly scene: () => Scene | Promise<Scene>;
}

const SECRET = randomSecret(32);
const SQL_KEY_SECRET = randomSecret(32);
const now = () => Math.floor(Date.now() / 1000);
const cleanups: Array<() => unknown> = [];
let project: string;
let idp: JwksServer;
let acme: Scene;
let acmeCube: Deployment;
let naiveCube: Deployment;
let acmeProbeDir: string;
let providers: [IssuerServer, IssuerServer];

/** The deployment of the Troubleshooting examples: an identity provider on this machine, Cube 0.33.65 in /srv/cube. */
async function acmeDeployment(): Promise<void> {
  project = mkdtempSync(join(tmpdir(), 'readme-cube-'));
  const gateway = join(project, 'node_modules', '@cubejs-backend', 'api-gateway');
  mkdirSync(gateway, { recursive: true });
  writeFileSync(
    join(gateway, 'package.json'),
    JSON.stringify({ name: '@cubejs-backend/api-gateway', version: '0.33.65', main: 'index.js' }),
  );
  writeFileSync(join(gateway, 'index.js'), 'module.exports = {};\n');
  // The cube.js the README recommends, with cube-dual-auth installed: doctor reads what it exports.
  cubeJsIn(project, RECOMMENDED_CUBE_JS);
  cleanups.push(() => rmSync(project, { recursive: true, force: true }));

  const key = generateKeyPair('RS256', { kid: '2026-11-rsa' });
  acmeKey = key;
  const encryption = generateKeyPair('RS256', { kid: '2026-11-enc' });
  idp = await startJwksServer({ keys: [key.jwk, publicJwk(encryption.publicKey, { kid: '2026-11-enc', use: 'enc' })] });
  cleanups.push(() => idp.close());
  const issuer = new URL('/', idp.url).href;
  const env = {
    CUBEJS_API_SECRET: SECRET,
    CUBEJS_JWK_URL: idp.url,
    CUBEJS_JWT_AUDIENCE: 'https://cube.acme.example',
    CUBEJS_JWT_ISSUER: issuer,
  };
  const idToken = signToken(
    {
      sub: 'user-5f7c8ec7c33c',
      aud: 'https://cube.acme.example',
      iss: issuer,
      tenant: 'acme',
      roles: ['analyst'],
      iat: now() - 90,
      exp: now() + 3510,
    },
    { key },
  );
  const serviceToken = signToken(
    { securityContext: { tenant: 'acme' }, iat: now() - 90, exp: now() + 870 },
    { alg: 'HS256', key: SECRET },
  );
  acme = { env, cwd: project, variables: { ID_TOKEN: idToken, SERVICE_TOKEN: serviceToken } };

  const hook: CheckAuth = createCheckAuth(optionsFromEnv(env));
  cleanups.push(() => hook.close());
  acmeCube = await startDeployment(cubeGateway(hook));
  naiveCube = await startDeployment(cubeGateway(naiveCheckAuth(SECRET, key.publicKey)));
  cleanups.push(
    () => acmeCube.close(),
    () => naiveCube.close(),
  );
  acmeProbeDir = mkdtempSync(join(tmpdir(), 'readme-probe-'));
  mkdirSync(join(acmeProbeDir, '.cache', 'cube-dual-auth', 'demo'), { recursive: true });
  writeFileSync(join(acmeProbeDir, '.cache', 'cube-dual-auth', 'demo', 'customer.token'), `${idToken}\n`);
  cleanups.push(() => rmSync(acmeProbeDir, { recursive: true, force: true }));
}

let acmeKey: ReturnType<typeof generateKeyPair>;

/** The acme deployment handing out SQL keys ("BI tools over the SQL API"): Alice's token in alice.token. */
function acmeSqlKeys(): Scene {
  const { CUBEJS_JWT_AUDIENCE: audience, CUBEJS_JWT_ISSUER: issuer } = acme.env;
  const aliceToken = signToken(
    {
      sub: 'u-1',
      email: 'alice@acme.example',
      aud: audience,
      iss: issuer,
      tenant: 'acme',
      roles: ['analyst'],
      iat: now() - 90,
      exp: now() + 210,
    },
    { key: acmeKey },
  );
  writeFileSync(join(project, 'alice.token'), `${aliceToken}\n`);
  const env = {
    ...acme.env,
    CUBE_DUAL_AUTH_TENANT_CLAIM: 'tenant',
    CUBE_DUAL_AUTH_GROUPS_CLAIM: 'roles',
    CUBE_DUAL_AUTH_SQL_USER_CLAIM: 'email',
    CUBE_DUAL_AUTH_SQL_KEY_SECRETS: SQL_KEY_SECRET,
  };
  return { ...acme, env, variables: { ALICE_TOKEN: aliceToken } };
}

let workforceToken: string;
let partnerToken: string;

/** The deployment of "Several identity providers": two identity providers on this machine, known by their issuers. */
async function twoProviders(): Promise<void> {
  providers = [await startIssuerServer(), await startIssuerServer()];
  cleanups.push(
    () => providers[0].close(),
    () => providers[1].close(),
  );
  const [customers, workforce] = providers;
  const customersKey = generateKeyPair('RS256', { kid: 'demo-8e1a75fa' });
  const workforceKey = generateKeyPair('RS256', { kid: 'demo-4ff03e63' });
  customers.jwks = { keys: [customersKey.jwk] };
  workforce.jwks = { keys: [workforceKey.jwk] };
  workforceToken = signToken(
    {
      sub: 'employee-17',
      aud: 'https://cube.workforce.example',
      iss: workforce.issuer,
      iat: now() - 90,
      exp: now() + 3510,
    },
    { key: workforceKey },
  );
  partnerToken = signToken(
    {
      sub: 'partner-3',
      aud: 'https://cube.acme.example',
      iss: 'https://login.partner.example/',
      iat: now() - 90,
      exp: now() + 3510,
    },
    { key: customersKey },
  );
}

function severalProviders(): Scene {
  const [customers, workforce] = providers;
  const list = [{ issuer: customers.issuer }, { issuer: workforce.issuer, audience: 'https://cube.workforce.example' }];
  return {
    env: {
      CUBEJS_API_SECRET: SECRET,
      CUBEJS_JWT_AUDIENCE: 'https://cube.acme.example',
      CUBE_DUAL_AUTH_PROVIDERS: JSON.stringify(list),
    },
    cwd: project,
    variables: { WORKFORCE_TOKEN: workforceToken, PARTNER_TOKEN: partnerToken },
  };
}

/** The acme deployment with authorization on: the tenant in "tenant", groups in "roles", service tokens' "embeddable". */
function acmeTenants(): Scene {
  writeFileSync(join(project, 'service.token'), `${acme.variables.SERVICE_TOKEN}\n`);
  const env = {
    ...acme.env,
    CUBE_DUAL_AUTH_TENANT_CLAIM: 'tenant',
    CUBE_DUAL_AUTH_GROUPS_CLAIM: 'roles',
    CUBE_DUAL_AUTH_SERVICE_GROUPS: 'embeddable',
  };
  return { ...acme, env };
}

let accessCube: Deployment | undefined;

/** The acme deployment with authorization on, before a Cube stand-in answering as Cube 1.7.43's access policies do. */
async function acmeAccess(): Promise<Scene> {
  const scene = acmeTenants();
  if (accessCube === undefined) {
    const hook = createCheckAuth(optionsFromEnv(scene.env));
    const started = await startDeployment(cubeStandIn(hook));
    cleanups.push(
      () => hook.close(),
      () => started.close(),
    );
    accessCube = started;
  }
  writeFileSync(join(project, 'id-token.txt'), `${acme.variables.ID_TOKEN}\n`);
  const variables = { CUBE_API_URL: `${accessCube.url}/cubejs-api/v1`, ID_TOKEN: acme.variables.ID_TOKEN as string };
  return { ...scene, variables };
}

const ACCESS = `access "$CUBE_API_URL" --service --claims '{"tenant":"acme","roles":["analyst"]}' --compare-token-file id-token.txt`;

const PROBE = `probe "$CUBE_API_URL" --claims '{"tenant":"acme"}' --token-file .cache/cube-dual-auth/demo/customer.token`;

/** The runs behind the pages, in their order but for the last, which needs the identity provider down. */
const RUNS: Run[] = [
  { line: 'doctor', scene: severalProviders },
  { line: 'verify "$WORKFORCE_TOKEN"', scene: severalProviders },
  { line: 'verify "$PARTNER_TOKEN"', scene: severalProviders },
  { line: 'verify "$ID_TOKEN"', scene: () => acme },
  { line: 'verify "$SERVICE_TOKEN"', scene: () => acme },
  { line: 'doctor', scene: () => acme },
  { line: 'verify "$ID_TOKEN"', scene: acmeTenants },
  { line: 'verify "$SERVICE_TOKEN" --origin', scene: acmeTenants },
  { line: 'doctor --token-file service.token', scene: acmeTenants },
  { line: 'sql-key --token-file alice.token', scene: acmeSqlKeys },
  {
    line: PROBE,
    scene: () => ({ ...acme, cwd: acmeProbeDir, variables: { CUBE_API_URL: `${acmeCube.url}/cubejs-api/v1` } }),
  },
  {
    line: PROBE,
    scene: () => ({ ...acme, cwd: acmeProbeDir, variables: { CUBE_API_URL: `${naiveCube.url}/cubejs-api/v1` } }),
  },
  { line: ACCESS, scene: acmeAccess },
  {
    line: 'doctor',
    // A short secret, no audience, and the identity provider down.
    scene: async () => {
      await idp.stop();
      const env = Object.fromEntries(Object.entries(acme.env).filter(([name]) => name !== 'CUBEJS_JWT_AUDIENCE'));
      return { ...acme, env: { ...env, CUBEJS_API_SECRET: 'k9F3xQ7pL2mZ8vR4tY6wB1' } };
    },
  },
];

/** What each run printed, by command line (a line run in several scenes printed several things). */
const printed = new Map<string, string[]>();

beforeAll(async () => {
  await acmeDeployment();
  await twoProviders();
  for (const { line, scene } of RUNS) {
    const { env, cwd, variables } = await scene();
    const result = await runBin(shellWords(line, variables), { env, cwd });
    const tokens = Object.entries(variables).flatMap(([name, value]) => (name.endsWith('_TOKEN') ? [value] : []));
    for (const secret of [SECRET, SQL_KEY_SECRET, ...tokens])
      expect(result.stdout + result.stderr).not.toContain(secret);
    // The pages show standard output, then standard error.
    printed.set(line, [...(printed.get(line) ?? []), normalised(result.stdout + result.stderr, cwd)]);
  }
}, 60_000);
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

/** The text with what varies between runs replaced by placeholders; the run's working directory shown as /srv/cube. */
function normalised(text: string, cwd = '/srv/cube'): string {
  return text
    .split(cwd)
    .join('/srv/cube')
    .replace(/127\.0\.0\.1:\d+/g, '127.0.0.1:<port>')
    .replace(/ +\d+ ms\b/g, ' <n> ms')
    .replace(/\bNode \d+\.\d+\.\d+/g, 'Node <version>')
    .replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ/g, '<date>')
    .replace(/\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/g, '<id>')
    .replace(/\b1\d{9}\b/g, '<seconds>')
    .replace(/(\(\d+ chars\)…)[\w-]{3}(?=[\s"]|$)/gm, '$1<end>')
    .replace(/\n+$/, '');
}

/** Whether `shown` is `actual`, or, for an example that says lines are left out, a selection of its lines in order. */
function shows(shown: string, actual: string): boolean {
  const lines = shown.split('\n');
  if (!lines.some((line) => /^\s*\(.*left out\)$/.test(line))) return shown === actual;
  let at = 0;
  const actualLines = actual.split('\n');
  for (const line of lines.filter((l) => !/^\s*\(.*left out\)$/.test(l))) {
    at = actualLines.indexOf(line, at);
    if (at < 0) return false;
    at += 1;
  }
  return true;
}

const examples = PAGES.flatMap((page) =>
  examplesIn(readFileSync(join(root, page), 'utf8')).map((example) => ({ page, ...example })),
);

test('the pages show runs of the commands, every run behind them shown', () => {
  expect(examples.length).toBeGreaterThanOrEqual(14);
  const shown = new Set(examples.map((example) => example.command));
  expect(RUNS.map((run) => run.line).filter((line) => !shown.has(line))).toEqual([]);
});

test.each(examples.map((example) => [example.page, example.command, example]))(
  '%s: $ cube-dual-auth %s',
  (_page, command, example) => {
    expect(
      RUNS.map((run) => run.line),
      'a command in the pages that this test does not run',
    ).toContain(command);
    const shown = normalised(example.output);
    const outputs = printed.get(command) ?? [];
    // On a mismatch, the nearest run is shown for comparison.
    if (!outputs.some((output) => shows(shown, output))) expect(shown).toBe(outputs.join('\n\n---\n\n'));
  },
);
