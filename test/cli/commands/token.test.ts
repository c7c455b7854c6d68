import { verify as jwtVerify } from 'jsonwebtoken';
import { describe, expect, it } from 'vitest';
import { createCheckAuth, optionsFromEnv } from '../../../src';
import { jsonOf, runCli, type CliResult } from '../../support/cli';
import { randomSecret } from '../../support/claims';

const SECRET = randomSecret(32);
const env = { CUBEJS_API_SECRET: SECRET };

interface TokenJson {
  token: string;
  header: Record<string, unknown>;
  claims: Record<string, unknown>;
  expiresAt: string | null;
}

async function token(args: string[], environment: Record<string, string> = env): Promise<CliResult> {
  return runCli(['token', ...args], { env: environment, secrets: [SECRET] });
}

describe('cube-dual-auth token', () => {
  it('prints only the token, an HS256 JWT signed with CUBEJS_API_SECRET that expires in 1 h', async () => {
    const result = await token(['--claims', '{"tenant":"acme","roles":["viewer"]}']);
    expect(result.code).toBe(0);
    expect(result.stderr).toBe('');
    expect(result.stdout).toMatch(/^eyJ[\w-]+\.eyJ[\w-]+\.[\w-]+\n$/);
    const payload = jwtVerify(result.stdout.trim(), SECRET, { algorithms: ['HS256'] }) as Record<string, number>;
    expect(payload).toMatchObject({ tenant: 'acme', roles: ['viewer'] });
    expect(payload.exp! - payload.iat!).toBe(3600);
  });

  it('round-trips through verify on the shared-secret path, secret trimmed as the hook trims it', async () => {
    const minted = (
      await token(['--claims', '{"tenant":"acme"}'], { CUBEJS_API_SECRET: ` ${SECRET}\n` })
    ).stdout.trim();
    const result = await runCli(['verify', minted, '--origin', '--json'], { env });
    expect(result.code).toBe(0);
    expect(result.stdout).not.toContain(minted);
    expect(jsonOf(result)).toMatchObject({
      accepted: true,
      path: 'shared-secret',
      securityContext: { tenant: 'acme' },
    });
  });

  it('mints an already expired token from an "exp" claim, which verify reports as expired', async () => {
    const exp = Math.floor(Date.now() / 1000) - 60;
    const minted = (await token(['--claims', JSON.stringify({ tenant: 'acme', exp })])).stdout.trim();
    const result = await runCli(['verify', minted, '--origin', '--json'], { env });
    expect(result.code).toBe(1);
    expect(jsonOf(result)).toMatchObject({ accepted: false, error: { code: 'ERR_TOKEN_EXPIRED' } });
  });

  it.each([
    ['30s', 30],
    ['15m', 900],
    ['7d', 604_800],
  ])('--expires-in %s, --json', async (duration, seconds) => {
    const result = await token(['--claims', '{}', '--expires-in', duration, '--json']);
    expect(result.code).toBe(0);
    const json = jsonOf<TokenJson>(result);
    expect(json.header).toEqual({ alg: 'HS256', typ: 'JWT' });
    expect((json.claims.exp as number) - (json.claims.iat as number)).toBe(seconds);
    expect(json.expiresAt).toBe(new Date((json.claims.exp as number) * 1000).toISOString().replace('.000Z', 'Z'));
    expect(jwtVerify(json.token, SECRET)).toEqual(json.claims);
  });

  it.each([
    [['--claims', '[1,2]'], /--claims must be a JSON object/],
    [['--claims', 'tenant=acme'], /--claims is not JSON/],
    [['--claims', 'null'], /--claims must be a JSON object/],
    [[], /missing --claims/],
    [['--claims', '{}', '--expires-in', '1w'], /--expires-in must be a whole number of s, m, h or d/],
    [['--claims', '{}', '--expires-in', '0s'], /--expires-in must be/],
    [['--claims', '{"exp":1}', '--expires-in', '1h'], /exclude each other/],
    [['--claims', '{"nbf":"soon"}'], /cannot sign these claims: "nbf" should be a number of seconds/],
    [['--claims', '{}', '--algorithm', 'none'], /Unknown option '--algorithm'/],
    [['--claims', '{}', 'extra'], /Unexpected argument 'extra'/],
  ])('refuses %j with exit 2', async (args, message) => {
    const result = await token(args);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(message);
  });

  it("signs with the first secret of Cube's rotation list CUBEJS_API_SECRETS, which replaces CUBEJS_API_SECRET, and the hook accepts it", async () => {
    const [first, second, replaced] = [randomSecret(32), randomSecret(32), randomSecret(32)];
    const environment = { CUBEJS_API_SECRETS: `${first},${second}`, CUBEJS_API_SECRET: replaced };
    const minted = (await token(['--claims', '{"tenant":"acme"}'], environment)).stdout.trim();
    expect(jwtVerify(minted, first)).toMatchObject({ tenant: 'acme' });
    const hook = createCheckAuth(optionsFromEnv(environment));
    const verdict = await hook.explain({ headers: { 'request-origin': 'embeddable' } }, minted);
    hook.close();
    expect(verdict).toMatchObject({ accepted: true, path: 'shared-secret', securityContext: { tenant: 'acme' } });
  });

  it('refuses without CUBEJS_API_SECRET or CUBEJS_API_SECRETS, exit 1, even when additional secrets are set (they only verify)', async () => {
    const result = await token(['--claims', '{}'], { CUBE_DUAL_AUTH_ADDITIONAL_API_SECRETS: randomSecret(32) });
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(
      'cube-dual-auth token: neither CUBEJS_API_SECRET nor CUBEJS_API_SECRETS is set: there is no secret to sign with\n',
    );
  });

  it('prints help with examples, exit 0', async () => {
    const result = await runCli(['token', '--help']);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^Usage: cube-dual-auth token --claims/);
    expect(result.stdout).toContain('Examples:');
  });
});
