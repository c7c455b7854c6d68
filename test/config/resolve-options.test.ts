import { describe, expect, it } from 'vitest';
import { optionsFromEnv } from '../../src/config/env';
import { ENV_NAMES } from '../../src/config/option-table';
import { resolveOptions } from '../../src/config/resolve-options';
import { SECRET_ADVICE } from '../../src/config/secret-strength';
import { randomSecret } from '../support/claims';
import { configError } from '../support/config';

const SECRET = randomSecret();

describe('resolveOptions', () => {
  it('applies the documented defaults', () => {
    const resolved = resolveOptions({ apiSecret: SECRET });
    expect(resolved).toMatchObject({
      origin: 'embeddable',
      algorithms: ['RS256'],
      clockTolerance: 5,
      jwksUri: undefined,
      jwksCooldownMs: 30_000,
      jwksMaxAgeMs: 600_000,
      jwksStaleIfErrorMs: 86_400_000,
      jwksTimeoutMs: 5_000,
      jwksMaxResponseBytes: 524_288,
    });
    expect(resolved.secretKeys).toHaveLength(1);
    expect(resolved.secretKeys[0]?.type).toBe('secret');
  });

  it.each([
    [{}, /option "apiSecret" and option "jwksUri" are both unset/],
    [{ apiSecret: '' }, /option "apiSecret" must be a non-empty string/],
    [{ apiSecret: [] }, /option "apiSecret" must be a non-empty string or a non-empty list/],
    [{ jwksUri: 'ftp://idp.example/jwks' }, /option "jwksUri" must be an http\(s\) URL/],
    [{ jwksUri: 'not a url' }, /option "jwksUri" is not a URL/],
    [{ jwksUri: 'https://user:pw@idp.example/jwks' }, /option "jwksUri" must not carry credentials/],
    [
      { jwksUri: 'https://idp.example/jwks', algorithms: ['HS256'] },
      /option "algorithms" contains "HS256", which is not allowed on the key-set path/,
    ],
    [{ jwksUri: 'https://idp.example/jwks', algorithms: ['none'] }, /"none", which is not allowed on the key-set path/],
    [{ jwksUri: 'https://idp.example/jwks', algorithms: ['RS1'] }, /"RS1", which is not supported/],
    [
      { jwksUri: 'https://idp.example/jwks', algorithms: ['EdDSA'] },
      /"EdDSA", which is not supported \(use RS256, .*ES512\)/,
    ],
    [{ jwksUri: 'https://idp.example/jwks', algorithms: [] }, /option "algorithms" must be a non-empty list/],
    [{ apiSecret: SECRET, clockTolerance: -1 }, /option "clockTolerance" must be a finite number of at least 0/],
    [{ apiSecret: SECRET, jwksTimeoutMs: Number.NaN }, /option "jwksTimeoutMs" must be a finite number/],
    [{ apiSecret: SECRET, securityContext: 'tenant' }, /option "securityContext" must be a function/],
    [
      { apiSecret: SECRET, jwksUrl: 'https://idp.example/jwks' },
      /option "jwksUrl" is not an option of createCheckAuth/,
    ],
    [null, /options must be an object/],
  ])('refuses %j, naming the option', (options, message) => {
    expect(configError(options).message).toMatch(message);
  });

  it('names environment variables when the options came from the environment', () => {
    expect(configError({ jwksUri: 'ftp://x' }, ENV_NAMES).message).toMatch(
      /^cube-dual-auth: CUBEJS_JWK_URL must be an http\(s\) URL, not "ftp:\/\/x\/"$/,
    );
  });

  it('shows a URL of another scheme, escaped and without its user name or password', () => {
    expect(configError({ jwksUri: 'ftp://user:pa55word@idp.example/\u001b[2Jjwks' }, ENV_NAMES).message).toBe(
      'cube-dual-auth: CUBEJS_JWK_URL must be an http(s) URL, not "ftp://idp.example/%1B[2Jjwks"',
    );
  });

  describe('a weak API secret', () => {
    const weak = 'a'.repeat(64);

    it('stops the configuration, naming the option, the weakness, the advice and the opt-in', () => {
      expect(configError({ apiSecret: weak }).message).toBe(
        `cube-dual-auth: option "apiSecret" has only 1 distinct characters: ${SECRET_ADVICE}; to run with it anyway, set option "allowWeakSecret" to true`,
      );
      expect(configError({ apiSecret: 'x'.repeat(10) }, ENV_NAMES)).toMatchObject({
        option: 'CUBEJS_API_SECRET',
        message: `cube-dual-auth: CUBEJS_API_SECRET is 10 base64 characters, 7 bytes: 60 bits of key material, under 32 bytes: ${SECRET_ADVICE}; to run with it anyway, set CUBE_DUAL_AUTH_ALLOW_WEAK_SECRET to true`,
      });
    });

    it('names which secret of a rotation list is weak, and never the secret', () => {
      const error = configError({ apiSecret: [SECRET, 'changeme-0123456789-changeme-0123456789-changeme'] }, ENV_NAMES);
      expect(error.message).toMatch(
        /^cube-dual-auth: CUBEJS_API_SECRET \(secret 2 of 2\) contains a placeholder word such as "secret", "password" or "changeme": /,
      );
      expect(error.message).not.toContain('changeme-0123456789');
      expect(error.message).not.toContain(SECRET);
    });

    it('is let through with allowWeakSecret (env CUBE_DUAL_AUTH_ALLOW_WEAK_SECRET), its weakness kept for the warning at start', () => {
      expect(resolveOptions({ apiSecret: weak, allowWeakSecret: true })).toMatchObject({
        allowWeakSecret: true,
        secretWeakness: 'option "apiSecret" has only 1 distinct characters',
      });
      const fromEnv = optionsFromEnv({ CUBEJS_API_SECRET: 'short', CUBE_DUAL_AUTH_ALLOW_WEAK_SECRET: 'true' });
      expect(fromEnv).toEqual({ apiSecret: ['short'], allowWeakSecret: true });
      expect(resolveOptions(fromEnv, ENV_NAMES).secretWeakness).toBe(
        'CUBEJS_API_SECRET is 5 base64 characters, 3 bytes: 30 bits of key material, under 32 bytes',
      );
      expect(configError({ apiSecret: 'short', allowWeakSecret: 'yes' }).message).toBe(
        'cube-dual-auth: option "allowWeakSecret" must be true or false',
      );
    });

    it('leaves a strong secret alone, whatever allowWeakSecret says', () => {
      expect(resolveOptions({ apiSecret: SECRET })).toMatchObject({
        allowWeakSecret: false,
        secretWeakness: undefined,
      });
      expect(resolveOptions({ apiSecret: SECRET, allowWeakSecret: true }).secretWeakness).toBeUndefined();
    });
  });

  it('never puts a secret into a message', () => {
    const secret = 'super-secret-value-0123456789abcdef';
    const error = configError({ apiSecret: secret, algorithms: ['HS256'], jwksUri: 'https://idp.example/jwks' });
    expect(error.message).not.toContain(secret);
  });
});

describe('identity providers', () => {
  const A = 'https://a.example';
  const B = 'https://b.example/tenant/';

  it.each([
    [{ providers: [] }, /^cube-dual-auth: option "providers" must be a non-empty list of identity providers/],
    [
      { providers: [{ jwksUri: 'https://a.example/jwks' }] },
      /option "providers" entry 1 has no "issuer": tokens are routed to a provider by it$/,
    ],
    [{ providers: ['https://a.example'] }, /option "providers" entry 1 must be an object with an "issuer"$/],
    [
      { providers: [{ issuer: A }, { issuer: 'b', jwksUri: 'ftp://b/jwks' }] },
      /option "providers" entry 2 \(issuer "b"\) field "jwksUri" must be an http\(s\) URL, not "ftp:\/\/b\/jwks"$/,
    ],
    [
      { providers: [{ issuer: A, algorithms: ['HS256'] }] },
      /entry 1 \(issuer "https:\/\/a.example"\) field "algorithms" contains "HS256", which is not allowed on the key-set path/,
    ],
    [
      { providers: [{ issuer: A, audiences: ['x'] }] },
      /entry 1 \(issuer "https:\/\/a.example"\): "audiences" is not a provider field \(issuer, jwksUri, audience, algorithms, subject, claimsNamespace, tenantClaim, groupsClaim, groups, tenantClaimFormat, groupsClaimFormat\)$/,
    ],
    [
      { providers: [{ issuer: 'acme-idp' }] },
      /entry 1 \(issuer "acme-idp"\) has no "jwksUri", and its issuer is not a URL$/,
    ],
    [
      { providers: [{ issuer: 'https://a.example/?tenant=1' }] },
      /has no "jwksUri", and its issuer cannot be discovered: an issuer URL has no query or fragment$/,
    ],
    [
      { providers: [{ issuer: A }, { issuer: A, jwksUri: 'https://a.example/jwks' }] },
      /entry 2 \(issuer "https:\/\/a.example"\) repeats an issuer: each issuer chooses one provider$/,
    ],
    [
      { providers: [{ issuer: A }], jwksUri: 'https://a.example/jwks' },
      /option "providers" and option "jwksUri" are both set: with several identity providers, each names its own issuer and JWKS URL$/,
    ],
    [{ providers: [{ issuer: A }], issuer: A }, /option "providers" and option "issuer" are both set/],
    [
      { issuer: 'https://a.example/#x' },
      /option "issuer" cannot be discovered: an issuer URL has no query or fragment \(option "jwksUri" is not set/,
    ],
  ])('refuses %j, naming the entry and field', (options, message) => {
    expect(configError({ apiSecret: SECRET, ...options }).message).toMatch(message);
  });

  it('fills a provider in from the top-level settings, its own fields winning', () => {
    const { identityProviders } = resolveOptions({
      audience: 'cube',
      algorithms: ['RS256', 'ES256'],
      subject: 'svc',
      providers: [
        { issuer: A },
        {
          issuer: B,
          jwksUri: 'https://b.example/keys',
          audience: ['b1', 'b2'],
          algorithms: ['PS256'],
          claimsNamespace: 'ctx',
        },
      ],
    });
    expect(identityProviders).toEqual([
      expect.objectContaining({
        issuer: A,
        jwksUri: undefined,
        issuers: [A],
        audience: ['cube'],
        algorithms: ['RS256', 'ES256'],
        subject: 'svc',
        claimsNamespace: undefined,
      }),
      expect.objectContaining({
        issuer: B,
        jwksUri: 'https://b.example/keys',
        issuers: [B],
        audience: ['b1', 'b2'],
        algorithms: ['PS256'],
        subject: 'svc',
        claimsNamespace: 'ctx',
      }),
    ]);
  });

  it('takes a null claimsNamespace as the whole payload, whatever the top-level one', () => {
    const { identityProviders } = resolveOptions({
      claimsNamespace: 'ctx',
      providers: [{ issuer: A, claimsNamespace: null }, { issuer: B }],
    });
    expect(identityProviders.map((provider) => provider.claimsNamespace)).toEqual([undefined, 'ctx']);
  });

  it('discovers from one issuer URL without a JWKS URL, and from nothing else', () => {
    expect(resolveOptions({ issuer: B }).identityProviders).toEqual([
      expect.objectContaining({ issuer: B, jwksUri: undefined, issuers: [B] }),
    ]);
    expect(resolveOptions({ apiSecret: SECRET, issuer: 'acme-idp' }).identityProviders).toEqual([]);
    expect(resolveOptions({ apiSecret: SECRET, issuer: [A, B] }).identityProviders).toEqual([]);
    expect(resolveOptions({ issuer: A, jwksUri: 'https://a.example/jwks' }).identityProviders).toEqual([
      expect.objectContaining({ issuer: undefined, jwksUri: 'https://a.example/jwks', issuers: [A] }),
    ]);
  });

  it('reads CUBE_DUAL_AUTH_PROVIDERS as JSON, and names the variable when it is not', () => {
    const providers = [{ issuer: A }, { issuer: B, audience: 'b' }];
    expect(optionsFromEnv({ CUBE_DUAL_AUTH_PROVIDERS: JSON.stringify(providers) }).providers).toEqual(providers);
    expect(() => optionsFromEnv({ CUBE_DUAL_AUTH_PROVIDERS: '[{"issuer": }]' })).toThrow(
      /^cube-dual-auth: CUBE_DUAL_AUTH_PROVIDERS is not valid JSON: /,
    );
    expect(configError({ apiSecret: SECRET, providers: [{ issuer: 'x' }] }, ENV_NAMES).message).toMatch(
      /^cube-dual-auth: CUBE_DUAL_AUTH_PROVIDERS entry 1 \(issuer "x"\)/,
    );
  });
});
