/** What a data provider's secretKey carries: the Cube Cloud hosts, the kind required, the token minted and told apart. */
import { verify, type JwtPayload } from 'jsonwebtoken';
import { describe, expect, it } from 'vitest';
import {
  credentialKind,
  isCubeCloudUrl,
  mintStandingToken,
  secretKeyShape,
} from '../../../src/cli/rotate-secret/credential';
import { UsageError } from '../../../src/cli/io';
import { randomSecret } from '../../support/claims';

const secret = randomSecret();

describe('isCubeCloudUrl', () => {
  it.each([
    ['https://acme.aws-us-east-1.cubecloudapp.dev', true],
    ['https://pr-17--acme.cubecloudapp.dev/cubejs-api/v1', true],
    ['https://acme.gcp-us-central1.cubecloud.dev', true],
    ['https://ACME.CUBECLOUDAPP.DEV', true],
    ['https://cubecloudapp.dev', false],
    ['https://cubecloudapp.dev.evil.example', false],
    ['https://acme-cubecloudapp.dev', false],
    ['http://cube.internal:4000', false],
    ['https://insights.acme.com', false],
    ['not a url', false],
    [undefined, false],
  ])('%s: %s', (url, cloud) => {
    expect(isCubeCloudUrl(url)).toBe(cloud);
  });
});

describe('credentialKind', () => {
  it('takes --credential as given, defaults to secret on Cube Cloud, and requires it elsewhere', () => {
    expect(credentialKind('token', 'https://acme.cubecloudapp.dev')).toBe('token');
    expect(credentialKind('secret', 'http://cube.internal:4000')).toBe('secret');
    expect(credentialKind(undefined, 'https://acme.cubecloudapp.dev')).toBe('secret');
    expect(() => credentialKind(undefined, 'http://cube.internal:4000')).toThrow(UsageError);
    expect(() => credentialKind(undefined, undefined)).toThrow(/for a Cube whose URL is not known/);
    expect(() => credentialKind('raw', undefined)).toThrow('--credential must be "secret" or "token", got "raw"');
  });
});

describe('mintStandingToken and secretKeyShape', () => {
  it('mints HS256 with the claims, a sub, a jti of the form and no exp; each a new jti', () => {
    const token = mintStandingToken(secret, { tenant: 'acme' });
    const payload = verify(token, secret, { algorithms: ['HS256'] }) as JwtPayload;
    expect(Object.keys(payload).sort()).toEqual(['iat', 'jti', 'sub', 'tenant']);
    expect(payload.jti).toMatch(/^cube-dual-auth\.service\.[A-Za-z0-9_-]{22}$/);
    const other = verify(mintStandingToken(secret, {}), secret) as JwtPayload;
    expect(other.jti).not.toBe(payload.jti);
    expect(mintStandingToken(secret, { sub: 'cube-core-acme' })).toBeTypeOf('string');
    expect(() => mintStandingToken(secret, { jti: 'mine' })).toThrow('--claims must not set "jti"');
  });

  it('tells a token from a secret without the value, and says nothing of a redacted one', () => {
    expect(secretKeyShape(mintStandingToken(secret, {}))).toEqual({
      kind: 'token',
      connection: 'Cube Core',
      token: { alg: 'HS256', mintedByCubeDualAuth: true, expires: false },
    });
    expect(secretKeyShape(secret)).toEqual({ kind: 'secret', connection: 'Cube Cloud' });
    expect(secretKeyShape('a.b.c')).toEqual({ kind: 'secret', connection: 'Cube Cloud' });
    expect(secretKeyShape('[redacted]')).toBeUndefined();
    expect(secretKeyShape(undefined)).toBeUndefined();
  });
});
