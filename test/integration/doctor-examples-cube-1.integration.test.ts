// doctor in each example project of examples/ that runs on Cube 1.x, in real Cube 1.7.43 with the package installed
// as a user installs it, each with the environment its README documents: no line warns or fails (but the Node line on
// a Node that Cube 1.7.43 refuses). A project dir is made next to Cube's node_modules, as the tests run the examples.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureCube } from '../../scripts/ensure-cube.mjs';
import { cubeLine } from '../../scripts/lib/cube-lines.mjs';
import { ACCESS_POLICIES_ENV, CUBE_PROJECT_ENV, doctorIn, exampleIn, expectAllOk } from '../support/doctor-examples';
import { startJwksServer, type JwksServer } from '../support/jwks-server';
import { generateKeyPair, jwks } from '../support/keys';

const INSTALL_TIMEOUT_MS = 15 * 60_000;
const line = cubeLine('1');
const bin = join(line.projectDir, 'node_modules', 'cube-dual-auth', 'dist', 'cli', 'main.js');
let idp: JwksServer;

beforeAll(async () => {
  await ensureCube({ line: '1' });
  idp = await startJwksServer(jwks(generateKeyPair('RS256', { kid: 'k1' })));
}, INSTALL_TIMEOUT_MS);
afterAll(() => idp?.close());

describe('doctor in the examples on Cube 1.7.43, each with its documented environment', () => {
  it.each([
    ['access-policies', ACCESS_POLICIES_ENV],
    ['cube-cloud', ACCESS_POLICIES_ENV],
    ['typescript', CUBE_PROJECT_ENV],
  ])(
    'examples/%s: every line ok',
    async (name, environment) => {
      const dir = exampleIn(name, join(line.projectDir, 'doctor-examples', name));
      const json = await doctorIn(bin, dir, environment(idp.url));
      expectAllOk(json, '1');
      expect(json.checks.find(({ id }) => id === 'cube-js')?.message).toMatch(/exports checkAuth \(cube-dual-auth's\)/);
    },
    60_000,
  );

  it('examples/cube-project, as the demo installs it for Cube 1.x: every line ok, contextToGroups asked of no policy', async () => {
    const json = await doctorIn(bin, line.projectDir, CUBE_PROJECT_ENV(idp.url));
    expectAllOk(json, '1');
    expect(json.checks.find(({ id }) => id === 'cube-options')?.message).toMatch(
      /^cube\.js exports no contextToGroups, which no access policy of .* needs; exports contextToAppId/,
    );
  }, 60_000);

  it("the README's whole set-up (examples/access-policies): one compiled model is safe, said as the model's file shows", async () => {
    const dir = exampleIn('access-policies', join(line.projectDir, 'doctor-examples', 'access-policies'));
    const json = await doctorIn(bin, dir, ACCESS_POLICIES_ENV(idp.url));
    expect(json.checks.find(({ id }) => id === 'cube-options')).toEqual({
      id: 'cube-options',
      status: 'ok',
      message: expect.stringMatching(
        /^cube\.js exports contextToGroups \(Cube 1\.7\.43\); exports no contextToAppId: one compiled model serves every tenant, which is safe, as Cube evaluates securityContext \(in SQL and access policies\) per query; no file of .*model reads COMPILE_CONTEXT$/,
      ) as string,
    });
  }, 60_000);
});
