import { describe, expect, it } from 'vitest';
import {
  jsonOf,
  keySetDeploymentPerFile,
  runCli,
  terminalControlsIn,
  type CliOptions,
  type CliResult,
} from '../../support/cli';
import { randomSecret, timed } from '../../support/claims';
import { startIssuerServer } from '../../support/issuer-server';
import { startJwksServer, type JwksServer } from '../../support/jwks-server';
import { generateKeyPair, type TestKeyPair } from '../../support/keys';
import { signToken } from '../../support/tokens';

/** The `--json` document of verify, as documented in docs/cli-output.md. */
interface VerifyJson {
  accepted: boolean;
  token: string;
  requestOrigin: string | null;
  path: 'shared-secret' | 'key-set' | null;
  pathReason: string | null;
  header: Record<string, unknown> | null;
  claims: Record<string, unknown> | null;
  times: Record<string, { value: unknown; iso: string | null; relative: string | null }>;
  key:
    | {
        source: 'jwks';
        kid: string | null;
        jwksUri: string | null;
        provider: { issuer: string | null; reason: string } | null;
      }
    | { source: 'api-secret'; secrets: number }
    | null;
  authorization: { tenant: string | null; groups: string[] } | null;
  securityContext: Record<string, unknown> | null;
  error: { code: string; message: string; hint: string } | null;
}

const SECRET = randomSecret(32);
let server: JwksServer;
let key: TestKeyPair;
let env: Record<string, string>;
keySetDeploymentPerFile(SECRET, (deployment) => ({ key, server, env } = deployment));

const idpToken = (payload: Record<string, unknown> = {}, options: Parameters<typeof signToken>[1] = {}): string =>
  signToken(timed({ sub: 'user-1', tenant: 'acme', ...payload }), { key, ...options });
const serviceToken = (payload: Record<string, unknown> = {}, secret = SECRET): string =>
  signToken(timed({ securityContext: { tenant: 'acme' }, ...payload }), { alg: 'HS256', key: secret });

/** Runs verify and checks what must hold for every run: neither the secret nor the whole token is printed. */
async function verify(token: string, args: string[] = [], options: CliOptions = {}): Promise<CliResult> {
  return runCli(['verify', ...args], { env, ...options, secrets: token.length > 0 ? [SECRET, token] : [SECRET] });
}

async function verifyJson(
  token: string,
  args: string[] = [],
  options: CliOptions = {},
): Promise<{ result: CliResult; json: VerifyJson }> {
  const result = await verify(token, [token, '--json', ...args], options);
  return { result, json: jsonOf<VerifyJson>(result) };
}

describe('cube-dual-auth verify: accepted', () => {
  it('accepts an identity-provider token on the key-set path and names the key', async () => {
    const token = idpToken();
    const { result, json } = await verifyJson(token);
    expect(result.code).toBe(0);
    expect(json).toMatchObject({
      accepted: true,
      requestOrigin: null,
      path: 'key-set',
      header: { alg: 'RS256', kid: 'k1', typ: 'JWT' },
      key: { source: 'jwks', kid: 'k1', jwksUri: server.url },
      securityContext: { sub: 'user-1', tenant: 'acme' },
      error: null,
    });
    expect(json.pathReason).toMatch(/no Request-Origin header/);
    expect(json.token).toMatch(/^eyJhbGciOi…\(\d+ chars\)….{3}$/);
    expect(json.times.exp).toMatchObject({
      iso: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/),
      relative: 'in 4 min',
    });
    expect(json.times.iat?.relative).toMatch(/^(now|\d s ago)$/);
  });

  it('accepts a service token with a bare --origin (the configured origin) on the shared-secret path', async () => {
    const token = serviceToken();
    const { result, json } = await verifyJson(token, ['--origin']);
    expect(result.code).toBe(0);
    expect(json).toMatchObject({
      accepted: true,
      requestOrigin: 'embeddable',
      path: 'shared-secret',
      key: { source: 'api-secret', secrets: 1 },
      securityContext: { securityContext: { tenant: 'acme' } },
    });
  });

  it('takes --origin <value> before the token, and a custom configured origin', async () => {
    const token = serviceToken();
    const result = await verify(token, ['--origin', 'partner', token, '--json'], {
      env: { ...env, CUBE_DUAL_AUTH_ORIGIN: 'partner' },
    });
    expect(result.code).toBe(0);
    expect(jsonOf<VerifyJson>(result)).toMatchObject({ requestOrigin: 'partner', path: 'shared-secret' });
  });

  it('reads the token from standard input with -, "Bearer " prefix included', async () => {
    const token = idpToken();
    const result = await verify(token, ['-', '--json'], { stdin: `Bearer ${token}\n` });
    expect(result.code).toBe(0);
    expect(jsonOf<VerifyJson>(result).accepted).toBe(true);
  });

  it('prints a readable report: path, header, dated claims, key, verdict and security context', async () => {
    const token = idpToken();
    const result = await verify(token, [token]);
    expect(result.code).toBe(0);
    const lines = result.stdout.split('\n');
    expect(lines[0]).toMatch(/^Token {4}eyJhbGciOi…\(\d+ chars\)…/);
    expect(result.stdout).toMatch(/^Path {5}no Request-Origin header: the key-set path/m);
    expect(result.stdout).toMatch(/^Header {3}alg "RS256", typ "JWT", kid "k1"$/m);
    expect(result.stdout).toMatch(/exp {5}\d+ {2}\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ \(in 4 min\)/);
    expect(result.stdout).toContain(`Key      kid "k1", from ${server.url}`);
    expect(result.stdout).toMatch(/^Verdict {2}OK, accepted on the key-set path$/m);
    expect(result.stdout).toMatch(/^Context {2}\{$/m);
    expect(result.stdout).toMatch(/^ {11}"sub": "user-1",$/m);
    // Not a terminal: no colour codes.
    expect(result.stdout).not.toContain('\x1b[');
  });
});

describe('cube-dual-auth verify: rejected (exit 1, code and fix)', () => {
  const stranger = generateKeyPair('RS256', { kid: 'k1' });
  const past = Math.floor(Date.now() / 1000) - 7200;

  it.each([
    [
      'an expired token',
      (): string => signToken(timed({}, { now: past, expiresIn: 3600 }), { key }),
      [],
      'key-set',
      'ERR_TOKEN_EXPIRED',
      /fresh token/,
    ],
    [
      'a stranger signing with a known kid',
      (): string => signToken(timed({ sub: 'x' }), { key: stranger }),
      [],
      'key-set',
      'ERR_SIGNATURE_INVALID',
      /another identity provider/,
    ],
    [
      'a service token signed with another secret',
      (): string => serviceToken({}, randomSecret(32)),
      ['--origin'],
      'shared-secret',
      'ERR_SIGNATURE_INVALID',
      /CUBEJS_API_SECRET must be the secret/,
    ],
    [
      'a service token sent without Request-Origin',
      (): string => serviceToken(),
      [],
      'key-set',
      'ERR_ALG_NOT_ALLOWED',
      /--origin/,
    ],
    [
      'an identity-provider token sent with Request-Origin',
      (): string => idpToken(),
      ['--origin'],
      'shared-secret',
      'ERR_ALG_NOT_ALLOWED',
      /--no-origin/,
    ],
    [
      'an unknown kid',
      (): string => signToken(timed({}), { key, kid: 'rotated-away' }),
      [],
      'key-set',
      'ERR_KID_UNKNOWN',
      /CUBEJS_JWK_URL/,
    ],
    [
      'a token without kid',
      (): string => signToken(timed({}), { key, header: { kid: undefined } }),
      [],
      'key-set',
      'ERR_KID_MISSING',
      /kid/,
    ],
    ['garbage', (): string => 'not-a-token', [], 'key-set', 'ERR_TOKEN_MALFORMED', /compact JWT/],
  ] as const)('%s', async (_name, make, args, path, code, hint) => {
    const { result, json } = await verifyJson(make(), [...args]);
    expect(result.code).toBe(1);
    expect(json).toMatchObject({
      accepted: false,
      path,
      securityContext: null,
      error: { code, hint: expect.stringMatching(hint) },
    });
    if (code === 'ERR_TOKEN_EXPIRED') expect(json.times.exp?.relative).toBe('1 h ago');
  });

  it('reports an empty token from standard input as missing', async () => {
    const result = await verify('', ['-', '--json'], { stdin: '\n' });
    expect(result.code).toBe(1);
    expect(jsonOf<VerifyJson>(result)).toMatchObject({
      path: null,
      error: { code: 'ERR_TOKEN_MISSING', message: 'Authentication required' },
    });
  });

  it('prints the rejection and the fix in the readable report', async () => {
    const token = serviceToken();
    const result = await verify(token, [token]);
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(
      /^Verdict {2}REJECTED ERR_ALG_NOT_ALLOWED: Algorithm "HS256" is not accepted on the key-set path/m,
    );
    expect(result.stdout).toMatch(
      /^Fix {6}If this is a service token \(HS256\), send it with "Request-Origin: embeddable" \(--origin\)/m,
    );
  });

  it('reports an unreachable JWKS with its cause', async () => {
    const down = await startJwksServer({ keys: [key.jwk] });
    await down.stop();
    const token = idpToken();
    const { result, json } = await verifyJson(token, [], { env: { ...env, CUBEJS_JWK_URL: down.url } });
    expect(result.code).toBe(1);
    expect(json.error).toMatchObject({
      code: 'ERR_JWKS_UNREACHABLE',
      message: expect.stringContaining('ECONNREFUSED'),
    });
  });

  it('gives up on a hanging JWKS after the configured timeout and exits', async () => {
    const hanging = await startJwksServer({ keys: [key.jwk] });
    hanging.mode = { kind: 'hang' };
    try {
      const token = idpToken();
      const { result, json } = await verifyJson(token, [], {
        env: { ...env, CUBEJS_JWK_URL: hanging.url, CUBE_DUAL_AUTH_JWKS_TIMEOUT_MS: '300' },
      });
      expect(result.code).toBe(1);
      expect(json.error?.code).toBe('ERR_JWKS_TIMEOUT');
      expect(result.ms).toBeLessThan(3_000 + result.lateMs);
    } finally {
      await hanging.close();
    }
  });

  it('reports a configuration error naming the variable, with exit 1', async () => {
    const token = idpToken();
    const { result, json } = await verifyJson(token, [], { env: { ...env, CUBEJS_JWT_ALGS: 'RS256,HS256' } });
    expect(result.code).toBe(1);
    expect(json).toMatchObject({ accepted: false, path: null, header: null, error: { code: 'ERR_CONFIG_INVALID' } });
    expect(json.error?.message).toMatch(/CUBEJS_JWT_ALGS contains "HS256", which is not allowed on the key-set path/);
  });
});

describe('cube-dual-auth verify: the API secrets, as the hook reads them', () => {
  it("names Cube's rotation list CUBEJS_API_SECRETS, which replaces CUBEJS_API_SECRET, and the additional secrets, each for its own", async () => {
    const [first, second, extra] = [randomSecret(32), randomSecret(32), randomSecret(32)];
    const secrets = {
      CUBEJS_API_SECRETS: `${first},${second}`,
      CUBEJS_API_SECRET: SECRET,
      CUBE_DUAL_AUTH_ADDITIONAL_API_SECRETS: extra,
    };
    const token = serviceToken({}, second);
    const { result, json } = await verifyJson(token, ['--origin'], { env: { ...env, ...secrets } });
    expect(result.code).toBe(0);
    expect(json.key).toEqual({
      source: 'api-secret',
      secrets: 3,
      variables: ['CUBEJS_API_SECRETS', 'CUBEJS_API_SECRETS', 'CUBE_DUAL_AUTH_ADDITIONAL_API_SECRETS'],
    });
    const text = await verify(token, [token, '--origin'], { env: { ...env, ...secrets } });
    expect(text.stdout).toContain(
      '\nKey      the API secret: one of 3 (2 in CUBEJS_API_SECRETS, 1 in CUBE_DUAL_AUTH_ADDITIONAL_API_SECRETS)\n',
    );
    for (const secret of [first, second, extra]) expect(text.stdout + result.stdout).not.toContain(secret);
  });

  it('a token signed with another secret: the fix names the rotation list CUBEJS_API_SECRETS', async () => {
    const { json } = await verifyJson(serviceToken({}, randomSecret(32)), ['--origin']);
    expect(json.error).toMatchObject({
      code: 'ERR_SIGNATURE_INVALID',
      hint: 'CUBEJS_API_SECRET must be the secret the service signs with; during a rotation, list both in CUBEJS_API_SECRETS (comma-separated), which replaces it.',
    });
  });

  it('no API secret at all: the fix says how to make one', async () => {
    const { json } = await verifyJson(serviceToken(), ['--origin'], { env: { CUBEJS_JWK_URL: server.url } });
    expect(json.error).toMatchObject({
      code: 'ERR_SHARED_SECRET_NOT_CONFIGURED',
      hint: expect.stringMatching(/use at least 32 random bytes \(openssl rand -hex 32\)\.$/),
    });
  });
});

describe('cube-dual-auth verify: command line', () => {
  it('prints help with examples, exit 0', async () => {
    const result = await runCli(['verify', '--help']);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^Usage: cube-dual-auth verify <token>/);
    expect(result.stdout).toContain('Examples:');
  });

  it.each([
    [['--bogus', 'x'], /Unknown option '--bogus'/],
    [[], /missing <token>/],
    [['a', 'b'], /expected one token, got 2/],
    [['x', '--origin', 'embeddable', '--no-origin'], /exclude each other/],
  ])('refuses %j with exit 2', async (args, message) => {
    const result = await runCli(['verify', ...args], { env });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
    expect(result.stderr).toContain("Run 'cube-dual-auth verify --help'");
  });

  it('explains "--origin <token>" without echoing the token', async () => {
    const token = serviceToken();
    const result = await verify(token, ['--origin', token]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/--origin took the token as its value/);
  });
});

describe('cube-dual-auth verify: several identity providers', () => {
  it('names the provider the token’s issuer chose, why, and the JWKS URL discovered for it', async () => {
    const idp = await startIssuerServer({ path: '/tenant' });
    try {
      idp.jwks = { keys: [key.jwk] };
      const providers = JSON.stringify([
        { issuer: idp.issuer },
        { issuer: 'https://other.example', jwksUri: 'https://other.example/jwks' },
      ]);
      const token = idpToken({ iss: idp.issuer });
      const options = { env: { CUBE_DUAL_AUTH_PROVIDERS: providers } };
      const { result, json } = await verifyJson(token, [], options);
      expect(result.code).toBe(0);
      const reason = 'its "iss" is the issuer of a configured identity provider (CUBE_DUAL_AUTH_PROVIDERS)';
      expect(json.key).toEqual({
        source: 'jwks',
        kid: 'k1',
        jwksUri: idp.jwksUrl,
        provider: { issuer: idp.issuer, reason },
      });
      const text = await verify(token, [token], options);
      expect(text.stdout).toContain(`\nIssuer   "${idp.issuer}": ${reason}\nKey      kid "k1", from ${idp.jwksUrl}\n`);
      const stranger = await verifyJson(idpToken({ iss: 'https://stranger.example' }), [], options);
      expect(stranger.json.error).toMatchObject({
        code: 'ERR_ISSUER_UNKNOWN',
        hint: expect.stringMatching(/CUBE_DUAL_AUTH_PROVIDERS/),
      });
    } finally {
      await idp.close();
    }
  });
});

describe('cube-dual-auth verify: what the token holds is printed escaped, never raw', () => {
  // ESC sequences (colour, window title), a one-character CSI (C1), a right-to-left override, a line separator and
  // a lone surrogate, in header parameter names and values, claim names and values.
  const header = { 'x\u001b[31mhdr': 'v\u009b31m' };
  const claims = { sub: 'a\u009b2J\u202eb', 'c\u001b]0;pwned\u0007laim': 1, 'n\u2028x': 'y\ud800' };

  it('in the readable report: header, claims and security context', async () => {
    const token = signToken(timed(claims), { alg: 'HS256', key: SECRET, header });
    const result = await verify(token, [token, '--origin']);
    expect(result.code).toBe(0);
    expect(terminalControlsIn(result.stdout)).toEqual([]);
    expect(result.stdout).toMatch(/^Header {3}alg "HS256", typ "JWT", x\\u001b\[31mhdr "v\\u009b31m"$/m);
    expect(result.stdout).toMatch(/^ {9}sub {24}"a\\u009b2J\\u202eb"$/m);
    expect(result.stdout).toMatch(/^ {9}c\\u001b\]0;pwned\\u0007laim {2}1$/m);
    expect(result.stdout).toMatch(/^ {9}n\\u2028x {19}"y\\ud800"$/m);
    expect(result.stdout).toMatch(/^ {11}"sub": "a\\u009b2J\\u202eb",$/m);
  });

  it('in --json, which still parses to what the token holds', async () => {
    const token = signToken(timed(claims), { alg: 'HS256', key: SECRET, header });
    const { result, json } = await verifyJson(token, ['--origin']);
    expect(terminalControlsIn(result.stdout)).toEqual([]);
    expect(json.header).toMatchObject(header);
    expect(json.claims).toMatchObject(claims);
  });

  it('a token argument made of escape sequences is shown by its length only', async () => {
    const token = `eyJ\u001b[2J\u001b[H${'x'.repeat(60)}`;
    const result = await verify(token, [token]);
    expect(result.code).toBe(1);
    expect(terminalControlsIn(result.stdout + result.stderr)).toEqual([]);
    expect(result.stdout).toMatch(/^Token {4}…\(70 chars\)…$/m);
  });
});

describe('cube-dual-auth verify: authorization', () => {
  const authorizing = (): Record<string, string> => ({
    ...env,
    CUBE_DUAL_AUTH_TENANT_CLAIM: 'tenant',
    CUBE_DUAL_AUTH_SERVICE_GROUPS: 'embeddable',
    CUBE_DUAL_AUTH_DEFAULT_GROUPS: 'viewer',
  });

  it('shows the tenant and groups of the context the hook reports, a line each', async () => {
    const token = idpToken({ groups: ['analyst', 'admin'] });
    const result = await verify(token, [token], { env: authorizing() });
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^Tenant +"acme"$/m);
    expect(result.stdout).toMatch(/^Groups +"analyst", "admin"$/m);
    const { json } = await verifyJson(token, [], { env: authorizing() });
    expect(json).toMatchObject({
      authorization: { tenant: 'acme', groups: ['analyst', 'admin'] },
      securityContext: { tenant: 'acme', groups: ['analyst', 'admin'] },
    });
  });

  it('gives a service token the configured groups; without authorization there are no such lines', async () => {
    const token = serviceToken({ tenant: 'beta' });
    const { json } = await verifyJson(token, ['--origin'], { env: authorizing() });
    expect(json.authorization).toEqual({ tenant: 'beta', groups: ['viewer', 'embeddable'] });
    const plain = await verify(token, [token, '--origin']);
    expect(plain.code).toBe(0);
    expect(plain.stdout).not.toMatch(/^(Tenant|Groups) /m);
    expect((await verifyJson(token, ['--origin'])).json.authorization).toBeNull();
  });

  it('a path without a tenant claim gives no tenant, said so', async () => {
    const token = idpToken();
    const result = await verify(token, [token], { env: { ...env, CUBE_DUAL_AUTH_GROUPS_CLAIM: 'roles' } });
    expect(result.stdout).toMatch(/^Tenant +none \(no tenant claim for the key-set path\)$/m);
    expect(result.stdout).toMatch(/^Groups +none$/m);
  });

  it.each([
    [
      'ERR_TENANT_MISSING',
      { tenant: undefined },
      /Have the identity provider put the tenant in the claim CUBE_DUAL_AUTH_TENANT_CLAIM/,
    ],
    ['ERR_TENANT_INVALID', { tenant: 42 }, /must hold the tenant as a non-empty string/],
    ['ERR_GROUPS_INVALID', { groups: ['embeddable'] }, /must hold a group name or a list of them/],
  ])('names %s with its fix, and no tenant or groups lines', async (code, claims, fix) => {
    const token = idpToken(claims);
    const result = await verify(token, [token], { env: authorizing() });
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(new RegExp(`^Verdict +REJECTED ${code}: `, 'm'));
    expect(result.stdout).toMatch(new RegExp(`^Fix +.*${fix.source}`, 'm'));
    expect(result.stdout).not.toMatch(/^(Tenant|Groups) /m);
  });

  it('escapes a tenant and groups the token chose', async () => {
    const token = idpToken({ tenant: 'ac\u001b[2Jme', groups: ['\u202eadmin'] });
    const result = await verify(token, [token], { env: authorizing() });
    expect(result.code).toBe(0);
    expect(terminalControlsIn(result.stdout)).toEqual([]);
    expect(result.stdout).toMatch(/^Tenant +"ac\\u001b\[2Jme"$/m);
  });
});
