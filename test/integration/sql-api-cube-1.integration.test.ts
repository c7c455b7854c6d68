// The SQL API's login with Cube 1.7.43's own code: its ApiGateway and SQLServer, with only the native
// `registerInterface` replaced by a recorder (test/support/cube-sql-api.ts says what is replaced and how the recorded
// callbacks are called, as the native server calls them). No SQL client connects here.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCheckAuth, type CheckAuth, type DualAuthOptions } from '../../src';
import { randomSecret, timed } from '../support/claims';
import {
  callAsNative,
  CUBE_SQL_API_TIMEOUT_MS,
  loadAsUser,
  loadCubeSqlApi,
  loginRequest,
  META,
  queryRequest,
  sessionOf,
  type CubeSqlApi,
  type CubeSqlServer,
  type Registered,
} from '../support/cube-sql-api';
import { startJwksServer, type JwksServer } from '../support/jwks-server';
import { generateKeyPair, jwks } from '../support/keys';
import { signToken } from '../support/tokens';

const secret = randomSecret();
const idpKey = generateKeyPair('RS256');
const strangerKey = generateKeyPair('RS256');
const STATIC_PASSWORD = randomSecret(16);

let idp: JwksServer;
let cube: CubeSqlApi;
/** What reached Cube's contextByReq (through its extendContext option) and its compiler, and its log: the last server's. */
let seen: CubeSqlServer['seen'];
let logged: CubeSqlServer['logged'];
const hooks: CheckAuth[] = [];

const idpToken = (payload: Record<string, unknown>, key = idpKey) => signToken(timed(payload), { key });

beforeAll(async () => {
  cube = await loadCubeSqlApi();
  idp = await startJwksServer(jwks(idpKey));
}, CUBE_SQL_API_TIMEOUT_MS);

afterAll(async () => {
  cube?.restore();
  for (const hook of hooks) hook.close();
  await idp?.close();
});

/**
 * Cube's SQL server of a cube.js that takes the package's hook and SQL login (as docs/sql-api.md shows it), started as
 * Cube's server starts it (`sqlServer.init(config)`, the whole config); resolves to the hook and the callbacks the
 * native server was handed.
 */
async function sqlServer(options: Partial<DualAuthOptions> = {}): Promise<{ hook: CheckAuth; registered: Registered }> {
  const hook = createCheckAuth({
    jwksUri: idp.url,
    apiSecret: secret,
    tenantClaim: 'org',
    groupsClaim: 'roles',
    sqlUser: 'cube',
    sqlPassword: STATIC_PASSWORD,
    ...options,
  });
  hooks.push(hook);
  const server = await cube.serve({
    checkAuth: hook,
    checkSqlAuth: hook.checkSqlAuth,
    canSwitchSqlUser: hook.canSwitchSqlUser,
  });
  ({ seen, logged } = server);
  return { hook, registered: server.registered };
}

/**
 * Alice signs in with her token, then asks for bob as the native server does: whether she may switch
 * (canSwitchUserForSession), and the load of her query with `__user` bob.
 */
async function aliceAsksForBob(registered: Registered) {
  const login = await callAsNative(registered.checkSqlAuth, {
    ...loginRequest(),
    user: 'alice',
    password: idpToken({ sub: 'alice', org: 'acme' }),
  });
  const session = sessionOf('alice', login.answer);
  const canSwitch = await callAsNative(registered.canSwitchUserForSession, { session, user: 'bob' });
  const load = await callAsNative(registered.sqlApiLoad, loadAsUser(session, 'bob'));
  return { canSwitch, load };
}

describe('Cube 1.7.43 SQL API: a BI tool signs in with an identity-provider token as the password', () => {
  let hook: CheckAuth;
  let registered: Registered;
  beforeAll(async () => {
    ({ hook, registered } = await sqlServer());
  });

  it('a token for the right user gives the security context checkAuth gives it, and that context reaches contextByReq', async () => {
    const token = idpToken({ sub: 'alice', org: 'acme', roles: ['analyst'] });
    const login = await callAsNative(registered.checkSqlAuth, { ...loginRequest(), user: 'alice', password: token });
    expect(login.error).toBeUndefined();
    const restContext = await hook(null, token);
    expect(login.answer).toEqual({
      password: token,
      superuser: false,
      securityContext: restContext,
      skipPasswordCheck: true,
    });
    expect(login.answer).toMatchObject({ securityContext: { tenant: 'acme', groups: ['analyst'] } });

    seen.extendContext.length = 0;
    seen.compiler.length = 0;
    const meta = await callAsNative(registered.meta, {
      request: queryRequest(),
      session: sessionOf('alice', login.answer),
      onlyCompilerId: false,
    });
    expect(meta).toEqual({ answer: { cubes: [META.cubes[0]?.config], compilerId: 'compiler-1' } });
    expect(seen.extendContext).toEqual([restContext]);
    expect(seen.compiler).toEqual([restContext]);
  });

  it.each([
    [
      'a token of another user',
      () => ({ user: 'bob', password: idpToken({ sub: 'alice', org: 'acme' }) }),
      /^The SQL user "bob" is not the one the token names in its claim "sub"$/,
    ],
    [
      'an expired token',
      () => ({
        user: 'alice',
        password: signToken(
          timed({ sub: 'alice', org: 'acme' }, { now: Math.floor(Date.now() / 1000) - 3600, expiresIn: 60 }),
          { key: idpKey },
        ),
      }),
      /^Token expired at /,
    ],
    [
      'a token of a key the JWKS does not have',
      () => ({ user: 'alice', password: idpToken({ sub: 'alice', org: 'acme' }, strangerKey) }),
      new RegExp(`^No key for kid "${strangerKey.kid}" in the identity provider's key set$`),
    ],
    [
      'a service token (HS256)',
      () => ({
        user: 'alice',
        password: signToken(timed({ sub: 'alice', org: 'acme' }), { alg: 'HS256', key: secret }),
      }),
      /^A service token \(HS256\) is never accepted as a SQL password/,
    ],
    ['garbage', () => ({ user: 'alice', password: 'not-a-token' }), /^Malformed token: /],
    ['an empty password', () => ({ user: 'alice', password: '' }), /^The SQL login of user "alice" has no password/],
    [
      'no password (null) for a user with no live login',
      () => ({ user: 'dave', password: null }),
      /^The SQL session of user "dave" has no live login in this Cube process .*: reconnect with a fresh token$/,
    ],
  ])('refuses %s with a message naming the failure, never the token or the secret', async (_what, login, message) => {
    const given = login();
    logged.length = 0;
    const { answer, error } = await callAsNative(registered.checkSqlAuth, { ...loginRequest(), ...given });
    expect(answer).toBeUndefined();
    expect(error).toMatch(message);
    if (typeof given.password === 'string' && given.password !== '') expect(error).not.toContain(given.password);
    expect(error).not.toContain(secret);
    // Cube logs the refusal with the error's stack: no token there either.
    expect(logged).toEqual([expect.objectContaining({ type: 'Auth Error', apiType: 'sql', protocol: 'postgres' })]);
    if (typeof given.password === 'string' && given.password !== '')
      expect(JSON.stringify(logged)).not.toContain(given.password);
  });

  it('refuses a switch to another user (__user) by a user who is no superuser, in Cube’s own words', async () => {
    const { canSwitch, load } = await aliceAsksForBob(registered);
    expect(canSwitch).toEqual({ answer: false });
    expect(load.error).toBe(
      "You cannot change security context via __user from alice to bob, because it's not allowed.",
    );
  });

  it('keeps the static CUBEJS_SQL_USER/CUBEJS_SQL_PASSWORD login beside token logins', async () => {
    const login = await callAsNative(registered.checkSqlAuth, {
      ...loginRequest(),
      user: 'cube',
      password: STATIC_PASSWORD,
    });
    expect(login).toEqual({
      answer: { password: STATIC_PASSWORD, superuser: false, securityContext: {}, skipPasswordCheck: true },
    });
    const wrong = await callAsNative(registered.checkSqlAuth, {
      ...loginRequest(),
      user: 'cube',
      password: `${STATIC_PASSWORD}x`,
    });
    expect(wrong.error).toBe('Incorrect user name "cube" or password');
    expect(wrong.error).not.toContain(STATIC_PASSWORD);
    seen.extendContext.length = 0;
    await callAsNative(registered.meta, {
      request: queryRequest(),
      session: sessionOf('cube', login.answer),
      onlyCompilerId: true,
    });
    expect(seen.extendContext).toEqual([{}]);
  });
});

describe('Cube 1.7.43 SQL API: CUBEJS_SQL_SUPER_USER may switch users, but only to a live login', () => {
  it('lets the super user ask for the switch, which the login then refuses: the other user has no live login', async () => {
    const { registered } = await sqlServer({ sqlSuperUser: 'alice' });
    const { canSwitch, load } = await aliceAsksForBob(registered);
    expect(canSwitch).toEqual({ answer: true });
    expect(load.error).toBe(
      'The SQL session of user "bob" has no live login in this Cube process (its token expired, or it never signed in here): reconnect with a fresh token',
    );
  });
});
