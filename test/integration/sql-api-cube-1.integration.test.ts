// The SQL API's login with Cube 1.7.43's own code: its ApiGateway and SQLServer (@cubejs-backend/api-gateway), given
// cube.js's options as its server gives them (`sqlServer.init(config)`), with only the native `registerInterface`
// replaced by a recorder (and the native logger set-up, which the SQLServer's constructor calls). The Postgres wire
// is in that native binary, which these machines cannot download: no SQL client connects here. The recorded
// callbacks are called as the native server calls them (auth.rs, and the JS wrapper of @cubejs-backend/native):
// arguments and answers cross as JSON, and a rejection reaches the SQL client as its `message`.
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCheckAuth, type CheckAuth, type DualAuthOptions } from '../../src';
import { ensureCube } from '../../scripts/ensure-cube.mjs';
import { cubeLine } from '../../scripts/lib/cube-lines.mjs';
import { randomSecret, timed } from '../support/claims';
import { startJwksServer, type JwksServer } from '../support/jwks-server';
import { generateKeyPair, jwks } from '../support/keys';
import { signToken } from '../support/tokens';

const INSTALL_TIMEOUT_MS = 15 * 60_000;
const line = cubeLine('1');

type Callback = (args: unknown) => Promise<unknown>;
/** What Cube's SQLServer hands the native server: the callbacks it calls, by name. */
type Registered = Record<'checkSqlAuth' | 'meta' | 'sqlApiLoad' | 'canSwitchUserForSession', Callback>;

/** A call as the native server makes it: its arguments and the answer cross as JSON; a rejection gives its message. */
async function callAsNative(callback: Callback, args: object): Promise<{ answer?: unknown; error?: string }> {
  try {
    const answer = await callback(JSON.parse(JSON.stringify(args)));
    return { answer: answer === undefined ? undefined : JSON.parse(JSON.stringify(answer)) };
  } catch (error) {
    return { error: (error as Error).message || 'Unknown JS exception' };
  }
}

/** The request of a login, as auth.rs builds it (TransportAuthRequest). */
const loginRequest = () => ({
  request: { id: '6f1c0f0e-2a5b-4c19-8d3e-5b8b0f1a2c3d-span-1', meta: null, protocol: 'postgres', method: 'password' },
});
/** The request of a query in a session, with `__user` when the client asked for another user. */
const queryRequest = (changeUser?: string) => ({
  id: 'b1e2c3d4-span-1',
  meta: { protocol: 'postgres', apiType: 'sql', appName: 'psql', ...(changeUser !== undefined && { changeUser }) },
});

const secret = randomSecret();
const idpKey = generateKeyPair('RS256');
const strangerKey = generateKeyPair('RS256');
const STATIC_PASSWORD = randomSecret(16);
const META = {
  cubes: [
    { config: { name: 'orders', measures: [{ name: 'orders.count', isVisible: true }], dimensions: [], segments: [] } },
  ],
  compilerId: 'compiler-1',
};

let idp: JwksServer;
/** What reached Cube's contextByReq (through its extendContext option) and its compiler, per call. */
const seen: { extendContext: unknown[]; compiler: unknown[] } = { extendContext: [], compiler: [] };
const logged: Record<string, unknown>[] = [];
const hooks: CheckAuth[] = [];
let native: Record<string, unknown>;
let savedNative: Record<string, unknown>;
let ApiGateway: new (...args: unknown[]) => { getSQLServer(): { init(config: object): Promise<void> } };

const idpToken = (payload: Record<string, unknown>, key = idpKey) => signToken(timed(payload), { key });

beforeAll(async () => {
  if (!existsSync(join(line.projectDir, 'node_modules/@cubejs-backend/api-gateway/package.json')))
    await ensureCube({ line: line.id });
  idp = await startJwksServer(jwks(idpKey));
  const requireFromCube = createRequire(join(line.projectDir, 'cube.js'));
  native = requireFromCube('@cubejs-backend/native') as Record<string, unknown>;
  savedNative = { setupLogger: native['setupLogger'], registerInterface: native['registerInterface'] };
  native['setupLogger'] = () => {};
  ({ ApiGateway } = requireFromCube('@cubejs-backend/api-gateway') as { ApiGateway: typeof ApiGateway });
}, INSTALL_TIMEOUT_MS);

afterAll(async () => {
  if (native) Object.assign(native, savedNative);
  for (const hook of hooks) hook.close();
  await idp?.close();
});

/**
 * Cube's SQL server of a cube.js that takes the package's hook and SQL login (as the README shows it), started as
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
  let registered: Registered | undefined;
  native['registerInterface'] = async (interfaceOptions: Registered) => {
    registered = interfaceOptions;
    return {};
  };
  const config = {
    checkAuth: hook,
    checkSqlAuth: hook.checkSqlAuth,
    canSwitchSqlUser: hook.canSwitchSqlUser,
    pgSqlPort: 15432,
  };
  const compilerApi = async (context: { securityContext: unknown }) => {
    seen.compiler.push(context.securityContext);
    return { metaConfig: async () => META };
  };
  const unused = async () => {
    throw new Error('not reached by these calls');
  };
  const logger = (type: string, properties: Record<string, unknown>) => logged.push({ type, ...properties });
  const extendContext = (req: { securityContext: unknown }) => {
    seen.extendContext.push(req.securityContext);
    return {};
  };
  const gateway = new ApiGateway('unused-secret', compilerApi, unused, logger, {
    ...config,
    basePath: '/cubejs-api',
    extendContext,
  });
  await gateway.getSQLServer().init(config);
  if (registered === undefined) throw new Error('Cube registered no SQL interface');
  return { hook, registered };
}

/** A session as the native server keeps it after a login: the user, and what checkSqlAuth answered. */
function sessionOf(user: string, answer: unknown) {
  const { superuser, securityContext } = answer as { superuser: boolean; securityContext: unknown };
  return { user, superuser, securityContext };
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
    const login = await callAsNative(registered.checkSqlAuth, {
      ...loginRequest(),
      user: 'alice',
      password: idpToken({ sub: 'alice', org: 'acme' }),
    });
    const session = sessionOf('alice', login.answer);
    expect(await callAsNative(registered.canSwitchUserForSession, { session, user: 'bob' })).toEqual({ answer: false });
    const load = await callAsNative(registered.sqlApiLoad, {
      request: queryRequest('bob'),
      session,
      query: {},
      queryKey: 'q',
      sqlQuery: {},
      streaming: false,
    });
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
    const login = await callAsNative(registered.checkSqlAuth, {
      ...loginRequest(),
      user: 'alice',
      password: idpToken({ sub: 'alice', org: 'acme' }),
    });
    const session = sessionOf('alice', login.answer);
    expect(await callAsNative(registered.canSwitchUserForSession, { session, user: 'bob' })).toEqual({ answer: true });
    const load = await callAsNative(registered.sqlApiLoad, {
      request: queryRequest('bob'),
      session,
      query: {},
      queryKey: 'q',
      sqlQuery: {},
      streaming: false,
    });
    expect(load.error).toBe(
      'The SQL session of user "bob" has no live login in this Cube process (its token expired, or it never signed in here): reconnect with a fresh token',
    );
  });
});
