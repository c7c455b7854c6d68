/**
 * `provider create|update|upsert|show` and `rotate-secret` on both of the service's connections (docs/embeddable.md):
 * the contract server holds what each sends and then reaches a Cube stand-in as the service's backend would, a
 * server on 127.0.0.1 answering as Cube's gateway around this package's checkAuth. No run prints a secret or a token.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sign, verify, type JwtPayload } from 'jsonwebtoken';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import { createCheckAuth, type CheckAuth } from '../../../src';
import { jsonOf, runCli, type CliResult } from '../../support/cli';
import { randomSecret } from '../../support/claims';
import type { ContractServer } from '../../support/contract-server';
import { cubeGateway, startDeployment, type Deployment } from '../../support/deployment';
import { API_KEY, createProvider, serviceCommandsBed } from '../../support/service-commands';

const STANDING_JTI = /^cube-dual-auth\.service\.[A-Za-z0-9_-]{22}$/;
/** The deployment's API secret, as strong as the hook requires. */
const SECRET = randomSecret(32);
const NEW = randomSecret(32);
const SECRETS = [API_KEY, SECRET, NEW];

let server: ContractServer;
let env: Record<string, string>;
serviceCommandsBed((bed) => {
  ({ server } = bed);
  env = bed.env({ CUBEJS_API_SECRET: SECRET });
});

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'provider-credential-'));
  writeFileSync(join(dir, 'new'), `${NEW}\n`);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let cube: Deployment | undefined;
let hook: CheckAuth | undefined;
/** A Cube whose hook verifies with `secrets`, as the ready-made hook with `options` would. */
async function startCube(secrets: string[], options: { standingTokenWithoutOrigin?: boolean } = {}) {
  const checkAuth = createCheckAuth({ apiSecret: secrets, ...options });
  hook = checkAuth;
  cube = await startDeployment(cubeGateway((req, token) => checkAuth(req, token)));
  return cube;
}
beforeEach(() => {
  server.coreRequiresJwt = true;
});
afterEach(async () => {
  server.coreRequiresJwt = false;
  await cube?.close();
  hook?.close();
  cube = undefined;
  hook = undefined;
});

/** Runs the CLI; neither a secret nor any token the service was sent reaches its output. */
async function cli(args: readonly string[]): Promise<CliResult> {
  const result = await runCli(args, { env, secrets: SECRETS });
  for (const provider of server.dataProviders.values())
    expect(result.stdout + result.stderr).not.toContain(provider.credentials.secretKey);
  return result;
}

function sentSecretKeys(): unknown[] {
  return server.requests
    .filter((r) => r.method !== 'GET')
    .map((r) => (r.body as { credentials?: { secretKey?: unknown } }).credentials?.secretKey);
}

const HANDBOOK_PAGES = /pages\/data\/cube-cloud\.mdx.*pages\/data\/cube-core\.mdx/;

describe('the Cube Core connection', () => {
  test('create --credential token sends a standing token signed with the API secret, which the Cube accepts', async () => {
    const { url } = await startCube([SECRET]);
    const result = await cli([
      ...createProvider('cube-core', url, 'v1.0.0'),
      '--credential',
      'token',
      '--claims',
      '{"tenant":"acme"}',
    ]);
    expect(result.code, result.stderr).toBe(0);
    const token = server.dataProviders.get('cube-core')?.credentials.secretKey as string;
    const payload = verify(token, SECRET, { algorithms: ['HS256'] }) as JwtPayload;
    expect(payload).toEqual({
      sub: 'embeddable-service',
      tenant: 'acme',
      jti: expect.any(String),
      iat: expect.any(Number),
    });
    expect(payload.jti).toMatch(STANDING_JTI);
    // The service's backend on the Core connection: the token as it is, with and without Request-Origin.
    expect(await server.queryCube('cube-core')).toBe(200);
    expect(await server.queryCube('cube-core', { origin: false })).toBe(403);
  });

  test('without Request-Origin, the opt-in routes the package token by its shape, and it alone', async () => {
    const { url } = await startCube([SECRET], { standingTokenWithoutOrigin: true });
    expect((await cli([...createProvider('cube-core', url, 'v1.0.0'), '--credential', 'token'])).code).toBe(0);
    expect(await server.queryCube('cube-core', { origin: false })).toBe(200);
    // The handbook's own sample, which has no jti of the package's form: the key-set path, as before.
    server.dataProviders.set('handbook', {
      name: 'handbook',
      type: 'cube',
      version: 'v1.0.0',
      credentials: { instanceUrl: url, secretKey: signHandbookSample(SECRET) },
    });
    expect(await server.queryCube('handbook', { origin: false })).toBe(403);
    expect(await server.queryCube('handbook')).toBe(200);
  });

  test.each([
    ['create', createProvider('cube-core', 'http://cube.internal:4000', 'v1.0.0')],
    [
      'upsert',
      [
        'provider',
        'upsert',
        '--name',
        'cube-core',
        '--instance-url',
        'http://10.0.0.7:4000',
        '--provider-version',
        'v1.0.0',
      ],
    ],
    [
      'update',
      [
        'provider',
        'update',
        '--name',
        'cube-core',
        '--instance-url',
        'https://cube.example.com',
        '--provider-version',
        'v1.0.1',
        '--secret-env',
        'CUBEJS_API_SECRET',
      ],
    ],
  ])(
    '%s for a self-hosted URL without --credential: exit 2 naming both handbook pages, nothing sent',
    async (_, args) => {
      const result = await cli(args);
      expect(result.code).toBe(2);
      expect(result.stderr).toContain('--credential secret|token is required for a Cube outside Cube Cloud');
      expect(result.stderr).toMatch(HANDBOOK_PAGES);
      expect(server.requests).toEqual([]);
    },
  );

  test('create --credential secret sends the raw secret: the service refuses it for Cube Core', async () => {
    const result = await cli([
      ...createProvider('cube-core', 'http://cube.internal:4000', 'v1.0.0'),
      '--credential',
      'secret',
    ]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('must be a JWT for Cube Core');
    expect(sentSecretKeys()).toEqual([SECRET]);
  });

  test('update without --instance-url reads the URL from the record: a Core record needs --credential', async () => {
    await cli([...createProvider('cube-core', 'http://cube.internal:4000', 'v1.0.0'), '--credential', 'token']);
    server.requests.length = 0;
    const refused = await cli([
      'provider',
      'update',
      '--name',
      'cube-core',
      '--provider-version',
      'v1.0.1',
      '--secret-env',
      'CUBEJS_API_SECRET',
    ]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(HANDBOOK_PAGES);
    expect(server.requests.map((r) => r.method)).toEqual(['GET']);
    const updated = await cli([
      'provider',
      'update',
      '--name',
      'cube-core',
      '--provider-version',
      'v1.0.1',
      '--credential',
      'token',
    ]);
    expect(updated.code, updated.stderr).toBe(0);
    const [sent] = sentSecretKeys();
    expect((verify(sent as string, SECRET, { algorithms: ['HS256'] }) as JwtPayload).jti).toMatch(STANDING_JTI);
    expect(server.dataProviders.get('cube-core')?.credentials).toEqual({
      secretKey: sent,
      instanceUrl: 'http://cube.internal:4000',
    });
  });

  test('--credential takes secret or token only; --claims is for a token', async () => {
    const args = createProvider('cube-core', 'http://cube.internal:4000', 'v1.0.0');
    const wrong = await cli([...args, '--credential', 'jwt']);
    expect(wrong).toMatchObject({ code: 2 });
    expect(wrong.stderr).toContain('--credential must be "secret" or "token", got "jwt"');
    const claims = await cli([...args, '--credential', 'secret', '--claims', '{"tenant":"a"}']);
    expect(claims.stderr).toContain('--claims is for --credential token');
    const exp = await cli([...args, '--credential', 'token', '--claims', '{"exp":1}']);
    expect(exp.stderr).toContain('--claims must not set "exp"');
    expect(server.requests).toEqual([]);
  });

  test('show tells which kind the record holds, never the value', async () => {
    await cli([...createProvider('cube-core', 'http://cube.internal:4000', 'v1.0.0'), '--credential', 'token']);
    await cli(createProvider('cube-cloud', 'https://acme.aws-us-east-1.cubecloudapp.dev', 'v1.0.0'));
    const core = jsonOf(await cli(['provider', 'show', '--name', 'cube-core']));
    expect(core).toMatchObject({
      credentials: { secretKey: '[redacted]' },
      secretKeyHolds: {
        kind: 'token',
        connection: 'Cube Core',
        token: { alg: 'HS256', mintedByCubeDualAuth: true, expires: false },
      },
    });
    const cloud = jsonOf(await cli(['provider', 'show', '--name', 'cube-cloud', '--json']));
    expect(cloud).toMatchObject({ secretKeyHolds: { kind: 'secret', connection: 'Cube Cloud' } });
  });
});

describe('rotate-secret on each connection', () => {
  function record(url: string, secretKey: string) {
    server.dataProviders.set('cube-main', {
      name: 'cube-main',
      type: 'cube',
      version: 'v1.4.0',
      credentials: { secretKey, instanceUrl: url },
    });
  }
  const rotate = (url: string, ...extra: string[]) =>
    cli([
      'provider',
      'rotate-secret',
      'cube-main',
      '--cube',
      url,
      '--new-secret-file',
      join(dir, 'new'),
      '--json',
      ...extra,
    ]);

  test('--credential token: the Cube is asked with exactly the token then sent, signed with the new secret', async () => {
    const { url, requests } = await startCube([SECRET, NEW]);
    record(url, signHandbookSample(SECRET));
    const result = await rotate(url, '--credential', 'token', '--claims', '{"tenant":"acme"}');
    expect(result.code, result.stderr).toBe(0);
    expect(jsonOf(result)).toMatchObject({ accepted: true, updated: true, credential: 'token' });
    const [sent] = sentSecretKeys();
    expect(verify(sent as string, NEW, { algorithms: ['HS256'] })).toMatchObject({
      tenant: 'acme',
      jti: expect.stringMatching(STANDING_JTI),
    });
    // First the negative control, a token of a random secret (refused), then exactly the token sent.
    const [control, ...asked] = requests.map((r) => r.headers.authorization as string);
    expect(() => verify(control as string, NEW, { algorithms: ['HS256'] })).toThrow(/invalid signature/);
    expect(() => verify(control as string, SECRET, { algorithms: ['HS256'] })).toThrow(/invalid signature/);
    expect(asked).toEqual([sent]);
    expect(await server.queryCube('cube-main')).toBe(200);
  });

  test('--credential secret: the raw new secret, after a per-request token signed with it was accepted', async () => {
    server.coreRequiresJwt = false;
    const { url } = await startCube([SECRET, NEW]);
    record(url, SECRET);
    const result = await rotate(url, '--credential', 'secret');
    expect(result.code, result.stderr).toBe(0);
    expect(sentSecretKeys()).toEqual([NEW]);
    expect(await server.queryCube('cube-main')).toBe(200);
  });

  test('a self-hosted record without --credential: exit 2 before the Cube is asked or anything is sent', async () => {
    const { url, requests } = await startCube([SECRET, NEW]);
    record(url, SECRET);
    const result = await rotate(url);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(HANDBOOK_PAGES);
    expect(requests).toEqual([]);
    expect(server.requests.map((r) => r.method)).toEqual(['GET']);
  });
});

/** The handbook's Cube Core sample: `{ sub: 'docs-user' }`, HS256, never expiring, no jti. */
function signHandbookSample(secret: string): string {
  return sign({ sub: 'docs-user' }, secret, { algorithm: 'HS256' });
}
