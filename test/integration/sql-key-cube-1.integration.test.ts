// SQL keys through Cube 1.7.43's own SQL API code: its ApiGateway and SQLServer (@cubejs-backend/api-gateway), with only
// the native `registerInterface` replaced by a recorder, as in sql-api-cube-1.integration.test.ts. The callbacks are
// called as the native server calls them (auth.rs, and sql-server.js): a login with the key as the password, then the
// re-authentication `checkSqlAuth({ request, user, password: null })` once CUBESQL_AUTH_EXPIRE_SECS have passed, and a
// `__user` switch. Arguments and answers cross as JSON; time comes from the hook's clock, which the test moves.
import { createSecretKey } from 'node:crypto';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CheckAuth, DualAuthOptions } from '../../src';
import { OPTION_NAMES } from '../../src/config/options';
import { createNamedCheckAuth } from '../../src/hook/check-auth';
import { mintSqlKey } from '../../src/hook/sql-key';
import { ensureCube } from '../../scripts/ensure-cube.mjs';
import { cubeLine } from '../../scripts/lib/cube-lines.mjs';
import { randomSecret } from '../support/claims';
import { createClock, type FakeClock } from '../support/clock';
import { rejectionOf } from '../support/requests';

const INSTALL_TIMEOUT_MS = 15 * 60_000;
const line = cubeLine('1');
const DAY = 86_400;
/** Cube's default CUBESQL_AUTH_EXPIRE_SECS: how often the native server re-authenticates a session. */
const AUTH_EXPIRE_SECS = 300;

type Callback = (args: unknown) => Promise<unknown>;
type Registered = Record<'checkSqlAuth' | 'meta' | 'sqlApiLoad' | 'canSwitchUserForSession', Callback>;

async function callAsNative(callback: Callback, args: object): Promise<{ answer?: unknown; error?: string }> {
  try {
    const answer = await callback(JSON.parse(JSON.stringify(args)));
    return { answer: answer === undefined ? undefined : JSON.parse(JSON.stringify(answer)) };
  } catch (error) {
    return { error: (error as Error).message || 'Unknown JS exception' };
  }
}

const loginRequest = () => ({
  request: { id: '6f1c0f0e-2a5b-4c19-8d3e-5b8b0f1a2c3d-span-1', meta: null, protocol: 'postgres', method: 'password' },
});
const queryRequest = (changeUser?: string) => ({
  id: 'b1e2c3d4-span-1',
  meta: { protocol: 'postgres', apiType: 'sql', appName: 'psql', ...(changeUser !== undefined && { changeUser }) },
});
const META = {
  cubes: [
    { config: { name: 'orders', measures: [{ name: 'orders.count', isVisible: true }], dimensions: [], segments: [] } },
  ],
  compilerId: 'compiler-1',
};

const apiSecret = randomSecret();
const keySecret = randomSecret();
const ALICE = { sub: 'alice', org: 'acme', roles: ['analyst'], tenant: 'acme', groups: ['analyst'] };

const seen: unknown[] = [];
const hooks: CheckAuth[] = [];
let native: Record<string, unknown>;
let savedNative: Record<string, unknown>;
let ApiGateway: new (...args: unknown[]) => { getSQLServer(): { init(config: object): Promise<void> } };

beforeAll(async () => {
  if (!existsSync(join(line.projectDir, 'node_modules/@cubejs-backend/api-gateway/package.json')))
    await ensureCube({ line: line.id });
  const requireFromCube = createRequire(join(line.projectDir, 'cube.js'));
  native = requireFromCube('@cubejs-backend/native') as Record<string, unknown>;
  savedNative = { setupLogger: native['setupLogger'], registerInterface: native['registerInterface'] };
  native['setupLogger'] = () => {};
  ({ ApiGateway } = requireFromCube('@cubejs-backend/api-gateway') as { ApiGateway: typeof ApiGateway });
}, INSTALL_TIMEOUT_MS);

afterAll(() => {
  if (native) Object.assign(native, savedNative);
  for (const hook of hooks) hook.close();
});

/** Cube's SQL server of a cube.js that takes the package's hook and SQL login, judged by `clock`. */
async function sqlServer(clock: FakeClock, options: Partial<DualAuthOptions> = {}) {
  const hook = createNamedCheckAuth(
    { apiSecret, sqlKeySecrets: keySecret, tenantClaim: 'org', groupsClaim: 'roles', ...options },
    OPTION_NAMES,
    clock.now,
  );
  hooks.push(hook);
  let registered: Registered | undefined;
  native['registerInterface'] = async (interfaceOptions: Registered) => {
    registered = interfaceOptions;
    return {};
  };
  const config = { checkAuth: hook, checkSqlAuth: hook.checkSqlAuth, canSwitchSqlUser: hook.canSwitchSqlUser };
  const compilerApi = async () => ({ metaConfig: async () => META });
  const unused = async () => {
    throw new Error('not reached by these calls');
  };
  const extendContext = (req: { securityContext: unknown }) => {
    seen.push(req.securityContext);
    return {};
  };
  const gateway = new ApiGateway('unused-secret', compilerApi, unused, () => {}, {
    ...config,
    basePath: '/cubejs-api',
    extendContext,
  });
  await gateway.getSQLServer().init({ ...config, pgSqlPort: 15432 });
  if (registered === undefined) throw new Error('Cube registered no SQL interface');
  return { hook, registered };
}

/** A key as `sql-key` mints it for Alice, at the clock's time. */
const aliceKey = (clock: FakeClock, expiresIn = 30 * DAY, user = 'alice') =>
  mintSqlKey({
    secret: createSecretKey(Buffer.from(keySecret)),
    user,
    securityContext: ALICE,
    expiresIn,
    now: clock.now(),
  });

const login = (registered: Registered, user: string, password: string | null) =>
  callAsNative(registered.checkSqlAuth, { ...loginRequest(), user, password });

const session = (user: string, answer: unknown) => {
  const { superuser, securityContext } = answer as { superuser: boolean; securityContext: unknown };
  return { user, superuser, securityContext };
};

describe('Cube 1.7.43 SQL API: a BI tool signs in with a SQL key and stays signed in while the key lives', () => {
  it("logs in with the key's context, re-authenticates every CUBESQL_AUTH_EXPIRE_SECS until the key expires", async () => {
    const clock = createClock(Date.now());
    const { registered } = await sqlServer(clock);
    const key = aliceKey(clock, 2 * DAY);
    const first = await login(registered, 'alice', key.key);
    expect(first).toEqual({
      answer: { password: key.key, superuser: false, securityContext: ALICE, skipPasswordCheck: true },
    });
    seen.length = 0;
    await callAsNative(registered.meta, {
      request: queryRequest(),
      session: session('alice', first.answer),
      onlyCompilerId: true,
    });
    expect(seen).toEqual([ALICE]);

    // reauthenticate_if_needed: past CUBESQL_AUTH_EXPIRE_SECS, and a day later, far past any identity-provider token.
    for (const seconds of [AUTH_EXPIRE_SECS + 1, DAY]) {
      clock.advance(seconds * 1000);
      expect(await login(registered, 'alice', null)).toEqual({
        answer: { password: null, superuser: false, securityContext: ALICE, skipPasswordCheck: true },
      });
    }
    // Past the key's exp (and the clock tolerance): the next re-authentication is refused, naming no key.
    clock.advance(DAY * 1000);
    const ended = await login(registered, 'alice', null);
    expect(ended.error).toMatch(
      /^The SQL session of user "alice" ended when its token expired at \S+: reconnect with a fresh token$/,
    );
    expect(ended.error).not.toContain(key.key.slice(0, 20));
    // And a new connection with it is refused as expired.
    expect((await login(registered, 'alice', key.key)).error).toMatch(
      /^The SQL key expired at \S+: ask for a new one$/,
    );
  });

  it('lands a superuser’s __user switch on the live key login of that user', async () => {
    const clock = createClock(Date.now());
    const { registered } = await sqlServer(clock, { sqlSuperUser: 'ops' });
    await login(registered, 'alice', aliceKey(clock).key);
    const ops = await login(registered, 'ops', aliceKey(clock, DAY, 'ops').key);
    const opsSession = session('ops', ops.answer);
    expect(await callAsNative(registered.canSwitchUserForSession, { session: opsSession, user: 'alice' })).toEqual({
      answer: true,
    });
    seen.length = 0;
    await callAsNative(registered.sqlApiLoad, {
      request: queryRequest('alice'),
      session: opsSession,
      query: {},
      queryKey: 'q',
      sqlQuery: {},
      streaming: false,
    });
    // The switch's re-authentication answered with Alice's context, which reached contextByReq.
    expect(seen[0]).toEqual(ALICE);
  });

  it.each([
    [
      'a key of another user',
      (clock: FakeClock) => ({ user: 'bob', key: aliceKey(clock).key }),
      /not the user of this SQL key/,
    ],
    [
      'an altered key',
      (clock: FakeClock) => {
        const [header, , signature] = aliceKey(clock).key.split('.');
        const payload = Buffer.from(
          JSON.stringify({ sub: 'alice', jti: 'x', iat: 1, exp: 2e9, security_context: { tenant: 'globex' } }),
        ).toString('base64url');
        return { user: 'alice', key: `${header}.${payload}.${signature}` };
      },
      /^The SQL key is not valid: it was altered, or signed with a secret this deployment no longer has$/,
    ],
  ])('refuses %s, naming why, never the key', async (_what, make, message) => {
    const clock = createClock(Date.now());
    const { registered } = await sqlServer(clock);
    const { user, key } = make(clock);
    const { answer, error } = await login(registered, user, key);
    expect(answer).toBeUndefined();
    expect(error).toMatch(message);
    expect(error).not.toContain(key.slice(0, 20));
  });

  it('refuses a revoked key at login', async () => {
    const clock = createClock(Date.now());
    const key = aliceKey(clock);
    const { registered } = await sqlServer(clock, { sqlKeysRevoked: [key.id] });
    expect(await login(registered, 'alice', key.key)).toEqual({
      error: `The SQL key "${key.id}" is revoked: ask for a new one`,
    });
  });

  it('is never a REST token: checkAuth refuses it on both paths', async () => {
    const clock = createClock(Date.now());
    const { hook } = await sqlServer(clock);
    const key = aliceKey(clock).key;
    for (const headers of [{}, { 'request-origin': 'embeddable' }]) {
      const error = await rejectionOf(hook({ headers: { ...headers, authorization: `Bearer ${key}` } }));
      expect(error).toMatchObject({
        status: 403,
        message: 'A SQL key is never accepted on the REST API: it signs in to the SQL API only',
      });
    }
  });
});
