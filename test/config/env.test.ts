import { describe, expect, it, vi } from 'vitest';
import { apiSecretsInForce, boolean, ENV, NO_SIGNING_SECRET, optionsFromEnv, readEnv } from '../../src/config/env';
import { DualAuthConfigError } from '../../src/errors';
import { secretsOfDeployment, signingSecretOf } from '../../src/config/deployment';
import { randomSecret } from '../support/claims';

const SECRET = randomSecret();

describe('optionsFromEnv', () => {
  it("reads Cube's variable names and the package's own", () => {
    const options = optionsFromEnv({
      CUBEJS_API_SECRET: SECRET,
      CUBE_DUAL_AUTH_ADDITIONAL_API_SECRETS: 'old-secret-1, old-secret-2',
      CUBEJS_JWK_URL: 'https://idp.example/.well-known/jwks.json',
      CUBEJS_JWT_ALGS: 'RS256,ES256',
      CUBEJS_JWT_AUDIENCE: 'cube-api',
      CUBEJS_JWT_ISSUER: 'https://idp.example/, https://idp2.example/',
      CUBEJS_JWT_SUBJECT: 'app',
      CUBEJS_JWT_CLAIMS_NAMESPACE: 'https://cube.dev/',
      CUBE_DUAL_AUTH_ORIGIN: 'partner',
      CUBE_DUAL_AUTH_CLOCK_TOLERANCE: '10',
      CUBE_DUAL_AUTH_MAX_TOKEN_AGE: '3600',
      CUBE_DUAL_AUTH_JWKS_TIMEOUT_MS: '2000',
    });
    expect(options).toEqual({
      apiSecret: [SECRET, 'old-secret-1', 'old-secret-2'],
      jwksUri: 'https://idp.example/.well-known/jwks.json',
      algorithms: ['RS256', 'ES256'],
      audience: ['cube-api'],
      issuer: ['https://idp.example/', 'https://idp2.example/'],
      subject: 'app',
      claimsNamespace: 'https://cube.dev/',
      origin: 'partner',
      clockTolerance: 10,
      maxTokenAge: 3600,
      jwksTimeoutMs: 2000,
    });
  });

  it('treats empty variables as unset', () => {
    expect(optionsFromEnv({ CUBEJS_API_SECRET: '', CUBEJS_JWK_URL: '  ' })).toEqual({});
  });

  it("honours Cube's rotation list CUBEJS_API_SECRETS, which replaces CUBEJS_API_SECRET as in Cube; the package's list is added", () => {
    const env = { CUBEJS_API_SECRET: 'rotated-out', CUBEJS_API_SECRETS: ` ${SECRET} ,next-secret,,${SECRET}` };
    expect(optionsFromEnv(env).apiSecret).toEqual([SECRET, 'next-secret']);
    expect(optionsFromEnv({ ...env, CUBE_DUAL_AUTH_ADDITIONAL_API_SECRETS: 'extra' }).apiSecret).toEqual([
      SECRET,
      'next-secret',
      'extra',
    ]);
    expect(optionsFromEnv({ CUBEJS_API_SECRET: SECRET, CUBEJS_API_SECRETS: ' , ' }).apiSecret).toEqual([SECRET]);
    expect(ENV.apiSecrets).toBe('CUBEJS_API_SECRETS');
  });

  it('refuses a number that is not one, naming the variable', () => {
    expect(() => optionsFromEnv({ CUBE_DUAL_AUTH_JWKS_TIMEOUT_MS: '5s' })).toThrow(
      /CUBE_DUAL_AUTH_JWKS_TIMEOUT_MS must be a number, got "5s"/,
    );
  });

  it('reports an unknown CUBE_DUAL_AUTH_LOG once and logs refusals, instead of refusing every request', () => {
    const stderr = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const write = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    try {
      const { onEvent } = optionsFromEnv({ CUBE_DUAL_AUTH_LOG: 'verbose' });
      expect(stderr).toHaveBeenCalledTimes(1);
      expect(String(stderr.mock.calls[0]?.[0])).toMatch(
        /CUBE_DUAL_AUTH_LOG must be "rejected", "all" or "off", got "verbose"; logging as "rejected"/,
      );
      onEvent?.({ type: 'accepted', path: 'key-set', cached: false, durationMs: 1 });
      onEvent?.({ type: 'rejected', code: 'ERR_TOKEN_MISSING', message: 'Authentication required', durationMs: 1 });
      expect(write).toHaveBeenCalledTimes(1);
      const line = JSON.parse(String(write.mock.calls[0]?.[0])) as Record<string, unknown>;
      expect(line).toMatchObject({ source: 'cube-dual-auth', type: 'rejected', code: 'ERR_TOKEN_MISSING' });
      expect(Date.parse(String(line.time))).toBeGreaterThan(Date.now() - 60_000);
    } finally {
      stderr.mockRestore();
      write.mockRestore();
    }
  });
});

describe('readEnv and boolean: a variable as the hook reads it', () => {
  it('trims a value, and takes an empty or blank one as unset', () => {
    expect(readEnv({ NAME: '  value ' }, 'NAME')).toBe('value');
    expect(readEnv({ NAME: '' }, 'NAME')).toBeUndefined();
    expect(readEnv({ NAME: ' \t ' }, 'NAME')).toBeUndefined();
    expect(readEnv({}, 'NAME')).toBeUndefined();
  });

  it.each([
    ['true', true],
    ['TRUE', true],
    ['1', true],
    ['yes', true],
    ['false', false],
    ['0', false],
    [' No ', false],
  ])('reads %j as %s', (text, value) => {
    expect(boolean({ FLAG: text }, 'FLAG')).toBe(value);
  });

  it('refuses any other value, naming the variable; unset is undefined', () => {
    expect(() => boolean({ FLAG: 'maybe' }, 'FLAG')).toThrow(DualAuthConfigError);
    expect(() => boolean({ FLAG: 'maybe' }, 'FLAG')).toThrow('cube-dual-auth: FLAG must be true or false, got "maybe"');
    expect(boolean({}, 'FLAG')).toBeUndefined();
  });
});

describe('apiSecretsInForce and signingSecret: the one reader of the API secrets', () => {
  it('names the variable each secret came from, the main setting first, each secret once', () => {
    const env = { CUBEJS_API_SECRET: 'one', CUBE_DUAL_AUTH_ADDITIONAL_API_SECRETS: 'two, one ,three' };
    expect(apiSecretsInForce(env)).toEqual([
      { value: 'one', variable: 'CUBEJS_API_SECRET' },
      { value: 'two', variable: 'CUBE_DUAL_AUTH_ADDITIONAL_API_SECRETS' },
      { value: 'three', variable: 'CUBE_DUAL_AUTH_ADDITIONAL_API_SECRETS' },
    ]);
  });

  it("takes Cube's rotation list in place of CUBEJS_API_SECRET", () => {
    expect(apiSecretsInForce({ CUBEJS_API_SECRET: 'rotated-out', CUBEJS_API_SECRETS: 'new,old' })).toEqual([
      { value: 'new', variable: 'CUBEJS_API_SECRETS' },
      { value: 'old', variable: 'CUBEJS_API_SECRETS' },
    ]);
  });

  it('signs with the first secret of the main setting, never with an additional one', () => {
    expect(
      signingSecretOf(
        secretsOfDeployment({ CUBEJS_API_SECRETS: 'new,old', CUBE_DUAL_AUTH_ADDITIONAL_API_SECRETS: 'extra' }),
      ),
    ).toEqual({
      value: 'new',
      variable: 'CUBEJS_API_SECRETS',
    });
    expect(signingSecretOf(secretsOfDeployment({ CUBEJS_API_SECRET: 'one' }))).toEqual({
      value: 'one',
      variable: 'CUBEJS_API_SECRET',
    });
    expect(signingSecretOf(secretsOfDeployment({ CUBE_DUAL_AUTH_ADDITIONAL_API_SECRETS: 'extra' }))).toBeUndefined();
    expect(signingSecretOf(secretsOfDeployment({}))).toBeUndefined();
    expect(NO_SIGNING_SECRET).toBe('neither CUBEJS_API_SECRET nor CUBEJS_API_SECRETS is set');
  });
});
