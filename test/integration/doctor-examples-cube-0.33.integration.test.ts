// doctor in examples/cube-project itself, on the Cube 0.33.65 it installs, with the environment its README documents
// for running Cube 0.33 there: no line warns or fails. And doctor's cube-start line against Cube 0.33.65's own start
// (test/support/cube-start-agreement.ts).
import { beforeAll, afterAll, expect, it } from 'vitest';
import { ensureCube } from '../../scripts/ensure-cube.mjs';
import { cubeLine } from '../../scripts/lib/cube-lines.mjs';
import { join } from 'node:path';
import { cubeStartAgreement } from '../support/cube-start-agreement';
import { CUBE_PROJECT_ENV, doctorIn, expectAllOk } from '../support/doctor-examples';
import { startJwksServer, type JwksServer } from '../support/jwks-server';
import { generateKeyPair, jwks } from '../support/keys';

const INSTALL_TIMEOUT_MS = 15 * 60_000;
const line = cubeLine('0.33');
let idp: JwksServer;

beforeAll(async () => {
  await ensureCube({ line: '0.33' });
  idp = await startJwksServer(jwks(generateKeyPair('RS256', { kid: 'k1' })));
}, INSTALL_TIMEOUT_MS);
afterAll(() => idp?.close());

it('examples/cube-project on Cube 0.33.65: every line ok, Cube 0.33 asked for no contextToGroups', async () => {
  const bin = join(line.projectDir, 'node_modules', 'cube-dual-auth', 'dist', 'cli', 'main.js');
  const json = await doctorIn(bin, line.projectDir, CUBE_PROJECT_ENV(idp.url));
  expectAllOk(json, '0.33');
  expect(json.checks.find(({ id }) => id === 'cube-gateway')?.message).toMatch(/api-gateway 0\.33\.65 resolves from /);
  expect(json.checks.find(({ id }) => id === 'node')?.message).toMatch(
    /^Node \d+\.\d+\.\d+: Cube 0\.33\.65 starts on it/,
  );
}, 60_000);

cubeStartAgreement(line);
