import { describe, expect, it } from 'vitest';
import { configurationCheck } from '../../../src/doctor/checks/configuration';
import {
  listedSecretsCheck,
  mainSecretCheck,
  originCheck,
  secretChecks,
} from '../../../src/doctor/checks/shared-secret';
import { randomSecret } from '../../support/claims';

const SECRET = randomSecret();
const ADVICE = 'anyone can choose the shared-secret path, so use at least 32 random bytes (openssl rand -hex 32)';
const SHORT = 'is 8 base64 characters, 6 bytes: 48 bits of key material, under 32 bytes';

describe('mainSecretCheck: api-secret', () => {
  it('is ok with a random secret, saying what was measured and never the secret', () => {
    const check = mainSecretCheck(SECRET, 0, { weakAllowed: false, keySet: false });
    expect(check).toEqual({
      id: 'api-secret',
      status: 'ok',
      message: 'CUBEJS_API_SECRET is set: 64 hex digits, 32 bytes: 256 bits',
    });
  });

  it('fails a weak secret: Cube will not start, unless the opt-in is set, which is said', () => {
    expect(mainSecretCheck('abcdefgh', 0, { weakAllowed: false, keySet: false })).toEqual({
      id: 'api-secret',
      status: 'fail',
      message: `CUBEJS_API_SECRET ${SHORT}: Cube will not start with it; ${ADVICE}, or (not recommended) set CUBE_DUAL_AUTH_ALLOW_WEAK_SECRET=true to start anyway`,
    });
    expect(mainSecretCheck('abcdefgh', 0, { weakAllowed: true, keySet: false }).message).toBe(
      `CUBEJS_API_SECRET ${SHORT}: Cube starts with it only because CUBE_DUAL_AUTH_ALLOW_WEAK_SECRET is set; ${ADVICE}`,
    );
  });

  it('without a secret: ok in a key-set-only set-up, a warning beside additional secrets, else a failure', () => {
    expect(mainSecretCheck(undefined, 0, { weakAllowed: false, keySet: true })).toEqual({
      id: 'api-secret',
      status: 'ok',
      message:
        'CUBEJS_API_SECRET is not set, nor CUBEJS_API_SECRETS: a key-set-only set-up, every service token (shared-secret path) is refused',
    });
    expect(mainSecretCheck(undefined, 2, { weakAllowed: false, keySet: false })).toEqual({
      id: 'api-secret',
      status: 'warn',
      message:
        'CUBEJS_API_SECRET is not set, nor CUBEJS_API_SECRETS: only CUBE_DUAL_AUTH_ADDITIONAL_API_SECRETS verify service tokens, and "cube-dual-auth token" cannot mint any',
    });
    expect(mainSecretCheck(undefined, 0, { weakAllowed: false, keySet: false })).toEqual({
      id: 'api-secret',
      status: 'fail',
      message:
        'CUBEJS_API_SECRET is not set, nor CUBEJS_API_SECRETS: every service token (shared-secret path) is refused',
    });
  });
});

describe('listedSecretsCheck', () => {
  it('counts the secrets of a list, each long enough', () => {
    expect(
      listedSecretsCheck('api-secret', 'CUBEJS_API_SECRETS', [SECRET, randomSecret()], { weakAllowed: false }),
    ).toEqual({
      id: 'api-secret',
      status: 'ok',
      message: 'CUBEJS_API_SECRETS: 2 secrets, each long enough for 32 bytes of key material',
    });
  });

  it('fails naming each weak secret by its position, never by its value', () => {
    const check = listedSecretsCheck(
      'additional-api-secrets',
      'X',
      [SECRET, 'abcdefgh'],
      { weakAllowed: false },
      'more',
    );
    expect(check).toEqual({
      id: 'additional-api-secrets',
      status: 'fail',
      message: `X: secret 2 of 2 ${SHORT}: Cube will not start with it; ${ADVICE}, or (not recommended) set CUBE_DUAL_AUTH_ALLOW_WEAK_SECRET=true to start anyway`,
    });
    expect(check.message).not.toContain('abcdefgh');
  });
});

describe('secretChecks', () => {
  it("judges Cube's rotation list in place of CUBEJS_API_SECRET, and the additional secrets on a line of their own", () => {
    const checks = secretChecks(
      [
        { variable: 'CUBEJS_API_SECRETS', value: SECRET },
        { variable: 'CUBE_DUAL_AUTH_ADDITIONAL_API_SECRETS', value: randomSecret() },
      ],
      { weakAllowed: false, keySet: false },
    );
    expect(checks).toEqual([
      {
        id: 'api-secret',
        status: 'ok',
        message: 'CUBEJS_API_SECRETS: 1 secret, each long enough for 32 bytes of key material',
      },
      {
        id: 'additional-api-secrets',
        status: 'ok',
        message: 'CUBE_DUAL_AUTH_ADDITIONAL_API_SECRETS: 1 more, each long enough for 32 bytes of key material',
      },
    ]);
  });
});

describe('originCheck', () => {
  it('says which Request-Origin selects the shared-secret path', () => {
    expect(
      originCheck(configurationCheck({ CUBEJS_API_SECRET: SECRET, CUBE_DUAL_AUTH_ORIGIN: 'svc' }).resolved!),
    ).toEqual({
      id: 'origin',
      status: 'ok',
      message:
        '"Request-Origin: svc" selects the shared-secret path, other requests the key-set path (CUBE_DUAL_AUTH_ORIGIN, default "embeddable")',
    });
  });
});
