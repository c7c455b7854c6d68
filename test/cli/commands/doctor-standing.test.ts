/**
 * `doctor` on the service's two connections (docs/embeddable.md): the `service-connections` line where the
 * configuration decides how the Core connection is answered, and the example-token line on a standing token (no `exp`,
 * or cube-dual-auth's own), with and without the opt-in, with authorization on and off.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jsonOf, keySetDeploymentPerFile, runCli } from '../../support/cli';
import { randomSecret } from '../../support/claims';
import { cubeJsIn, gatewayIn, RECOMMENDED_CUBE_JS } from '../../support/cube';
import { signToken } from '../../support/tokens';
import { newStandingJti } from '../../../src/hook/standing-token';

interface DoctorJson {
  checks: { id: string; status: string; message: string }[];
}

const SECRET = randomSecret(32);
let env: Record<string, string>;
keySetDeploymentPerFile(SECRET, (deployment) => ({ env } = deployment));
let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'doctor-standing-'));
  gatewayIn(dir, 'module.exports = {};\n');
  cubeJsIn(dir, RECOMMENDED_CUBE_JS);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const now = () => Math.floor(Date.now() / 1000);
const handbookSample = () => signToken({ sub: 'docs-user', iat: now() }, { alg: 'HS256', key: SECRET });
const packageToken = () =>
  signToken({ tenant: 'acme', jti: newStandingJti(), iat: now() }, { alg: 'HS256', key: SECRET });

async function doctor(extra: Record<string, string>, token?: string): Promise<DoctorJson> {
  const args = ['doctor', '--json'];
  if (token !== undefined) {
    const file = join(dir, `example-${Math.random().toString(36).slice(2)}.token`);
    writeFileSync(file, `${token}\n`);
    args.push('--token-file', file);
  }
  const result = await runCli(args, {
    env: { ...env, ...extra },
    cwd: dir,
    secrets: [SECRET, ...(token ? [token] : [])],
  });
  return jsonOf<DoctorJson>(result);
}
const line = (json: DoctorJson, id: string) => json.checks.find((c) => c.id === id);

describe('doctor on the service connections', () => {
  it('a token without exp, authorization off: named on the example-token line, pointing at the Core connection', async () => {
    const json = await doctor({}, handbookSample());
    expect(line(json, 'example-token')).toMatchObject({
      status: 'ok',
      message: expect.stringContaining(
        'It is an HS256 token without "exp", a standing service credential: every request it carries gets one and the same security context: the service\'s Cube Core connection (docs/embeddable.md); sent without "Request-Origin" it is refused on the key-set path (ERR_ALG_NOT_ALLOWED).',
      ),
    });
    // Nothing in the configuration decides the Core connection: no line of its own.
    expect(line(json, 'service-connections')).toBeUndefined();
  });

  it('the opt-in on: both connections explained, the package token verified without Request-Origin', async () => {
    const json = await doctor({ CUBE_DUAL_AUTH_STANDING_TOKEN_WITHOUT_ORIGIN: 'true' }, packageToken());
    expect(line(json, 'service-connections')?.message).toMatch(
      /^The service reaches this Cube on one of two connections .*CUBE_DUAL_AUTH_STANDING_TOKEN_WITHOUT_ORIGIN is on: cube-dual-auth's own token/,
    );
    expect(line(json, 'example-token')?.message).toContain(
      'sent without "Request-Origin" it is verified on the shared-secret path (CUBE_DUAL_AUTH_STANDING_TOKEN_WITHOUT_ORIGIN)',
    );
  });

  it('authorization on and a maximum age: the sample refused for want of a tenant, and which refusals point to Core', async () => {
    const json = await doctor(
      { CUBE_DUAL_AUTH_TENANT_CLAIM: 'tenant', CUBE_DUAL_AUTH_MAX_TOKEN_AGE: '3600' },
      handbookSample(),
    );
    expect(line(json, 'example-token')).toMatchObject({
      status: 'fail',
      message: expect.stringContaining('ERR_TENANT_MISSING'),
    });
    expect(line(json, 'example-token')?.message).toContain(
      'older than 3600 s (CUBE_DUAL_AUTH_MAX_TOKEN_AGE) it is refused (ERR_TOKEN_TOO_OLD)',
    );
    const connections = line(json, 'service-connections')?.message;
    expect(connections).toContain('most likely come from the Core connection');
    expect(connections).toContain("CUBE_DUAL_AUTH_MAX_TOKEN_AGE is 3600 s: cube-dual-auth's own token is exempt");
    expect(connections).toContain('each tenant needs a data provider of its own');
  });
});
