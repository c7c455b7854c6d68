import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jsonOf, keySetDeploymentPerFile, runBin, runCli, terminalControlsIn, type CliResult } from '../../support/cli';
import { randomSecret, timed } from '../../support/claims';
import { cubeJsIn, gatewayIn, NODE_LINE_CUBE_1, NODE_WARNINGS_CUBE_1, RECOMMENDED_CUBE_JS } from '../../support/cube';
import { startIssuerServer } from '../../support/issuer-server';
import { startJwksServer, type JwksServer } from '../../support/jwks-server';
import { generateKeyPair, publicJwk, type TestKeyPair } from '../../support/keys';
import { signToken } from '../../support/tokens';

/** The `--json` document of doctor, as documented in docs/cli-output.md. */
interface DoctorJson {
  ok: boolean;
  checks: { id: string; status: 'ok' | 'warn' | 'fail'; message: string; issuer?: string }[];
}

const SECRET = randomSecret(32);
let server: JwksServer;
let key: TestKeyPair;
/** A directory where `@cubejs-backend/api-gateway` resolves, like a Cube project; and one where it does not. */
let cubeProject: string;
let elsewhere: string;
let good: Record<string, string>;

keySetDeploymentPerFile(SECRET, (deployment) => {
  ({ key, server } = deployment);
  good = { ...deployment.env, CUBEJS_JWT_AUDIENCE: 'cube-api', CUBEJS_JWT_ISSUER: 'https://idp.example/' };
});
beforeAll(() => {
  cubeProject = mkdtempSync(join(tmpdir(), 'doctor-cube-'));
  gatewayIn(cubeProject, 'module.exports = {};\n');
  cubeJsIn(cubeProject, RECOMMENDED_CUBE_JS);
  elsewhere = mkdtempSync(join(tmpdir(), 'doctor-empty-'));
});
afterAll(() => {
  rmSync(cubeProject, { recursive: true, force: true });
  rmSync(elsewhere, { recursive: true, force: true });
});

async function doctor(env: Record<string, string>, args: string[] = ['--json'], cwd = cubeProject): Promise<CliResult> {
  // Whatever the environment, no secret is printed.
  const secrets = Object.entries(env).flatMap(([name, value]) => (name.includes('SECRET') ? value.split(',') : []));
  return runCli(['doctor', ...args], { env, cwd, secrets });
}

function without(env: Record<string, string>, ...names: string[]): Record<string, string> {
  return Object.fromEntries(Object.entries(env).filter(([name]) => !names.includes(name)));
}

function checkOf(json: DoctorJson, id: string): DoctorJson['checks'][number] | undefined {
  return json.checks.find((c) => c.id === id);
}

describe('cube-dual-auth doctor', () => {
  it('passes a sound configuration, every check OK, exit 0', async () => {
    const result = await doctor(good);
    expect(result.code).toBe(0);
    const json = jsonOf<DoctorJson>(result);
    expect(json.ok).toBe(true);
    expect(json.checks.map((c) => [c.id, c.status])).toEqual([
      ['configuration', 'ok'],
      ['api-secret', 'ok'],
      ['origin', 'ok'],
      ['jwks-url', 'ok'],
      ['jwks-keys', 'ok'],
      ['audience', 'ok'],
      ['issuer', 'ok'],
      ['authorization', 'ok'],
      ['cube-gateway', 'ok'],
      ['node', NODE_LINE_CUBE_1],
      ['cube-js', 'ok'],
      ['logger', 'ok'],
    ]);
    expect(checkOf(json, 'api-secret')?.message).toBe('CUBEJS_API_SECRET is set: 64 hex digits, 32 bytes: 256 bits');
    expect(checkOf(json, 'jwks-keys')?.message).toMatch(/^1 signing key for RS256: "k1", answered in \d+ ms$/);
    expect(checkOf(json, 'cube-gateway')?.message).toMatch(
      /@cubejs-backend\/api-gateway 1\.7\.43 resolves from .*: rejections become HTTP 403/,
    );
  });

  it('prints a checklist and a summary line', async () => {
    const result = await doctor(good, []);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^ {2}OK {4}configuration {2}the checkAuth hook accepts this environment$/m);
    expect(result.stdout).toMatch(/^ {2}OK {4}jwks-keys {6}1 signing key for RS256: "k1"/m);
    expect(result.stdout).toMatch(new RegExp(`\\nOK: 0 failures, ${NODE_WARNINGS_CUBE_1}\\n$`));
    expect(result.stdout).not.toContain('\x1b[');
  });

  it.each([
    [
      'a short secret',
      'too-short-0123',
      /CUBEJS_API_SECRET is 14 base64 characters, 10 bytes: 84 bits of key material, under 32 bytes: Cube will not start with it; anyone can choose the shared-secret path/,
    ],
    [
      '32 hex characters (16 bytes, not 32)',
      randomSecret(16),
      /CUBEJS_API_SECRET is 32 hex digits, 16 bytes: 128 bits of key material, under 32 bytes/,
    ],
    ['few distinct characters', 'ab'.repeat(40), /has only 2 distinct characters/],
    ['words', 'correct horse battery staple embeddable', /looks like words/],
    ['a placeholder', `changeme-${randomSecret(32)}`, /placeholder word/],
  ])('fails on %s, exit 1, without printing it', async (_name, secret, message) => {
    const result = await doctor({ ...good, CUBEJS_API_SECRET: secret });
    expect(result.code).toBe(1);
    const json = jsonOf<DoctorJson>(result);
    expect(json.ok).toBe(false);
    expect(checkOf(json, 'api-secret')).toMatchObject({ status: 'fail', message: expect.stringMatching(message) });
    expect(result.stdout).not.toContain(secret);
  });

  it('a weak secret stops the hook, so Cube will not start: configuration and api-secret fail, naming the opt-in, and the other checks still run', async () => {
    const result = await doctor({ ...good, CUBEJS_API_SECRET: 'too-short-0123' }, []);
    expect(result.code).toBe(1);
    expect(result.stdout.split('\n').slice(0, 3)).toEqual([
      '  FAIL  configuration  the checkAuth hook accepts every variable but the API secret, which is too weak: Cube will not start (see api-secret)',
      '  FAIL  api-secret     CUBEJS_API_SECRET is 14 base64 characters, 10 bytes: 84 bits of key material, under 32 bytes: Cube will not start with it; anyone can choose the shared-secret path, so use at least 32 random bytes (openssl rand -hex 32), or (not recommended) set CUBE_DUAL_AUTH_ALLOW_WEAK_SECRET=true to start anyway',
      '  OK    origin         "Request-Origin: embeddable" selects the shared-secret path, other requests the key-set path (CUBE_DUAL_AUTH_ORIGIN, default "embeddable")',
    ]);
    expect(
      jsonOf<DoctorJson>(await doctor({ ...good, CUBEJS_API_SECRET: 'too-short-0123' })).checks.map((c) => c.id),
    ).toEqual([
      'configuration',
      'api-secret',
      'origin',
      'jwks-url',
      'jwks-keys',
      'audience',
      'issuer',
      'authorization',
      'cube-gateway',
      'node',
      'cube-js',
    ]);
  });

  it('a weak secret with CUBE_DUAL_AUTH_ALLOW_WEAK_SECRET=true: the hook starts, api-secret still fails, saying the opt-in is set', async () => {
    const json = jsonOf<DoctorJson>(
      await doctor({
        ...good,
        CUBEJS_API_SECRETS: `${randomSecret(32)},short-one`,
        CUBE_DUAL_AUTH_ALLOW_WEAK_SECRET: 'true',
      }),
    );
    expect(json.ok).toBe(false);
    expect(checkOf(json, 'configuration')?.status).toBe('ok');
    expect(checkOf(json, 'api-secret')).toMatchObject({
      status: 'fail',
      message:
        'CUBEJS_API_SECRETS: secret 2 of 2 is 9 base64 characters, 6 bytes: 54 bits of key material, under 32 bytes: Cube starts with it only because CUBE_DUAL_AUTH_ALLOW_WEAK_SECRET is set; anyone can choose the shared-secret path, so use at least 32 random bytes (openssl rand -hex 32)',
    });
  });

  it.each([
    ['openssl rand -hex 32', randomSecret(32), '64 hex digits, 32 bytes: 256 bits'],
    ['openssl rand -base64 32', randomBytes(32).toString('base64'), '43 base64 characters, 32 bytes: 258 bits'],
  ])('accepts a secret made with %s, saying what it measures', async (_name, secret, measured) => {
    const json = jsonOf<DoctorJson>(await doctor({ ...good, CUBEJS_API_SECRET: secret }));
    expect(checkOf(json, 'api-secret')).toMatchObject({
      status: 'ok',
      message: `CUBEJS_API_SECRET is set: ${measured}`,
    });
  });

  it('checks the additional secrets too', async () => {
    const json = jsonOf<DoctorJson>(
      await doctor({ ...good, CUBE_DUAL_AUTH_ADDITIONAL_API_SECRETS: `${randomSecret(32)},short-one` }),
    );
    expect(checkOf(json, 'additional-api-secrets')).toMatchObject({
      status: 'fail',
      message: expect.stringMatching(
        /^CUBE_DUAL_AUTH_ADDITIONAL_API_SECRETS: secret 2 of 2 is 9 base64 characters, 6 bytes: 54 bits of key material, under 32 bytes/,
      ),
    });
  });

  it("checks Cube's rotation list CUBEJS_API_SECRETS, which takes the place of CUBEJS_API_SECRET", async () => {
    const json = jsonOf<DoctorJson>(await doctor({ ...good, CUBEJS_API_SECRETS: `${randomSecret(32)},short-one` }));
    expect(checkOf(json, 'api-secret')).toMatchObject({
      status: 'fail',
      message: expect.stringMatching(/^CUBEJS_API_SECRETS: secret 2 of 2 /),
    });
    const sound = jsonOf<DoctorJson>(
      await doctor({ ...good, CUBEJS_API_SECRETS: `${randomSecret(32)},${randomSecret(32)}` }),
    );
    expect(checkOf(sound, 'api-secret')).toMatchObject({
      status: 'ok',
      message: 'CUBEJS_API_SECRETS: 2 secrets, each long enough for 32 bytes of key material',
    });
  });

  it('checks CUBEJS_API_SECRETS and the additional secrets each under its own name, as the hook reads them', async () => {
    const json = jsonOf<DoctorJson>(
      await doctor({
        ...without(good, 'CUBEJS_API_SECRET'),
        CUBEJS_API_SECRETS: randomSecret(32),
        CUBE_DUAL_AUTH_ADDITIONAL_API_SECRETS: 'short-one',
      }),
    );
    expect(checkOf(json, 'api-secret')).toEqual({
      id: 'api-secret',
      status: 'ok',
      message: 'CUBEJS_API_SECRETS: 1 secret, each long enough for 32 bytes of key material',
    });
    expect(checkOf(json, 'additional-api-secrets')).toMatchObject({
      status: 'fail',
      message: expect.stringMatching(
        /^CUBE_DUAL_AUTH_ADDITIONAL_API_SECRETS: secret 1 of 1 is 9 base64 characters, 6 bytes/,
      ),
    });
  });

  it('takes a JWKS URL without any API secret as a key-set-only set-up, not a failure', async () => {
    const result = await doctor(without(good, 'CUBEJS_API_SECRET'));
    const json = jsonOf<DoctorJson>(result);
    expect(checkOf(json, 'api-secret')).toMatchObject({
      status: 'ok',
      message: expect.stringMatching(/^CUBEJS_API_SECRET is not set, nor CUBEJS_API_SECRETS: a key-set-only set-up/),
    });
    expect(result.code).toBe(0);
  });

  it('fails with neither an API secret nor a JWKS URL, exit 1', async () => {
    const result = await doctor(
      without(without(without(good, 'CUBEJS_API_SECRET'), 'CUBEJS_JWK_URL'), 'CUBEJS_JWT_ISSUER'),
    );
    expect(result.code).toBe(1);
    expect(checkOf(jsonOf<DoctorJson>(result), 'configuration')).toMatchObject({
      status: 'fail',
      message: expect.stringMatching(/both unset/),
    });
  });

  it('fails on an unreachable JWKS URL, exit 1', async () => {
    const down = await startJwksServer({ keys: [key.jwk] });
    await down.stop();
    const result = await doctor({ ...good, CUBEJS_JWK_URL: down.url }, []);
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(
      new RegExp(
        `^ {2}FAIL {2}jwks-keys {6}JWKS URL ${down.url.replace(/\./g, '\\.')} unreachable: ECONNREFUSED$`,
        'm',
      ),
    );
    expect(result.stdout).toMatch(new RegExp(`\\nFAIL: 1 failure, ${NODE_WARNINGS_CUBE_1}\\n$`));
  });

  it('says the TLS handshake failed for an https JWKS URL whose server speaks plain http', async () => {
    const url = server.url.replace(/^http:/, 'https:');
    const json = jsonOf<DoctorJson>(await doctor({ ...good, CUBEJS_JWK_URL: url }));
    expect(checkOf(json, 'jwks-keys')).toMatchObject({
      status: 'fail',
      message: expect.stringMatching(
        /unreachable: TLS handshake failed: does the server speak https\? \((EPROTO|ERR_SSL_\w+)\)$/,
      ),
    });
  });

  it('fails within the configured timeout on a JWKS that does not answer', async () => {
    const hanging = await startJwksServer({ keys: [key.jwk] });
    hanging.mode = { kind: 'hang' };
    try {
      const result = await doctor({ ...good, CUBEJS_JWK_URL: hanging.url, CUBE_DUAL_AUTH_JWKS_TIMEOUT_MS: '300' });
      expect(result.code).toBe(1);
      expect(checkOf(jsonOf<DoctorJson>(result), 'jwks-keys')?.message).toMatch(/timed out after 300 ms/);
      expect(result.ms).toBeLessThan(3_000 + result.lateMs);
    } finally {
      await hanging.close();
    }
  });

  it('fails on a JWKS without usable signing keys, exit 1', async () => {
    const encryption = generateKeyPair('RS256', { kid: 'enc-1' });
    const unusable = await startJwksServer({
      keys: [
        publicJwk(encryption.publicKey, { kid: 'enc-1', use: 'enc' }),
        generateKeyPair('ES256', { kid: 'ec-1' }).jwk,
      ],
    });
    try {
      const result = await doctor({ ...good, CUBEJS_JWK_URL: unusable.url });
      expect(result.code).toBe(1);
      expect(checkOf(jsonOf<DoctorJson>(result), 'jwks-keys')).toMatchObject({
        status: 'fail',
        message: expect.stringMatching(/invalid: no usable signing keys for RS256 \(2 keys in the set\)/),
      });
    } finally {
      await unusable.close();
    }
  });

  it('counts the keys it skipped next to the usable ones', async () => {
    const encryption = generateKeyPair('RS256', { kid: 'enc-1' });
    const mixed = await startJwksServer({
      keys: [key.jwk, publicJwk(encryption.publicKey, { kid: 'enc-1', use: 'enc' })],
    });
    try {
      const json = jsonOf<DoctorJson>(await doctor({ ...good, CUBEJS_JWK_URL: mixed.url }));
      expect(checkOf(json, 'jwks-keys')).toMatchObject({
        status: 'ok',
        message: expect.stringMatching(
          /^1 signing key for RS256: "k1", answered in \d+ ms; 1 other key skipped \(encryption, or not for RS256\)$/,
        ),
      });
    } finally {
      await mixed.close();
    }
  });

  it('fails on an answer that is not a JWKS', async () => {
    server.mode = { kind: 'body', body: '<html>login</html>', contentType: 'text/html' };
    try {
      const json = jsonOf<DoctorJson>(await doctor(good));
      expect(checkOf(json, 'jwks-keys')).toMatchObject({
        status: 'fail',
        message: expect.stringMatching(/not JSON \(content-type "text\/html"\)/),
      });
    } finally {
      server.mode = { kind: 'ok' };
    }
  });

  it('fails on HS256 in CUBEJS_JWT_ALGS, naming the variable, and skips the checks that need a valid configuration', async () => {
    const result = await doctor({ ...good, CUBEJS_JWT_ALGS: 'RS256,HS256' });
    expect(result.code).toBe(1);
    const json = jsonOf<DoctorJson>(result);
    expect(json.checks[0]).toMatchObject({
      id: 'configuration',
      status: 'fail',
      message: expect.stringMatching(/CUBEJS_JWT_ALGS contains "HS256", which is not allowed on the key-set path/),
    });
    expect(json.checks.map((c) => c.id)).toEqual(['configuration', 'api-secret', 'cube-gateway', 'node', 'cube-js']);
  });

  it('warns when audience and issuer are not checked', async () => {
    const json = jsonOf<DoctorJson>(await doctor(without(good, 'CUBEJS_JWT_AUDIENCE', 'CUBEJS_JWT_ISSUER')));
    expect(json.ok).toBe(true);
    expect(checkOf(json, 'audience')).toMatchObject({
      status: 'warn',
      message: expect.stringMatching(/^CUBEJS_JWT_AUDIENCE is not set/),
    });
    expect(checkOf(json, 'issuer')).toMatchObject({
      status: 'warn',
      message: expect.stringMatching(/^CUBEJS_JWT_ISSUER is not set/),
    });
  });

  it('warns when the key-set path is off, and leaves out its checks', async () => {
    const json = jsonOf<DoctorJson>(await doctor({ CUBEJS_API_SECRET: SECRET }));
    expect(json.ok).toBe(true);
    expect(checkOf(json, 'jwks-url')).toMatchObject({
      status: 'warn',
      message: expect.stringMatching(/^CUBEJS_JWK_URL is not set/),
    });
    expect(json.checks.map((c) => c.id)).not.toContain('jwks-keys');
  });

  it('warns about a plain-http JWKS URL on another host', async () => {
    const json = jsonOf<DoctorJson>(
      await doctor({ ...good, CUBEJS_JWK_URL: 'http://idp.invalid/jwks', CUBE_DUAL_AUTH_JWKS_TIMEOUT_MS: '500' }),
    );
    expect(checkOf(json, 'jwks-url')).toMatchObject({
      status: 'warn',
      message: expect.stringMatching(/is plain http/),
    });
  });

  it('warns when @cubejs-backend/api-gateway does not resolve from the current directory', async () => {
    const json = jsonOf<DoctorJson>(await doctor(good, ['--json'], elsewhere));
    expect(json.ok).toBe(true);
    expect(checkOf(json, 'cube-gateway')).toMatchObject({
      status: 'warn',
      message: expect.stringMatching(/HTTP 500 instead of 403/),
    });
  });

  it('prints help with examples (exit 0) and refuses unknown options (exit 2)', async () => {
    const help = await runCli(['doctor', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('Examples:');
    const wrong = await runCli(['doctor', '--loud']);
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toMatch(/Unknown option '--loud'/);
  });
});

describe('cube-dual-auth doctor: identity providers by issuer', () => {
  it('checks each provider: discovery, its keys and its audience, each line naming the issuer', async () => {
    const [discovered, configured, broken] = await Promise.all([
      startIssuerServer({ path: '/a' }),
      startIssuerServer({ path: '/b' }),
      startIssuerServer({ path: '/c' }),
    ]);
    try {
      discovered.jwks = { keys: [key.jwk] };
      configured.jwks = { keys: [key.jwk] };
      broken.answers.set('/c/.well-known/openid-configuration', {
        json: { issuer: 'https://elsewhere.example', jwks_uri: broken.jwksUrl },
      });
      const providers = [
        { issuer: discovered.issuer, audience: 'cube-a' },
        { issuer: configured.issuer, jwksUri: configured.jwksUrl },
        { issuer: broken.issuer },
      ];
      const result = await doctor({ CUBEJS_API_SECRET: SECRET, CUBE_DUAL_AUTH_PROVIDERS: JSON.stringify(providers) });
      expect(result.code).toBe(1);
      const checks = jsonOf<DoctorJson>(result).checks.filter((c) => c.issuer !== undefined);
      expect(checks).toEqual([
        {
          id: 'discovery',
          status: 'ok',
          issuer: discovered.issuer,
          message: `identity provider "${discovered.issuer}": issuer "${discovered.issuer}" names jwks_uri ${discovered.jwksUrl} in ${discovered.issuer}/.well-known/openid-configuration`,
        },
        {
          id: 'jwks-keys',
          status: 'ok',
          issuer: discovered.issuer,
          message: expect.stringMatching(
            /^identity provider "http:\/\/127\.0\.0\.1:\d+\/a": 1 signing key for RS256: "k1", answered in \d+ ms$/,
          ),
        },
        {
          id: 'audience',
          status: 'ok',
          issuer: discovered.issuer,
          message: `identity provider "${discovered.issuer}": CUBEJS_JWT_AUDIENCE: "cube-a"`,
        },
        {
          id: 'jwks-url',
          status: 'ok',
          issuer: configured.issuer,
          message: `identity provider "${configured.issuer}": JWKS URL ${configured.jwksUrl}`,
        },
        {
          id: 'jwks-keys',
          status: 'ok',
          issuer: configured.issuer,
          message: expect.stringMatching(/: 1 signing key for RS256: "k1"/),
        },
        {
          id: 'audience',
          status: 'warn',
          issuer: configured.issuer,
          message: expect.stringMatching(/CUBEJS_JWT_AUDIENCE is not set/),
        },
        {
          id: 'discovery',
          status: 'fail',
          issuer: broken.issuer,
          message: expect.stringMatching(
            /its "issuer" is "https:\/\/elsewhere.example", not exactly the configured "http:\/\/127\.0\.0\.1:\d+\/c"$/,
          ),
        },
        {
          id: 'audience',
          status: 'warn',
          issuer: broken.issuer,
          message: expect.stringMatching(/CUBEJS_JWT_AUDIENCE is not set/),
        },
      ]);
    } finally {
      await Promise.all([discovered.close(), configured.close(), broken.close()]);
    }
  });

  it('checks a JWKS URL discovered from CUBEJS_JWT_ISSUER alone', async () => {
    const idp = await startIssuerServer();
    try {
      idp.jwks = { keys: [key.jwk] };
      const result = await doctor({
        CUBEJS_API_SECRET: SECRET,
        CUBEJS_JWT_ISSUER: idp.issuer,
        CUBEJS_JWT_AUDIENCE: 'cube',
      });
      expect(result.code).toBe(0);
      const json = jsonOf<DoctorJson>(result);
      expect(checkOf(json, 'discovery')).toEqual({
        id: 'discovery',
        status: 'ok',
        issuer: idp.issuer,
        message: `issuer "${idp.issuer}" names jwks_uri ${idp.jwksUrl} in ${idp.issuer}/.well-known/openid-configuration`,
      });
      expect(checkOf(json, 'jwks-keys')).toMatchObject({
        status: 'ok',
        message: expect.stringMatching(/^1 signing key for RS256: "k1"/),
      });
      expect(checkOf(json, 'jwks-url')).toBeUndefined();
    } finally {
      await idp.close();
    }
  });
});

describe('cube-dual-auth doctor: what servers answer is printed escaped, never raw', () => {
  it("a discovery document's jwks_uri laden with escape sequences, in the checklist and in --json", async () => {
    const idp = await startIssuerServer();
    try {
      const jwksUri = `${idp.issuer}/jwks\u001b[2J\u009b31m\u202e`;
      idp.answers.set('/.well-known/openid-configuration', { json: { issuer: idp.issuer, jwks_uri: jwksUri } });
      const env = { CUBEJS_API_SECRET: SECRET, CUBEJS_JWT_ISSUER: idp.issuer, CUBEJS_JWT_AUDIENCE: 'cube' };
      const text = await doctor(env, []);
      expect(terminalControlsIn(text.stdout)).toEqual([]);
      expect(text.stdout).toContain(`names jwks_uri ${idp.issuer}/jwks\\u001b[2J\\u009b31m\\u202e in `);
      const json = await doctor(env);
      expect(terminalControlsIn(json.stdout)).toEqual([]);
      expect(checkOf(jsonOf<DoctorJson>(json), 'discovery')?.message).toContain(`names jwks_uri ${jwksUri} in `);
    } finally {
      await idp.close();
    }
  });
});

describe('cube-dual-auth doctor: authorization', () => {
  const exampleFile = (token: string): string => {
    const file = join(elsewhere, `example-${randomBytes(4).toString('hex')}.token`);
    writeFileSync(file, `Bearer ${token}\n`);
    return file;
  };
  /** doctor with an example token, which is never printed, nor its tenant. */
  const withToken = (env: Record<string, string>, token: string, args: string[] = ['--json']): Promise<CliResult> =>
    runCli(['doctor', '--token-file', exampleFile(token), ...args], {
      env,
      cwd: cubeProject,
      secrets: [SECRET, token, 'secret-tenant-7'],
    });
  const idToken = (payload: Record<string, unknown>): string => signToken(timed({ sub: 'u', ...payload }), { key });
  const serviceToken = (payload: Record<string, unknown>): string =>
    signToken(timed(payload), { alg: 'HS256', key: SECRET });

  it('says authorization is off when no variable of it is set', async () => {
    const json = jsonOf<DoctorJson>(await doctor(good));
    expect(checkOf(json, 'authorization')).toMatchObject({
      status: 'ok',
      message: expect.stringMatching(
        /^off: none of CUBE_DUAL_AUTH_TENANT_CLAIM, CUBE_DUAL_AUTH_SERVICE_TENANT_CLAIM, CUBE_DUAL_AUTH_GROUPS_CLAIM, /,
      ),
    });
  });

  it('names the claims read on each path and the groups given', async () => {
    const env = {
      ...good,
      CUBE_DUAL_AUTH_TENANT_CLAIM: 'tenant_id',
      CUBE_DUAL_AUTH_GROUPS_CLAIM: '/realm_access/roles',
      CUBE_DUAL_AUTH_SERVICE_GROUPS: 'embeddable',
      CUBE_DUAL_AUTH_DEFAULT_GROUPS: 'viewer',
    };
    const result = await doctor(env, []);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(
      '  OK    authorization  service tokens: tenant claim "tenant_id", groups claim "roles", plus groups "embeddable"; identity-provider tokens: tenant claim "tenant_id", groups claim "/realm_access/roles"; default groups "viewer"\n',
    );
    // With a tenant configured and the refresh worker on, the column widens for its line.
    const worker = await doctor({ ...env, CUBEJS_REFRESH_WORKER: 'true' }, []);
    expect(worker.stdout).toContain(
      "  OK    refresh-worker  Cube's refresh worker runs here (CUBEJS_REFRESH_WORKER): every context that scheduledRefreshContexts",
    );
  });

  it("names the service's own tenant claim, and judges an example service token by it", async () => {
    const env = {
      ...good,
      CUBE_DUAL_AUTH_TENANT_CLAIM: '/https:~1~1cube.example~1claims/tenant',
      CUBE_DUAL_AUTH_SERVICE_TENANT_CLAIM: 'tenant',
    };
    const json = jsonOf<DoctorJson>(await withToken(env, serviceToken({ tenant: 'secret-tenant-7' })));
    expect(checkOf(json, 'authorization')?.message).toBe(
      'service tokens: tenant claim "tenant", groups claim "roles"; identity-provider tokens: tenant claim "/https:~1~1cube.example~1claims/tenant", groups claim "groups"; no default groups',
    );
    expect(checkOf(json, 'example-token')?.message).toBe(
      `a service token (HS256, shared-secret path) passes the authorization step: carries the tenant claim "tenant" (CUBE_DUAL_AUTH_SERVICE_TENANT_CLAIM); it gets 0 groups (judged from its decoded payload by the hook's own rules; signature and times not checked)`,
    );
  });

  it('names them per identity provider', async () => {
    const providers = JSON.stringify([
      { issuer: 'https://a.example/', jwksUri: server.url, audience: 'cube' },
      {
        issuer: 'https://b.example/',
        jwksUri: server.url,
        audience: 'cube',
        tenantClaim: 'org',
        groups: ['workforce'],
      },
    ]);
    const json = jsonOf<DoctorJson>(await doctor({ CUBEJS_API_SECRET: SECRET, CUBE_DUAL_AUTH_PROVIDERS: providers }));
    expect(checkOf(json, 'authorization')?.message).toBe(
      'service tokens: no tenant claim, groups claim "roles"; identity provider "https://a.example/": no tenant claim, groups claim "groups"; identity provider "https://b.example/": tenant claim "org", groups claim "groups", plus groups "workforce"; no default groups',
    );
  });

  it('fails an example token without the tenant claim its path reads, exit 1, naming the refusal', async () => {
    const env = { ...good, CUBE_DUAL_AUTH_TENANT_CLAIM: 'tenant_id' };
    const result = await withToken(env, idToken({ tenant: 'secret-tenant-7' }), []);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain(
      `  FAIL  example-token  an identity-provider token (key-set path) is refused with ERR_TENANT_MISSING: The token has no tenant claim "tenant_id" (CUBE_DUAL_AUTH_TENANT_CLAIM), so the request cannot be given a tenant (judged from its decoded payload by the hook's own rules; signature and times not checked)\n`,
    );
    const ok = jsonOf<DoctorJson>(await withToken(env, idToken({ tenant_id: 'secret-tenant-7' })));
    expect(checkOf(ok, 'example-token')).toEqual({
      id: 'example-token',
      status: 'ok',
      message: `an identity-provider token (key-set path) passes the authorization step: carries the tenant claim "tenant_id" (CUBE_DUAL_AUTH_TENANT_CLAIM); it gets 0 groups (judged from its decoded payload by the hook's own rules; signature and times not checked)`,
    });
  });

  it('reads a service token (HS256) as the shared-secret path does: the claim in its payload, a JSON Pointer followed', async () => {
    const env = { ...good, CUBE_DUAL_AUTH_TENANT_CLAIM: '/org/id' };
    const json = jsonOf<DoctorJson>(await withToken(env, serviceToken({ org: { id: 'secret-tenant-7' } })));
    expect(checkOf(json, 'example-token')).toMatchObject({
      status: 'ok',
      message: expect.stringMatching(
        /^a service token \(HS256, shared-secret path\) passes the authorization step: carries/,
      ),
    });
    const invalid = await withToken(env, serviceToken({ org: { id: 7 } }));
    expect(invalid.code).toBe(1);
    expect(checkOf(jsonOf<DoctorJson>(invalid), 'example-token')?.message).toMatch(
      /is refused with ERR_TENANT_INVALID: The token's tenant claim "\/org\/id" must be a non-empty string, not a number/,
    );
  });

  it("uses the rules of the provider the token's iss names, and fails one naming none", async () => {
    const providers = JSON.stringify([
      { issuer: 'https://a.example/', jwksUri: server.url, audience: 'cube' },
      { issuer: 'https://b.example/', jwksUri: server.url, audience: 'cube', tenantClaim: 'org' },
    ]);
    const env = { CUBEJS_API_SECRET: SECRET, CUBE_DUAL_AUTH_PROVIDERS: providers };
    expect(
      checkOf(jsonOf<DoctorJson>(await withToken(env, idToken({ iss: 'https://a.example/' }))), 'example-token')
        ?.message,
    ).toBe(
      `an identity-provider token (key-set path) of identity provider "https://a.example/" passes the authorization step: no tenant claim is configured for it; it gets 0 groups (judged from its decoded payload by the hook's own rules; signature and times not checked)`,
    );
    expect(
      checkOf(jsonOf<DoctorJson>(await withToken(env, idToken({ iss: 'https://b.example/' }))), 'example-token'),
    ).toMatchObject({
      status: 'fail',
      message: expect.stringContaining(
        'of identity provider "https://b.example/" is refused with ERR_TENANT_MISSING: The token has no tenant claim "org"',
      ),
    });
    expect(
      checkOf(jsonOf<DoctorJson>(await withToken(env, idToken({ iss: 'https://c.example/' }))), 'example-token')
        ?.message,
    ).toMatch(
      /^an identity-provider token \(key-set path\) is refused with ERR_ISSUER_UNKNOWN: Token issuer "https:\/\/c\.example\/" is not an identity provider of this deployment; configured issuers: /,
    );
  });

  it('judges the whole authorization step: groups that configuration alone gives, which no token may claim', async () => {
    const env = {
      ...good,
      CUBE_DUAL_AUTH_GROUPS_CLAIM: 'roles',
      CUBE_DUAL_AUTH_SERVICE_GROUPS: 'embeddable',
    };
    const claiming = await withToken(env, idToken({ roles: ['analyst', 'embeddable'] }), []);
    expect(claiming.code).toBe(1);
    expect(claiming.stdout).toContain(
      `  FAIL  example-token  an identity-provider token (key-set path) is refused with ERR_GROUPS_INVALID: The token's groups claim "roles" names "embeddable", which this deployment gives by configuration only (CUBE_DUAL_AUTH_GROUPS_CLAIM) (judged from its decoded payload by the hook's own rules; signature and times not checked)\n`,
    );
    const invalid = jsonOf<DoctorJson>(await withToken(env, idToken({ roles: { admin: true } })));
    expect(checkOf(invalid, 'example-token')?.message).toMatch(/is refused with ERR_GROUPS_INVALID: .* not an object/);
    const service = jsonOf<DoctorJson>(await withToken(env, serviceToken({ roles: ['analyst', 'viewer'] })));
    expect(checkOf(service, 'example-token')).toMatchObject({
      status: 'ok',
      message: `a service token (HS256, shared-secret path) passes the authorization step: no tenant claim is configured for it; it gets 3 groups, "embeddable" given by configuration (judged from its decoded payload by the hook's own rules; signature and times not checked)`,
    });
  });

  it('refuses an identity-provider token where no identity provider is configured, and says so with authorization off', async () => {
    const keySetOff = { CUBEJS_API_SECRET: SECRET };
    expect(checkOf(jsonOf<DoctorJson>(await withToken(keySetOff, idToken({}))), 'example-token')).toMatchObject({
      status: 'fail',
      message: expect.stringMatching(
        /^an identity-provider token \(key-set path\) is refused with ERR_JWKS_NOT_CONFIGURED/,
      ),
    });
    expect(checkOf(jsonOf<DoctorJson>(await withToken(good, serviceToken({}))), 'example-token')?.message).toBe(
      `a service token (HS256, shared-secret path): authorization is off, so no tenant or groups are read (judged from its decoded payload by the hook's own rules; signature and times not checked)`,
    );
  });

  it('reads the token from standard input with --token -, never from the command line', async () => {
    const token = idToken({ tenant_id: 'secret-tenant-7' });
    const env = { ...good, CUBE_DUAL_AUTH_TENANT_CLAIM: 'tenant_id' };
    const piped = await runCli(['doctor', '--token', '-', '--json'], {
      env,
      cwd: cubeProject,
      stdin: token,
      secrets: [SECRET, token],
    });
    expect(checkOf(jsonOf<DoctorJson>(piped), 'example-token')?.status).toBe('ok');
    const given = await runCli(['doctor', '--token', token], { env, cwd: cubeProject, secrets: [SECRET, token] });
    expect(given.code).toBe(2);
    expect(given.stderr).toContain('--token takes only -');
    expect((await runCli(['doctor', '--token', '-', '--token-file', 'x'], { env, cwd: cubeProject })).code).toBe(2);
  });

  it('fails a file that holds no token, and leaves the example out while the configuration is invalid', async () => {
    expect(checkOf(jsonOf<DoctorJson>(await withToken(good, 'not.a-token')), 'example-token')).toMatchObject({
      status: 'fail',
      message: expect.stringMatching(/^the example token is not one: /),
    });
    const json = jsonOf<DoctorJson>(await withToken({ ...good, CUBEJS_JWT_ALGS: 'HS256' }, idToken({})));
    expect(checkOf(json, 'example-token')).toBeUndefined();
  });
});

describe('cube-dual-auth doctor, as a process, reading cube.js', () => {
  let project: string;
  beforeAll(() => {
    project = mkdtempSync(join(tmpdir(), 'doctor-bin-'));
    gatewayIn(project, 'module.exports = {};\n');
  });
  afterAll(() => rmSync(project, { recursive: true, force: true }));

  it('exits 1 when cube.js throws, naming its message with the secret masked, and 0 once it loads', async () => {
    cubeJsIn(project, 'throw new Error(`cannot connect with ${process.env.CUBEJS_API_SECRET}`);\n');
    const thrown = await runBin(['doctor'], { env: good, cwd: project, secrets: [SECRET] });
    expect(thrown.code).toBe(1);
    expect(thrown.stdout).toContain(
      `  FAIL  cube-js        ${join(project, 'cube.js')} throws while it loads, so Cube will not start: cannot connect with [secret]\n`,
    );
    // Its message is text from outside: a terminal's controls in it are shown escaped, in the checklist and in --json.
    cubeJsIn(project, "throw new Error('bad\\u001b[2J\\u202eevil');\n");
    for (const args of [[], ['--json']]) {
      const escaped = await runBin(['doctor', ...args], { env: good, cwd: project, secrets: [SECRET] });
      expect(terminalControlsIn(escaped.stdout)).toEqual([]);
      expect(escaped.stdout).toContain('bad\\u001b[2J\\u202eevil');
    }
    cubeJsIn(project, RECOMMENDED_CUBE_JS);
    const loaded = await runBin(['doctor'], { env: good, cwd: project, secrets: [SECRET] });
    expect(loaded.stdout).toMatch(new RegExp(`\\nOK: 0 failures, ${NODE_WARNINGS_CUBE_1}\\n$`));
    expect(loaded.code).toBe(0);
  });
});
