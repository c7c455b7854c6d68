import { describe, expect, it } from 'vitest';
import { cubeStartCheck } from '../../../src/doctor/checks/cube-start';
import type { CubeJsReading } from '../../../src/doctor/cube-js';

const loaded = (...names: string[]): CubeJsReading => ({
  kind: 'loaded',
  file: '/project/cube.js',
  exports: names.map((name) => ({ name, function: name !== 'apiSecret', fromPackage: true })),
});
const production = { NODE_ENV: 'production' };
const inDirectory = { apiSecretsInDirectory: true };

describe("cube-start: Cube's own option check (OptsHandler, 0.33.65 and 1.7.43)", () => {
  it('fails where Cube exits with "apiSecret is required option(s)": the secret only in the directory, no JWKS URL', () => {
    const line = cubeStartCheck(production, loaded('checkAuth', 'logger'), inDirectory);
    expect(line).toMatchObject({ id: 'cube-start', status: 'fail' });
    expect(line?.message).toMatch(/apiSecret is required option\(s\)".*only in the secrets directory's api-secrets/);
    expect(line?.message).toMatch(/module\.exports = \{ apiSecret, checkAuth, logger \}/);
  });

  it('passes what Cube passes: its apiSecret exported, CUBEJS_API_SECRET, CUBEJS_JWK_URL, a jwt option, dev mode', () => {
    expect(cubeStartCheck(production, loaded('apiSecret', 'checkAuth'), inDirectory)).toBeUndefined();
    expect(cubeStartCheck({ ...production, CUBEJS_API_SECRET: 'x' }, loaded('checkAuth'), inDirectory)).toBeUndefined();
    expect(
      cubeStartCheck({ ...production, CUBEJS_JWK_URL: 'https://idp/jwks' }, loaded('checkAuth'), inDirectory),
    ).toBeUndefined();
    expect(cubeStartCheck(production, loaded('checkAuth', 'jwt'), inDirectory)).toBeUndefined();
    expect(cubeStartCheck({}, loaded('checkAuth'), inDirectory)).toBeUndefined();
    expect(
      cubeStartCheck({ ...production, CUBEJS_DEV_MODE: 'true' }, loaded('checkAuth'), inDirectory),
    ).toBeUndefined();
  });

  it('judges Cube without a cube.js too, and says nothing when cube.js could not be read', () => {
    expect(
      cubeStartCheck(production, { kind: 'missing', file: '/p/cube.js' }, { apiSecretsInDirectory: false }),
    ).toMatchObject({
      status: 'fail',
      message: expect.stringMatching(/CUBEJS_API_SECRET and CUBEJS_JWK_URL are unset/),
    });
    expect(
      cubeStartCheck(production, { kind: 'threw', file: '/p/cube.js', message: 'x' }, inDirectory),
    ).toBeUndefined();
  });
});
