/** What doctor's tests run `diagnose` against. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { cubeJsIn, gatewayIn, RECOMMENDED_CUBE_JS } from './cube';
import { startJwksServer, type JwksServer } from './jwks-server';
import { generateKeyPair, jwks } from './keys';

export interface DiagnoseFixture {
  /** A JWKS server with one RS256 key, kid `k1`. */
  readonly server: JwksServer;
  /** A directory where `@cubejs-backend/api-gateway` resolves, like a Cube project, with the recommended cube.js. */
  readonly cubeProject: string;
  /** A directory where it does not, and no cube.js. */
  readonly elsewhere: string;
}

/** For the calling file: the fixture, set up before its tests and removed after them. */
export function diagnoseFixture(): DiagnoseFixture {
  const fixture = {} as { -readonly [K in keyof DiagnoseFixture]: DiagnoseFixture[K] };
  beforeAll(async () => {
    fixture.server = await startJwksServer(jwks(generateKeyPair('RS256', { kid: 'k1' })));
    fixture.cubeProject = mkdtempSync(join(tmpdir(), 'diagnose-cube-'));
    gatewayIn(fixture.cubeProject, 'module.exports = {};\n');
    cubeJsIn(fixture.cubeProject, RECOMMENDED_CUBE_JS);
    fixture.elsewhere = mkdtempSync(join(tmpdir(), 'diagnose-empty-'));
  });
  afterAll(async () => {
    await fixture.server.close();
    rmSync(fixture.cubeProject, { recursive: true, force: true });
    rmSync(fixture.elsewhere, { recursive: true, force: true });
  });
  return fixture;
}
