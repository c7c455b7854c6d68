/**
 * `verify` on standing service credentials (docs/embeddable.md): the handbook's Cube Core sample (no `exp`) and the
 * package's own token, with and without `Request-Origin`, with authorization on and off; the member and the line
 * that name it, and the hint that points an HS256 refusal without the header at the Core connection.
 */
import { describe, expect, it } from 'vitest';
import { jsonOf, keySetDeploymentPerFile, runCli, type CliResult } from '../../support/cli';
import { randomSecret } from '../../support/claims';
import { signToken } from '../../support/tokens';
import { newStandingJti } from '../../../src/hook/standing-token';

const SECRET = randomSecret(32);
let env: Record<string, string>;
keySetDeploymentPerFile(SECRET, (deployment) => ({ env } = deployment));

const now = () => Math.floor(Date.now() / 1000);
const handbookSample = () => signToken({ sub: 'docs-user', iat: now() }, { alg: 'HS256', key: SECRET });
const packageToken = (claims: Record<string, unknown> = {}) =>
  signToken({ sub: 'embeddable-service', ...claims, jti: newStandingJti(), iat: now() }, { alg: 'HS256', key: SECRET });

function verify(token: string, args: string[], extra: Record<string, string> = {}): Promise<CliResult> {
  return runCli(['verify', token, ...args], { env: { ...env, ...extra }, secrets: [SECRET, token] });
}

interface Json {
  accepted: boolean;
  path: string | null;
  standingServiceCredential: { kind: string; meaning: string } | null;
  authorization: { tenant: string | null } | null;
  error: { code: string; hint: string } | null;
}

describe('verify on a standing service credential', () => {
  it('names a token without exp sent with Request-Origin, in --json and in text', async () => {
    const token = handbookSample();
    const json = jsonOf<Json>(await verify(token, ['--origin', '--json']));
    expect(json).toMatchObject({
      accepted: true,
      path: 'shared-secret',
      standingServiceCredential: {
        kind: 'no-exp',
        meaning: 'a standing service credential: every request it carries gets one and the same security context',
      },
    });
    const text = await verify(token, ['--origin']);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/Standing +an HS256 token without "exp": a standing service credential/);
  });

  it('without Request-Origin: refused on the key-set path, the hint naming the Core connection', async () => {
    const json = jsonOf<Json>(await verify(handbookSample(), ['--json']));
    expect(json).toMatchObject({ accepted: false, path: 'key-set', standingServiceCredential: null });
    expect(json.error).toMatchObject({ code: 'ERR_ALG_NOT_ALLOWED' });
    expect(json.error?.hint).toContain("most likely the service's Cube Core connection");
  });

  it('the package token without Request-Origin: accepted only with the opt-in', async () => {
    const token = packageToken({ tenant: 'acme' });
    expect(jsonOf<Json>(await verify(token, ['--json']))).toMatchObject({ accepted: false, path: 'key-set' });
    const opted = jsonOf<Json>(
      await verify(token, ['--json'], { CUBE_DUAL_AUTH_STANDING_TOKEN_WITHOUT_ORIGIN: 'true' }),
    );
    expect(opted).toMatchObject({
      accepted: true,
      path: 'shared-secret',
      standingServiceCredential: { kind: 'package' },
    });
  });

  it('with authorization on: the sample refused for want of a tenant, the package token with one accepted', async () => {
    const authorizing = { CUBE_DUAL_AUTH_TENANT_CLAIM: 'tenant' };
    const sample = jsonOf<Json>(await verify(handbookSample(), ['--origin', '--json'], authorizing));
    expect(sample).toMatchObject({ accepted: false, error: { code: 'ERR_TENANT_MISSING' } });
    const own = jsonOf<Json>(await verify(packageToken({ tenant: 'acme' }), ['--origin', '--json'], authorizing));
    expect(own).toMatchObject({
      accepted: true,
      authorization: { tenant: 'acme' },
      standingServiceCredential: { kind: 'package' },
    });
  });
});
