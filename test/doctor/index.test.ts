import { beforeAll, describe, expect, it } from 'vitest';
import { diagnose } from '../../src/doctor';
import { randomSecret } from '../support/claims';
import { NODE_LINE_CUBE_1 } from '../support/cube';
import { diagnoseFixture } from '../support/diagnose';
import type { JwksServer } from '../support/jwks-server';

const SECRET = randomSecret();
let server: JwksServer;
/** A directory where `@cubejs-backend/api-gateway` resolves, like a Cube project; and one where it does not. */
let cubeProject: string;
let elsewhere: string;
const fixture = diagnoseFixture();
beforeAll(() => ({ server, cubeProject, elsewhere } = fixture));

describe('diagnose', () => {
  it('checks a sound environment in one order, each line ok, and is ok', async () => {
    const env = {
      CUBEJS_API_SECRET: SECRET,
      CUBEJS_JWK_URL: server.url,
      CUBEJS_JWT_AUDIENCE: 'cube-api',
      CUBEJS_JWT_ISSUER: 'https://idp.example/',
    };
    const diagnosis = await diagnose(env, cubeProject);
    expect(diagnosis.checks.map(({ id, status }) => `${id} ${status}`)).toEqual([
      'configuration ok',
      'api-secret ok',
      'origin ok',
      'jwks-url ok',
      'jwks-keys ok',
      'audience ok',
      'issuer ok',
      'authorization ok',
      'cube-gateway ok',
      `node ${NODE_LINE_CUBE_1}`,
      'cube-js ok',
      'logger ok',
    ]);
    expect(diagnosis.ok).toBe(true);
  });

  it('is ok with warnings, and not ok once a check fails', async () => {
    const warned = await diagnose({ CUBEJS_API_SECRET: SECRET, CUBEJS_JWK_URL: server.url }, elsewhere);
    expect(warned.checks.filter(({ status }) => status === 'warn').map(({ id }) => id)).toEqual([
      'audience',
      'issuer',
      'cube-gateway',
      'cube-js',
    ]);
    expect(warned.ok).toBe(true);
    const failed = await diagnose(
      { CUBEJS_API_SECRET: SECRET, CUBEJS_JWK_URL: 'http://127.0.0.1:9/jwks.json' },
      cubeProject,
    );
    expect(failed.checks.find(({ id }) => id === 'jwks-keys')).toMatchObject({
      status: 'fail',
      message: expect.stringContaining('unreachable'),
    });
    expect(failed.ok).toBe(false);
  });

  it('never throws for a configuration that cannot work: it fails the configuration, and leaves out the checks that need a valid one', async () => {
    const diagnosis = await diagnose(
      { CUBEJS_API_SECRET: SECRET, CUBEJS_JWT_ALGS: 'HS256', CUBEJS_JWK_URL: server.url },
      cubeProject,
    );
    expect(diagnosis.checks.map(({ id, status }) => `${id} ${status}`)).toEqual([
      'configuration fail',
      'api-secret ok',
      'cube-gateway ok',
      `node ${NODE_LINE_CUBE_1}`,
      // cube.js takes the ready-made checkAuth, which stops Cube for the same reason.
      'cube-js fail',
    ]);
    expect(diagnosis.checks[0]?.message).toMatch(/^cube-dual-auth: CUBEJS_JWT_ALGS contains "HS256"/);
    expect(diagnosis.checks.at(-1)?.message).toMatch(
      /cube\.js throws while it loads, so Cube will not start: cube-dual-auth: CUBEJS_JWT_ALGS contains "HS256"/,
    );
    expect(diagnosis.ok).toBe(false);
  });

  it('with a weak API secret alone, runs every check all the same, so that one run shows all there is to fix', async () => {
    const diagnosis = await diagnose({ CUBEJS_API_SECRET: 'too-short-0123', CUBEJS_JWK_URL: server.url }, cubeProject);
    expect(diagnosis.checks.map(({ id, status }) => `${id} ${status}`)).toEqual([
      'configuration fail',
      'api-secret fail',
      'origin ok',
      'jwks-url ok',
      'jwks-keys ok',
      'audience warn',
      'issuer warn',
      'authorization ok',
      'cube-gateway ok',
      `node ${NODE_LINE_CUBE_1}`,
      'cube-js fail',
    ]);
    expect(diagnosis.checks[0]?.message).toBe(
      'the checkAuth hook accepts every variable but the API secret, which is too weak: Cube will not start (see api-secret)',
    );
  });

  it('checks several identity providers one at a time, in the configured order, each line naming its issuer', async () => {
    const providers = [
      { issuer: 'https://b.example/', jwksUri: server.url, audience: 'b-api' },
      { issuer: 'https://a.example/', jwksUri: server.url },
    ];
    const diagnosis = await diagnose(
      { CUBEJS_API_SECRET: SECRET, CUBE_DUAL_AUTH_PROVIDERS: JSON.stringify(providers) },
      cubeProject,
    );
    const named = diagnosis.checks.filter((check) => check.issuer !== undefined);
    expect(named.map(({ id, status, issuer }) => `${issuer} ${id} ${status}`)).toEqual([
      'https://b.example/ jwks-url ok',
      'https://b.example/ jwks-keys ok',
      'https://b.example/ audience ok',
      'https://a.example/ jwks-url ok',
      'https://a.example/ jwks-keys ok',
      'https://a.example/ audience warn',
    ]);
    expect(named[0]?.message).toBe(`identity provider "https://b.example/": JWKS URL ${server.url}`);
    // The issuer of each provider is checked by its routing: no line of its own.
    expect(diagnosis.checks.map(({ id }) => id)).not.toContain('issuer');
  });
});
