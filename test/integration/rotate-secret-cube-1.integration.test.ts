// `provider rotate-secret` against a real Cube 1.7.43 (the example project, this package installed from `npm pack`)
// and the service's contract server: the Cube is asked with a service token signed with the new secret before the
// service is changed, and a Cube without the new secret leaves the service as it was. On the Cube Core connection
// (--credential token), the Cube is asked with exactly the standing token then sent (docs/embeddable.md).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sign, verify } from 'jsonwebtoken';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ensureCube } from '../../scripts/ensure-cube.mjs';
import { startCube, type RunningCube } from '../../scripts/lib/cube-server.mjs';
import { createRedactor } from '../../scripts/lib/redact.mjs';
import { TENANT_CLAIMS } from '../../scripts/lib/stack.mjs';
import { jsonOf, runBin } from '../support/cli';
import { randomSecret } from '../support/claims';
import { startContractServer, type ContractServer } from '../support/contract-server';

const INSTALL_AND_START_TIMEOUT_MS = 15 * 60_000;
const API_KEY = 'emb_rotate_5b2e8c1f9a7d3064';
const OLD = randomSecret(32);
const NEW = randomSecret(32);
const OTHER = randomSecret(32);
const SECRETS = [API_KEY, OLD, NEW, OTHER];

let cube: RunningCube;
/** The Cube's log lines that say it accepted a standing service token for the first time. */
const standingLines: string[] = [];
let server: ContractServer;
let dir: string;

beforeAll(async () => {
  const { projectDir, line } = await ensureCube({ line: '1' });
  // Step 1 of the rotation done: the Cube verifies with the old secret and the new one.
  cube = await startCube({
    projectDir,
    line,
    redact: createRedactor(SECRETS),
    env: { ...TENANT_CLAIMS, CUBEJS_API_SECRET: OLD, CUBEJS_API_SECRETS: `${OLD},${NEW}` },
    onLine: (line) => {
      if (line.includes("accepted cube-dual-auth's own service token")) standingLines.push(line);
    },
  });
  server = await startContractServer({ apiKey: API_KEY, echoSecretKey: true });
  dir = mkdtempSync(join(tmpdir(), 'rotate-secret-cube-'));
  writeFileSync(join(dir, 'new'), `${NEW}\n`);
  writeFileSync(join(dir, 'other'), `${OTHER}\n`);
}, INSTALL_AND_START_TIMEOUT_MS);

afterAll(async () => {
  await cube?.stop();
  await server?.close();
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
});

/** rotate-secret of a record whose Cube is on 127.0.0.1 (self-hosted: --credential is required) holding `secretKey`. */
function rotate(file: string, extra: string[], secretKey = OLD) {
  server.dataProviders.set('cube-main', {
    name: 'cube-main',
    type: 'cube',
    version: 'v2.0.1',
    credentials: { secretKey, instanceUrl: cube.url },
  });
  server.requests.length = 0;
  return runBin(
    [
      'provider',
      'rotate-secret',
      'cube-main',
      '--cube',
      cube.url,
      '--new-secret-file',
      join(dir, file),
      '--claims',
      '{"tenant":"acme"}',
      '--json',
      ...extra,
    ],
    {
      env: { EMBEDDABLE_API_KEY: API_KEY, EMBEDDABLE_BASE_URL: server.baseUrl, CUBE_DUAL_AUTH_MAX_TOKEN_AGE: '900' },
      secrets: [...SECRETS, secretKey],
      // The default --wait (60 s) and one question's 5 s, beyond which the command would be hanging.
      killAfterMs: 70_000,
    },
  );
}

it('updates the service once the real Cube accepts the new secret, and says when the old one can go', async () => {
  const result = await rotate('new', ['--credential', 'secret']);
  expect(result.code, result.stderr).toBe(0);
  // Cube compiles its model on the first /meta: on a loaded machine that outlasts one question's 5 s, and the next
  // question is accepted.
  expect(jsonOf(result)).toMatchObject({
    accepted: true,
    attempts: expect.any(Number),
    updated: true,
    version: 'v2.0.1',
    check: { status: 200, verdict: 'PASS' },
    lastStep: { tokenLifetimeSeconds: 905, removeOldSecretAfter: expect.stringMatching(/Z$/) },
  });
  expect(server.requestsTo('PUT', '/data-providers/cube-main').map((r) => r.body)).toEqual([
    { type: 'cube', version: 'v2.0.1', credentials: { secretKey: NEW } },
  ]);
}, 90_000);

it('a real Cube without the new secret: exit 1 after --wait, the service unchanged', async () => {
  const result = await rotate('other', ['--credential', 'secret', '--wait', '2s']);
  expect(result.code).toBe(1);
  expect(jsonOf(result)).toMatchObject({ accepted: false, updated: false, check: { status: 403, verdict: 'FAIL' } });
  expect(result.stderr).toMatch(/did not accept a service token signed with the new secret within 2 s/);
  expect(result.stderr).toMatch(/Nothing was changed at the service\./);
  expect(server.requests.filter((r) => r.method !== 'GET')).toEqual([]);
  expect(server.dataProviders.get('cube-main')?.credentials.secretKey).toBe(OLD);
}, 30_000);

it('--credential token: the real Cube accepts exactly the token sent, signed with the new secret, before the update', async () => {
  // The handbook's Cube Core sample, signed with the old secret, is what the service holds before.
  const before = sign({ sub: 'docs-user', tenant: 'acme' }, OLD, { algorithm: 'HS256' });
  const result = await rotate('new', ['--credential', 'token'], before);
  expect(result.code, result.stderr).toBe(0);
  expect(jsonOf(result)).toMatchObject({ accepted: true, updated: true, credential: 'token', check: { status: 200 } });
  const puts = server.requestsTo('PUT', '/data-providers/cube-main');
  expect(puts).toHaveLength(1);
  const sent = (puts[0]?.body as { credentials: { secretKey: string } }).credentials.secretKey;
  expect(verify(sent, NEW, { algorithms: ['HS256'] })).toMatchObject({
    tenant: 'acme',
    jti: expect.stringMatching(/^cube-dual-auth\.service\.[A-Za-z0-9_-]{22}$/),
  });
  expect(result.stdout + result.stderr).not.toContain(sent.split('.')[2]);
  // The Cube logs each standing token once: it saw one, and the token now sent is that one (no second line).
  expect(standingLines).toHaveLength(1);
  expect(await server.queryCube('cube-main', { origin: true })).toBe(200);
  expect(standingLines).toHaveLength(1);
  expect(standingLines[0]).toContain('every request it carries gets one and the same security context');
}, 90_000);
