import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import * as root from '../../src';
import { DualAuthConfigError } from '../../src';
import { checkAuthForImport } from '../../src/hook/ready-made';
import { randomSecret, timed } from '../support/claims';
import { cubesContext, withEnv } from '../support/cube';
import { startJwksServer, type JwksServer } from '../support/jwks-server';
import { generateKeyPair, jwks } from '../support/keys';
import { rejectionOf, serviceRequest } from '../support/requests';
import { signToken } from '../support/tokens';

const secret = randomSecret();
const hs = (payload: Record<string, unknown>) => signToken(timed(payload), { alg: 'HS256', key: secret });

const idpKey = generateKeyPair('RS256');
let idp: JwksServer;
beforeAll(async () => {
  idp = await startJwksServer(jwks(idpKey));
});
afterAll(() => idp.close());

const rs = (payload: Record<string, unknown>) => signToken(timed(payload), { key: idpKey });

describe('the ready-made checkAuth: what it resolves to', () => {
  it('the ready-made hook resolves the same way: to the context, or wrapped when it has a truthy security_context', async () => {
    await withEnv({ CUBEJS_API_SECRET: secret, CUBEJS_JWK_URL: idp.url }, async () => {
      const readyMade = root.checkAuth;
      try {
        const plain = serviceRequest();
        expect(await readyMade(plain, hs({ tenant: 'acme' }))).toBe(plain.securityContext);
        expect(await readyMade(null, rs({ tenant: 'acme' }))).toMatchObject({ tenant: 'acme' });
        const claim = serviceRequest();
        const resolved = await readyMade(claim, hs({ tenant: 'acme', security_context: { tenant: 'other' } }));
        expect(cubesContext(claim, resolved)).toEqual({ '0.33': claim.securityContext, '1.7': claim.securityContext });
        expect((resolved as { security_context: unknown }).security_context).toBe(claim.securityContext);
      } finally {
        readyMade.close();
      }
    });
  });
});

describe('the ready-made checkAuth: whatever the host object does, a 403 rejection', () => {
  const throwingSet = () =>
    new Proxy(
      { headers: { 'request-origin': 'embeddable' } },
      {
        set: () => {
          throw new TypeError('read-only request');
        },
      },
    );

  it('the ready-made checkAuth rejects with a 403 too', async () => {
    await withEnv({ CUBEJS_API_SECRET: secret }, async () => {
      const readyMade = root.checkAuth;
      try {
        const error = await rejectionOf(readyMade(throwingSet(), hs({})));
        expect(error).toMatchObject({ status: 403, code: 'ERR_INTERNAL' });
      } finally {
        readyMade.close();
      }
    });
  });
});

describe('the ready-made checkAuth: the environment is checked when cube.js takes it', () => {
  it.each([
    [
      'a JWKS URL that is not http(s)',
      { CUBEJS_API_SECRET: secret, CUBEJS_JWK_URL: 'ftp://idp.example/jwks' },
      /^cube-dual-auth: CUBEJS_JWK_URL must be an http\(s\) URL, not "ftp:\/\/idp\.example\/jwks"$/,
    ],
    [
      'providers that are not JSON',
      { CUBE_DUAL_AUTH_PROVIDERS: '[{"issuer": }]' },
      /^cube-dual-auth: CUBE_DUAL_AUTH_PROVIDERS is not valid JSON: /,
    ],
    [
      'an unknown algorithm',
      { CUBEJS_JWK_URL: 'https://idp.example/jwks', CUBEJS_JWT_ALGS: 'RS1' },
      /^cube-dual-auth: CUBEJS_JWT_ALGS contains "RS1", which is not supported/,
    ],
    [
      'conflicting variables',
      { CUBE_DUAL_AUTH_PROVIDERS: '[{"issuer": "https://a.example"}]', CUBEJS_JWK_URL: 'https://a.example/jwks' },
      /^cube-dual-auth: CUBE_DUAL_AUTH_PROVIDERS and CUBEJS_JWK_URL are both set/,
    ],
    ['neither a secret nor a JWKS URL', {}, /^cube-dual-auth: CUBEJS_API_SECRET and CUBEJS_JWK_URL are both unset/],
    [
      'a weak secret',
      { CUBEJS_API_SECRET: 'secret' },
      /^cube-dual-auth: CUBEJS_API_SECRET is 6 base64 characters, 4 bytes: 36 bits of key material, under 32 bytes: .*; to run with it anyway, set CUBE_DUAL_AUTH_ALLOW_WEAK_SECRET to true$/,
    ],
  ])('throws the DualAuthConfigError when it is read from the package root: %s', async (_, env, message) => {
    await withEnv(env, () => {
      let thrown: unknown;
      try {
        void root.checkAuth;
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeInstanceOf(DualAuthConfigError);
      expect((thrown as Error).message).toMatch(message);
    });
  });

  it('checks nothing when the rest of the package is taken from the root, in any environment', async () => {
    await withEnv({ CUBEJS_JWK_URL: 'ftp://idp.example/jwks' }, () => {
      const { createCheckAuth: create, optionsFromEnv: fromEnv, DualAuthError: rejection, forbidden } = root;
      expect([create, fromEnv, rejection, forbidden].map((value) => typeof value)).toEqual([
        'function',
        'function',
        'function',
        'function',
      ]);
    });
  });

  it('starts with a weak secret when CUBE_DUAL_AUTH_ALLOW_WEAK_SECRET=true, and warns once', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    try {
      await withEnv({ CUBEJS_API_SECRET: 'secret', CUBE_DUAL_AUTH_ALLOW_WEAK_SECRET: 'true' }, async () => {
        const readyMade = root.checkAuth;
        try {
          const req = serviceRequest();
          await readyMade(req, signToken(timed({ tenant: 'acme' }), { alg: 'HS256', key: 'secret' }));
          expect(req.securityContext).toMatchObject({ tenant: 'acme' });
          expect(root.checkAuth).toBe(readyMade);
        } finally {
          readyMade.close();
        }
      });
      expect(warn).toHaveBeenCalledTimes(1);
      expect(String(warn.mock.calls[0]?.[0])).toMatch(
        /^cube-dual-auth: CUBEJS_API_SECRET is 6 base64 characters, 4 bytes: 36 bits of key material, under 32 bytes: /,
      );
      expect(String(warn.mock.calls[0]?.[0])).not.toContain('"secret"');
    } finally {
      warn.mockRestore();
    }
  });

  it('the ES module twin checks at import once the environment configures a path, and not before', async () => {
    await withEnv({ CUBEJS_JWK_URL: 'ftp://idp.example/jwks' }, () => {
      expect(() => checkAuthForImport()).toThrow(
        /^cube-dual-auth: CUBEJS_JWK_URL must be an http\(s\) URL, not "ftp:\/\/idp\.example\/jwks"$/,
      );
    });
    const logged = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    try {
      await withEnv({ CUBE_DUAL_AUTH_LOG: 'all' }, async () => {
        const unchecked = checkAuthForImport();
        // Imported where nothing configures a path, the hook refuses every request, and says why in the Cube log.
        expect(await rejectionOf(unchecked(serviceRequest(), hs({})))).toMatchObject({
          status: 403,
          code: 'ERR_CONFIG_INVALID',
        });
        expect(String(logged.mock.calls[0]?.[0])).toMatch(
          /^cube-dual-auth: CUBEJS_API_SECRET and CUBEJS_JWK_URL are both unset/,
        );
        unchecked.close();
      });
    } finally {
      logged.mockRestore();
    }
    await withEnv({ CUBEJS_API_SECRET: secret }, () => {
      const bound = checkAuthForImport();
      expect(bound).toBe(root.checkAuth);
      bound.close();
    });
  });

  it('refuses with a 403 ERR_CONFIG_INVALID a configuration that turned bad after close(), and explain never rejects', async () => {
    const error = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    try {
      const readyMade = await withEnv({ CUBEJS_API_SECRET: secret }, () => root.checkAuth);
      readyMade.close();
      await withEnv({ CUBEJS_API_SECRET: secret, CUBEJS_JWK_URL: 'ftp://nowhere' }, async () => {
        const verdict = await readyMade.explain(serviceRequest(), hs({}));
        expect(verdict).toMatchObject({ accepted: false, error: { code: 'ERR_CONFIG_INVALID' } });
        expect(verdict.error?.message).toMatch(/CUBEJS_JWK_URL must be an http\(s\) URL/);
        const refused = await rejectionOf(readyMade(serviceRequest(), hs({})));
        expect(refused).toMatchObject({
          status: 403,
          code: 'ERR_CONFIG_INVALID',
          message: 'Authentication is misconfigured on this deployment; see the Cube server log',
        });
        expect(error).toHaveBeenCalledTimes(1);
        readyMade.close();
      });
    } finally {
      error.mockRestore();
    }
  });
});
