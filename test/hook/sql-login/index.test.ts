import { describe, expect, it, vi } from 'vitest';
import * as root from '../../../src';
import { createCheckAuth, DualAuthConfigError, optionsFromEnv, type DualAuthOptions } from '../../../src';
import { createNamedCheckAuth } from '../../../src/hook/check-auth';
import { ENV_NAMES } from '../../../src/config/options';
import type { AuthEvent } from '../../../src/events';
import { timed } from '../../support/claims';
import { withEnv } from '../../support/cube';
import { generateKeyPair } from '../../support/keys';
import { rejectionOf } from '../../support/requests';
import { NOW, sqlLoginSuite } from '../../support/sql-login';
import { signToken } from '../../support/tokens';

const suite = sqlLoginSuite();
const { apiSecret: secret, idpKey, idp, made } = suite;
const strangerKey = generateKeyPair('RS256');

/** What Cube 1.7.43's native server passes as the request of checkSqlAuth (auth.rs: TransportAuthRequest). */
const sqlRequest = () => ({
  id: 'b3f0c2de-1a2b-4c3d-9e8f-0123456789ab-span-1',
  meta: null,
  protocol: 'postgres',
  method: 'password',
});

const idpToken = (payload: Record<string, unknown>, options: { expiresIn?: number; key?: typeof idpKey } = {}) =>
  signToken(timed(payload, { now: NOW, expiresIn: options.expiresIn ?? 300 }), { key: options.key ?? idpKey });
const serviceToken = (payload: Record<string, unknown>) =>
  signToken(timed(payload, { now: NOW }), { alg: 'HS256', key: secret });

const { sqlLogin } = suite;

const keySet = (): DualAuthOptions => ({ jwksUri: idp.url, apiSecret: secret });

describe('checkSqlAuth: an identity-provider token as the SQL password', () => {
  it("signs in the user the token's sub names, with the security context checkAuth gives the same token", async () => {
    const options: DualAuthOptions = { ...keySet(), tenantClaim: 'org', groupsClaim: 'roles' };
    const { checkSqlAuth } = sqlLogin(options);
    const token = idpToken({ sub: 'alice', org: 'acme', roles: ['analyst'], region: 'emea' });
    const login = await checkSqlAuth(sqlRequest(), 'alice', token);
    expect(login).toEqual({
      password: token,
      superuser: false,
      securityContext: {
        sub: 'alice',
        org: 'acme',
        roles: ['analyst'],
        region: 'emea',
        tenant: 'acme',
        groups: ['analyst'],
        iat: NOW,
        exp: NOW + 300,
      },
      skipPasswordCheck: true,
    });
    // The same token over the REST API.
    const hook = createCheckAuth(options);
    made.push(hook);
    expect(await hook(null, token)).toEqual(login.securityContext);
  });

  it('refuses a token of another user, naming the user and the claim, never the token', async () => {
    const { checkSqlAuth } = sqlLogin(keySet());
    const token = idpToken({ sub: 'bob' });
    const error = await rejectionOf(checkSqlAuth(sqlRequest(), 'alice', token));
    expect(error).toBeInstanceOf(Error);
    expect(error).toMatchObject({
      code: 'ERR_CLAIM_INVALID',
      message: 'The SQL user "alice" is not the one the token names in its claim "sub"',
    });
    expect(error.message).not.toContain(token);
  });

  it('reads the user from the claim CUBE_DUAL_AUTH_SQL_USER_CLAIM names, a JSON Pointer too, and refuses a token without it', async () => {
    const { checkSqlAuth } = sqlLogin({ ...keySet(), sqlUserClaim: '/profile/email' });
    const token = idpToken({ sub: 'u-1', profile: { email: 'alice@acme.example' } });
    await expect(checkSqlAuth(sqlRequest(), 'alice@acme.example', token)).resolves.toMatchObject({
      skipPasswordCheck: true,
    });
    await expect(checkSqlAuth(sqlRequest(), 'u-1', token)).rejects.toMatchObject({ code: 'ERR_CLAIM_INVALID' });
    const error = await rejectionOf(
      checkSqlAuth(sqlRequest(), 'alice@acme.example', idpToken({ sub: 'u-1', profile: {} })),
    );
    expect(error).toMatchObject({
      code: 'ERR_CLAIM_MISSING',
      message: 'The token has no user claim "/profile/email" to sign in to the SQL API with',
    });
    expect(error.detail).toContain('option "sqlUserClaim"');
  });

  it('accepts any user name with "*": the token alone decides who signs in', async () => {
    const { checkSqlAuth } = sqlLogin({ ...keySet(), sqlUserClaim: '*' });
    const login = await checkSqlAuth(sqlRequest(), 'tableau', idpToken({ sub: 'svc-tableau', tenant: 'acme' }));
    expect(login.securityContext).toMatchObject({ sub: 'svc-tableau', tenant: 'acme' });
  });

  it('refuses an expired token as checkAuth does (the clock moved past exp)', async () => {
    const { checkSqlAuth, clock } = sqlLogin(keySet());
    const token = idpToken({ sub: 'alice' }, { expiresIn: 60 });
    await expect(checkSqlAuth(sqlRequest(), 'alice', token)).resolves.toMatchObject({ password: token });
    clock.advance(10 * 60_000);
    const error = await rejectionOf(checkSqlAuth(sqlRequest(), 'alice', token));
    expect(error.code).toBe('ERR_TOKEN_EXPIRED');
    expect(error.message).toMatch(/^Token expired at /);
  });

  it('refuses a token signed by a key the identity provider does not have (unknown kid)', async () => {
    const { checkSqlAuth } = sqlLogin(keySet());
    const error = await rejectionOf(
      checkSqlAuth(sqlRequest(), 'alice', idpToken({ sub: 'alice' }, { key: strangerKey })),
    );
    expect(error.code).toBe('ERR_KID_UNKNOWN');
    expect(error.message).toContain(JSON.stringify(strangerKey.kid));
  });

  it('never accepts a service token (HS256) as a SQL password, valid as it is on the shared-secret path', async () => {
    const { checkSqlAuth } = sqlLogin(keySet());
    const token = serviceToken({ sub: 'alice', tenant: 'acme' });
    const error = await rejectionOf(checkSqlAuth(sqlRequest(), 'alice', token));
    expect(error).toMatchObject({
      code: 'ERR_ALG_NOT_ALLOWED',
      message:
        'A service token (HS256) is never accepted as a SQL password: sign in with a token of your identity provider',
    });
    expect(`${error.message} ${error.detail}`).not.toContain(secret);
    expect(`${error.message} ${error.detail}`).not.toContain(token);
  });

  it('refuses a password that is no token', async () => {
    const { checkSqlAuth } = sqlLogin(keySet());
    const error = await rejectionOf(checkSqlAuth(sqlRequest(), 'alice', 'hunter2-not-a-token'));
    expect(error.code).toBe('ERR_TOKEN_MALFORMED');
    expect(error.message).not.toContain('hunter2');
  });

  it('refuses a login whose password is empty or no string, and one without a user name', async () => {
    const { checkSqlAuth } = sqlLogin(keySet());
    for (const password of ['', 42]) {
      const error = await rejectionOf(checkSqlAuth({ ...sqlRequest(), method: 'password' }, 'bob', password));
      expect(error).toMatchObject({
        code: 'ERR_TOKEN_MISSING',
        message: 'The SQL login of user "bob" has no password: sign in with a token of your identity provider',
      });
    }
    await expect(checkSqlAuth(sqlRequest(), null, idpToken({ sub: 'alice' }))).rejects.toMatchObject({
      code: 'ERR_FORBIDDEN',
      message: 'The SQL login has no user name',
    });
  });

  it('refuses every login on a Cube that passes no password (0.33), naming the Cube it needs and the one it runs on', async () => {
    const on033 = sqlLogin(keySet(), { cubeVersion: () => '0.33.65' });
    const error = await rejectionOf(on033.checkSqlAuth(sqlRequest(), 'alice'));
    expect(error).toMatchObject({
      code: 'ERR_CONFIG_INVALID',
      message:
        "cube-dual-auth's checkSqlAuth needs Cube 0.34.27 or later, which passes the SQL password to it; this Cube (0.33.65) passes none",
    });
    const unknown = sqlLogin(keySet());
    await expect(unknown.checkSqlAuth(sqlRequest(), 'alice')).rejects.toThrow(
      /needs Cube 0\.34\.27 or later, .*; this Cube passes none$/,
    );
  });

  it('gives Cube the namespace it applies as an enumerable copy, so the model reads the same context after JSON', async () => {
    const namespace = 'https://cube.acme.example/ctx';
    const { checkSqlAuth } = sqlLogin({ ...keySet(), claimsNamespace: namespace }, { namespaces: [namespace] });
    const login = await checkSqlAuth(
      sqlRequest(),
      'alice',
      idpToken({ sub: 'alice', [namespace]: { tenant: 'acme' } }),
    );
    // Cube's native server hands the context back as JSON, and its extractor reads the namespace member.
    const afterRust = JSON.parse(JSON.stringify(login.securityContext)) as Record<string, unknown>;
    expect(afterRust).toEqual({ tenant: 'acme', [namespace]: { tenant: 'acme' } });
  });

  it('reports each token login as checkAuth reports a request: accepted or rejected, on the key-set path, without the token', async () => {
    const events: AuthEvent[] = [];
    const { checkSqlAuth } = sqlLogin(keySet(), { events });
    const token = idpToken({ sub: 'alice' });
    await checkSqlAuth(sqlRequest(), 'alice', token);
    await checkSqlAuth(sqlRequest(), 'bob', token).catch(() => undefined);
    // The count of SQL logins by kind is test/hook/sql-key.test.ts's.
    expect(events.filter(({ type }) => type !== 'jwks-refreshed' && type !== 'sql-login')).toEqual([
      { type: 'accepted', path: 'key-set', kid: idpKey.kid, cached: false, durationMs: expect.any(Number) as number },
      {
        type: 'rejected',
        path: 'key-set',
        kid: idpKey.kid,
        code: 'ERR_CLAIM_INVALID',
        message: expect.stringContaining('(option "sqlUserClaim")') as string,
        durationMs: expect.any(Number) as number,
      },
    ]);
    expect(JSON.stringify(events)).not.toContain(token);
  });

  it('sends the whole story to the SQL client with detailed errors on', async () => {
    const { checkSqlAuth } = sqlLogin({ ...keySet(), detailedErrors: true });
    await expect(checkSqlAuth(sqlRequest(), 'alice', idpToken({ sub: 'bob' }))).rejects.toThrow(
      'The SQL user "alice" is not the one the token names in its claim "sub" (option "sqlUserClaim")',
    );
  });
});

describe("checkSqlAuth(req, user, null): Cube's re-authentication of a session, from its live login", () => {
  const tenants = (): DualAuthOptions => ({ ...keySet(), tenantClaim: 'org', groupsClaim: 'roles' });
  const RECONNECT = /: reconnect with a fresh token$/;

  it("answers with the live token login's security context, until its token expires", async () => {
    const events: AuthEvent[] = [];
    const { checkSqlAuth, clock } = sqlLogin(tenants(), { events });
    const token = idpToken({ sub: 'alice', org: 'acme', roles: ['analyst'] });
    const login = await checkSqlAuth(sqlRequest(), 'alice', token);
    clock.advance(300_000);
    const again = await checkSqlAuth(sqlRequest(), 'alice', null);
    expect(again).toEqual({
      password: null,
      superuser: false,
      securityContext: login.securityContext,
      skipPasswordCheck: true,
    });
    expect(again.securityContext).toMatchObject({ tenant: 'acme', groups: ['analyst'] });
    // Cube's __user path hands the answer to cube.js code as it is: what that code changes stays out of the next one.
    (again.securityContext as { tenant: string }).tenant = 'globex';
    await expect(checkSqlAuth(sqlRequest(), 'alice', null)).resolves.toMatchObject({
      securityContext: { tenant: 'acme' },
    });
    // The token was issued at NOW with 300 s to live; the clock tolerance (5 s) passes too, as for the token itself.
    clock.advance(5_000);
    const error = await rejectionOf(checkSqlAuth(sqlRequest(), 'alice', null));
    expect(error).toMatchObject({
      code: 'ERR_TOKEN_EXPIRED',
      message: `The SQL session of user "alice" ended when its token expired at ${new Date((NOW + 305) * 1000).toISOString()}: reconnect with a fresh token`,
    });
    expect(error.message).not.toContain(token);
    expect(events.filter((event) => event.type !== 'jwks-refreshed').map((event) => event.type)).toEqual([
      'sql-login',
      'accepted',
      'sql-reauthenticated',
      'sql-reauthenticated',
      'sql-reauthentication-refused',
    ]);
    expect(events.at(-1)).toMatchObject({ code: 'ERR_TOKEN_EXPIRED', message: error.message });
  });

  it('ends the session when the token outgrows CUBE_DUAL_AUTH_MAX_TOKEN_AGE, before its exp', async () => {
    const { checkSqlAuth, clock } = sqlLogin({ ...tenants(), maxTokenAge: 60 });
    await checkSqlAuth(sqlRequest(), 'alice', idpToken({ sub: 'alice', org: 'acme' }, { expiresIn: 3600 }));
    clock.advance(64_000);
    await expect(checkSqlAuth(sqlRequest(), 'alice', null)).resolves.toMatchObject({
      securityContext: { tenant: 'acme' },
    });
    clock.advance(1_000);
    const error = await rejectionOf(checkSqlAuth(sqlRequest(), 'alice', null));
    expect(error.code).toBe('ERR_TOKEN_TOO_OLD');
    expect(error.message).toMatch(RECONNECT);
  });

  it('refuses a user with no live login in this process, and one refused at login', async () => {
    const { checkSqlAuth } = sqlLogin(tenants());
    await rejectionOf(checkSqlAuth(sqlRequest(), 'bob', idpToken({ sub: 'alice', org: 'acme' })));
    for (const user of ['bob', 'alice']) {
      const error = await rejectionOf(checkSqlAuth(sqlRequest(), user, null));
      expect(error).toMatchObject({
        code: 'ERR_TOKEN_MISSING',
        message: `The SQL session of user "${user}" has no live login in this Cube process (its token expired, or it never signed in here): reconnect with a fresh token`,
      });
    }
  });

  it('takes a renewed token as the same login, and never guesses between two tenants under one user name', async () => {
    const { checkSqlAuth, clock } = sqlLogin(tenants());
    await checkSqlAuth(sqlRequest(), 'alice', idpToken({ sub: 'alice', org: 'acme', jti: 'first' }));
    clock.advance(200_000);
    const renewed = idpToken({ sub: 'alice', org: 'acme', jti: 'second' }, { expiresIn: 500 });
    await checkSqlAuth(sqlRequest(), 'alice', renewed);
    clock.advance(200_000);
    await expect(checkSqlAuth(sqlRequest(), 'alice', null)).resolves.toMatchObject({
      securityContext: { tenant: 'acme', jti: 'second' },
    });
    await checkSqlAuth(sqlRequest(), 'alice', idpToken({ sub: 'alice', org: 'globex' }, { expiresIn: 600 }));
    const error = await rejectionOf(checkSqlAuth(sqlRequest(), 'alice', null));
    expect(error).toMatchObject({
      code: 'ERR_FORBIDDEN',
      message:
        'The SQL session of user "alice" cannot be re-authenticated, as that user signed in with credentials of different kinds or security contexts, and a session never moves to another credential: reconnect with a fresh token',
    });
  });

  it('takes a call without the password argument (undefined) as a re-authentication once a Cube has passed one', async () => {
    const { checkSqlAuth } = sqlLogin(tenants());
    await expect(checkSqlAuth(sqlRequest(), 'alice')).rejects.toMatchObject({ code: 'ERR_CONFIG_INVALID' });
    await checkSqlAuth(sqlRequest(), 'alice', idpToken({ sub: 'alice', org: 'acme' }));
    await expect(checkSqlAuth(sqlRequest(), 'alice')).resolves.toMatchObject({
      password: null,
      securityContext: { tenant: 'acme' },
    });
    await expect(checkSqlAuth(sqlRequest(), 'bob')).rejects.toMatchObject({ code: 'ERR_TOKEN_MISSING' });
  });

  it("re-authenticates the static login with its own empty context, as Cube's default does", async () => {
    const { checkSqlAuth } = sqlLogin({ ...keySet(), sqlUser: 'cube', sqlPassword: 'correct horse battery staple' });
    await expect(checkSqlAuth(sqlRequest(), 'cube', null)).resolves.toEqual({
      password: null,
      superuser: false,
      securityContext: {},
      skipPasswordCheck: true,
    });
  });
});

describe("checkSqlAuth: Cube's static login beside token logins", () => {
  const staticLogin = (): DualAuthOptions => ({
    ...keySet(),
    sqlUser: 'cube',
    sqlPassword: 'correct horse battery staple',
  });

  it('signs in CUBEJS_SQL_USER with CUBEJS_SQL_PASSWORD and an empty security context, as Cube does', async () => {
    const { checkSqlAuth } = sqlLogin(staticLogin());
    await expect(checkSqlAuth(sqlRequest(), 'cube', 'correct horse battery staple')).resolves.toEqual({
      password: 'correct horse battery staple',
      superuser: false,
      securityContext: {},
      skipPasswordCheck: true,
    });
    // Token logins go on beside it.
    await expect(checkSqlAuth(sqlRequest(), 'alice', idpToken({ sub: 'alice' }))).resolves.toMatchObject({
      securityContext: { sub: 'alice' },
    });
  });

  it("refuses another password for that user, in Cube's words, and never reads it as a token", async () => {
    const { checkSqlAuth } = sqlLogin(staticLogin());
    for (const password of [
      'correct horse battery stapl',
      'correct horse battery staple!',
      idpToken({ sub: 'cube' }),
    ]) {
      const error = await rejectionOf(checkSqlAuth(sqlRequest(), 'cube', password));
      expect(error).toMatchObject({ code: 'ERR_FORBIDDEN', message: 'Incorrect user name "cube" or password' });
    }
  });

  it('is no login without both variables: the user name then signs in with a token like any other', async () => {
    const { checkSqlAuth } = sqlLogin({ ...keySet(), sqlUser: 'cube' });
    await expect(checkSqlAuth(sqlRequest(), 'cube', 'anything')).rejects.toMatchObject({ code: 'ERR_TOKEN_MALFORMED' });
    await expect(checkSqlAuth(sqlRequest(), 'cube', idpToken({ sub: 'cube' }))).resolves.toMatchObject({
      securityContext: { sub: 'cube' },
    });
  });
});

describe('canSwitchSqlUser: where Cube’s default allows a switch', () => {
  it('lets a user stay itself, and CUBEJS_SQL_SUPER_USER switch to another; nobody else', async () => {
    const { canSwitchSqlUser } = sqlLogin({ ...keySet(), sqlSuperUser: 'admin' });
    expect(await canSwitchSqlUser('alice', 'alice')).toBe(true);
    expect(await canSwitchSqlUser('alice', 'bob')).toBe(false);
    expect(await canSwitchSqlUser('admin', 'bob')).toBe(true);
    expect(await canSwitchSqlUser(null, 'admin')).toBe(false);
    const withoutSuperUser = sqlLogin(keySet());
    expect(await withoutSuperUser.canSwitchSqlUser('admin', 'bob')).toBe(false);
  });
});

describe('the SQL login options, rows of the options table', () => {
  it('refuses a user claim that is no claim name or JSON Pointer, and a static login value that is empty, naming the option or variable', () => {
    expect(() => createCheckAuth({ ...keySet(), sqlUserClaim: '/profile/~2' })).toThrow(
      new DualAuthConfigError(
        'option "sqlUserClaim"',
        'is not a JSON Pointer (RFC 6901): "/profile/~2" has a "~" that is not "~0" or "~1"',
      ),
    );
    expect(() => createCheckAuth({ ...keySet(), sqlPassword: ' ' })).toThrow(
      new DualAuthConfigError('option "sqlPassword"', 'must be a non-empty string'),
    );
    expect(() =>
      createNamedCheckAuth(optionsFromEnv({ CUBEJS_JWK_URL: idp.url, CUBE_DUAL_AUTH_SQL_USER_CLAIM: '/a/~' }), {
        names: ENV_NAMES,
      }),
    ).toThrow(/^cube-dual-auth: CUBE_DUAL_AUTH_SQL_USER_CLAIM is not a JSON Pointer/);
  });
});

describe('the SQL login of createCheckAuth and of the package root', () => {
  it("is a member of what createCheckAuth returns, with the hook's options", async () => {
    const hook = createCheckAuth({ ...keySet(), sqlUserClaim: 'email', sqlSuperUser: 'admin' });
    made.push(hook);
    const token = signToken({ email: 'alice@acme.example' }, { key: idpKey });
    await expect(hook.checkSqlAuth(sqlRequest(), 'alice@acme.example', token)).resolves.toMatchObject({
      securityContext: { email: 'alice@acme.example' },
    });
    expect(await hook.canSwitchSqlUser('admin', 'alice@acme.example')).toBe(true);
    expect(Object.keys(hook)).not.toContain('checkSqlAuth');
  });

  it('is exported ready-made, configured from the environment', async () => {
    await withEnv(
      {
        CUBEJS_JWK_URL: idp.url,
        CUBEJS_SQL_USER: 'cube',
        CUBEJS_SQL_PASSWORD: 'static-password',
        CUBEJS_SQL_SUPER_USER: 'cube',
        CUBE_DUAL_AUTH_SQL_USER_CLAIM: 'email',
      },
      async () => {
        try {
          const token = signToken({ email: 'alice@acme.example' }, { key: idpKey });
          await expect(root.checkSqlAuth(sqlRequest(), 'alice@acme.example', token)).resolves.toMatchObject({
            securityContext: { email: 'alice@acme.example' },
          });
          await expect(root.checkSqlAuth(sqlRequest(), 'cube', 'static-password')).resolves.toMatchObject({
            securityContext: {},
          });
          await expect(root.checkSqlAuth(sqlRequest(), 'cube', 'wrong')).rejects.toThrow(
            'Incorrect user name "cube" or password',
          );
          expect(await root.canSwitchSqlUser('cube', 'alice@acme.example')).toBe(true);
        } finally {
          root.checkAuth.close();
        }
      },
    );
  });

  it('refuses every login when the environment cannot make a hook, as checkAuth refuses every request', async () => {
    const printed = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    try {
      const readyMade = await withEnv({ CUBEJS_JWK_URL: idp.url }, () => root.checkAuth);
      readyMade.close();
      await withEnv({ CUBEJS_JWK_URL: 'ftp://nowhere' }, async () => {
        const error = await rejectionOf(root.checkSqlAuth(sqlRequest(), 'alice', idpToken({ sub: 'alice' })));
        expect(error).toMatchObject({
          code: 'ERR_CONFIG_INVALID',
          message: 'Authentication is misconfigured on this deployment; see the Cube server log',
        });
        expect(printed).toHaveBeenCalledTimes(1);
        readyMade.close();
      });
    } finally {
      printed.mockRestore();
    }
  });
});
