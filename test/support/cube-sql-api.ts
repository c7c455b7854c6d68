/**
 * Cube 1.7.43's SQL API in this process: its ApiGateway and SQLServer (@cubejs-backend/api-gateway), given cube.js's
 * options as its server gives them (`sqlServer.init(config)`), with only the native `registerInterface` replaced by a
 * recorder (and the native logger set-up, which the SQLServer's constructor calls). The Postgres wire is in that native
 * binary, which these machines cannot download: the recorded callbacks are called as the native server calls them
 * (auth.rs, and the JS wrapper of @cubejs-backend/native): arguments and answers cross as JSON, and a rejection
 * reaches the SQL client as its `message`. {@link NativeSession} replays a session's re-authentication
 * (docs/cube-lines.md, "The SQL API's re-authentication").
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { ensureCube } from '../../scripts/ensure-cube.mjs';
import { cubeLine } from '../../scripts/lib/cube-lines.mjs';
import type { CheckAuth, DualAuthOptions } from '../../src';
import { OPTION_NAMES } from '../../src/config/options';
import type { AuthEvent } from '../../src/events';
import { createNamedCheckAuth } from '../../src/hook/check-auth';
import { createClock, type FakeClock } from './clock';

export type Callback = (args: unknown) => Promise<unknown>;
/** What Cube's SQLServer hands the native server: the callbacks it calls, by name. */
export type Registered = Record<'checkSqlAuth' | 'meta' | 'sqlApiLoad' | 'canSwitchUserForSession', Callback>;

/** What a call answered, as the native server sees it: the answer, or the rejection's message. */
export interface NativeAnswer {
  answer?: unknown;
  error?: string;
}

/** A call as the native server makes it: its arguments and the answer cross as JSON; a rejection gives its message. */
export async function callAsNative(callback: Callback, args: object): Promise<NativeAnswer> {
  try {
    const answer = await callback(JSON.parse(JSON.stringify(args)));
    return { answer: answer === undefined ? undefined : JSON.parse(JSON.stringify(answer)) };
  } catch (error) {
    return { error: (error as Error).message || 'Unknown JS exception' };
  }
}

/** The request of a login, as auth.rs builds it (TransportAuthRequest); a re-authentication's is the same. */
export const loginRequest = () => ({
  request: { id: '6f1c0f0e-2a5b-4c19-8d3e-5b8b0f1a2c3d-span-1', meta: null, protocol: 'postgres', method: 'password' },
});
/** The request of a query in a session, with `__user` when the client asked for another user. */
export const queryRequest = (changeUser?: string) => ({
  id: 'b1e2c3d4-span-1',
  meta: { protocol: 'postgres', apiType: 'sql', appName: 'psql', ...(changeUser !== undefined && { changeUser }) },
});

/** The arguments of the load of a query that asks for `changeUser` by `__user`, in `session`. */
export const loadAsUser = (session: object, changeUser: string) => ({
  request: queryRequest(changeUser),
  session,
  query: {},
  queryKey: 'q',
  sqlQuery: {},
  streaming: false,
});

/** The cube the recorded compiler's metadata holds. */
export const META = {
  cubes: [
    { config: { name: 'orders', measures: [{ name: 'orders.count', isVisible: true }], dimensions: [], segments: [] } },
  ],
  compilerId: 'compiler-1',
};

/** What the native server gets for a query that reads the metadata ({@link NativeSession.query}). */
export const META_ANSWER = { answer: { cubes: [META.cubes[0]?.config], compilerId: 'compiler-1' } };

/** cube.js's SQL options, as docs/sql-api.md shows them. */
export interface SqlConfig {
  readonly checkAuth: unknown;
  readonly checkSqlAuth: unknown;
  readonly canSwitchSqlUser: unknown;
}

/** One SQL server of Cube's, with what reached Cube's contextByReq (extendContext), its compiler and its log. */
export interface CubeSqlServer {
  readonly registered: Registered;
  readonly seen: { extendContext: unknown[]; compiler: unknown[] };
  readonly logged: Record<string, unknown>[];
}

/** Cube 1.7.43's gateway with its native binary's SQL interface recorded; `restore` puts the binary's own back. */
export interface CubeSqlApi {
  serve(config: SqlConfig): Promise<CubeSqlServer>;
  restore(): void;
}

/** Cube's SQLServer with cube.js's SQL wiring of one hook, and every event the hook reported. */
export interface HookedSqlServer {
  readonly server: CubeSqlServer;
  readonly hook: CheckAuth;
  readonly events: AuthEvent[];
}

/**
 * Serves a hook made from `options` as cube.js wires it (`checkAuth`, `checkSqlAuth`, `canSwitchSqlUser`), judged by
 * `clock`. The caller closes the hook.
 */
export async function serveHook(
  cube: CubeSqlApi,
  options: DualAuthOptions,
  clock: FakeClock,
): Promise<HookedSqlServer> {
  const events: AuthEvent[] = [];
  const hook = createNamedCheckAuth(
    { ...options, onEvent: (event) => events.push(event) },
    { names: OPTION_NAMES, clock: clock.now },
  );
  const server = await cube.serve({
    checkAuth: hook,
    checkSqlAuth: hook.checkSqlAuth,
    canSwitchSqlUser: hook.canSwitchSqlUser,
  });
  return { server, hook, events };
}

const INSTALL_TIMEOUT_MS = 15 * 60_000;
/** For the caller's beforeAll: Cube 1.7.43 is installed on demand (scripts/ensure-cube.mjs). */
export const CUBE_SQL_API_TIMEOUT_MS = INSTALL_TIMEOUT_MS;

/** Loads Cube 1.7.43's gateway (installing it first if needed), with the native binary's SQL interface recorded. */
export async function loadCubeSqlApi(): Promise<CubeSqlApi> {
  const line = cubeLine('1');
  if (!existsSync(join(line.projectDir, 'node_modules/@cubejs-backend/api-gateway/package.json')))
    await ensureCube({ line: line.id });
  const requireFromCube = createRequire(join(line.projectDir, 'cube.js'));
  const native = requireFromCube('@cubejs-backend/native') as Record<string, unknown>;
  const saved = { setupLogger: native['setupLogger'], registerInterface: native['registerInterface'] };
  native['setupLogger'] = () => {};
  const { ApiGateway } = requireFromCube('@cubejs-backend/api-gateway') as {
    ApiGateway: new (...args: unknown[]) => { getSQLServer(): { init(config: object): Promise<void> } };
  };

  async function serve(config: SqlConfig): Promise<CubeSqlServer> {
    const seen: CubeSqlServer['seen'] = { extendContext: [], compiler: [] };
    const logged: Record<string, unknown>[] = [];
    let registered: Registered | undefined;
    native['registerInterface'] = async (interfaceOptions: Registered) => {
      registered = interfaceOptions;
      return {};
    };
    const serverConfig = { ...config, pgSqlPort: 15432 };
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
      ...serverConfig,
      basePath: '/cubejs-api',
      extendContext,
    });
    await gateway.getSQLServer().init(serverConfig);
    if (registered === undefined) throw new Error('Cube registered no SQL interface');
    return { registered, seen, logged };
  }

  return { serve, restore: () => Object.assign(native, saved) };
}

/** A session as the native server keeps it after a login: the user, and what checkSqlAuth answered. */
export function sessionOf(user: string, answer: unknown) {
  const { superuser, securityContext } = answer as { superuser: boolean; securityContext: unknown };
  return { user, superuser, securityContext };
}

/** Cube's default `CUBESQL_AUTH_EXPIRE_SECS` (cubesql's config/mod.rs). */
export const AUTH_EXPIRE_SECS = 300;

/**
 * A session of Cube's native SQL server, replayed: the login, then before each query the re-authentication of
 * router.rs (`reauthenticate_if_needed`: when more than `CUBESQL_AUTH_EXPIRE_SECS` passed since the session's context
 * was set, `authenticate(user, None)`, whose context replaces the session's; a failure fails the query as
 * "Error calling authenticate during re-authentication: …"), timed by the test's clock.
 */
export class NativeSession {
  private user: string;
  private securityContext: unknown;
  private superuser = false;
  private authAt: number;
  /** How many re-authentications the session asked for. */
  reauthentications = 0;

  private constructor(
    private readonly server: CubeSqlServer,
    private readonly clock: () => number,
    user: string,
    answer: unknown,
    private readonly expireSecs: number,
  ) {
    this.user = user;
    ({ securityContext: this.securityContext, superuser: this.superuser } = sessionOf(user, answer));
    this.authAt = clock();
  }

  /** Opens a session as auth.rs does: `checkSqlAuth` with the password; the login's answer, or the session. */
  static async open(
    server: CubeSqlServer,
    clock: () => number,
    login: { user: string; password: string },
    expireSecs = AUTH_EXPIRE_SECS,
  ): Promise<{ session?: NativeSession; error?: string }> {
    const { answer, error } = await callAsNative(server.registered.checkSqlAuth, { ...loginRequest(), ...login });
    if (error !== undefined) return { error };
    return { session: new NativeSession(server, clock, login.user, answer, expireSecs) };
  }

  /** The session's context and user, as the native server holds them. */
  get state() {
    return { user: this.user, superuser: this.superuser, securityContext: this.securityContext };
  }

  /** Before a query is planned: session.rs `is_auth_context_expired` (`elapsed > expiration`), then re-authentication. */
  private async reauthenticateIfNeeded(): Promise<string | undefined> {
    if (this.clock() - this.authAt <= this.expireSecs * 1000) return undefined;
    this.reauthentications += 1;
    const { answer, error } = await callAsNative(this.server.registered.checkSqlAuth, {
      ...loginRequest(),
      user: this.user,
      password: null,
    });
    if (error !== undefined) return `Error calling authenticate during re-authentication: ${error}`;
    ({ securityContext: this.securityContext } = sessionOf(this.user, answer));
    this.authAt = this.clock();
    return undefined;
  }

  /**
   * `SET user = …` (router.rs `change_user`): re-authentication if needed, `canSwitchUserForSession`, then the new
   * user's `authenticate(user, None)`, whose context the session takes; the error the client sees, if any.
   */
  async setUser(user: string): Promise<string | undefined> {
    const failed = await this.reauthenticateIfNeeded();
    if (failed !== undefined) return failed;
    const can = await callAsNative(this.server.registered.canSwitchUserForSession, { session: this.state, user });
    if (can.error !== undefined) return `Error calling can_switch_user_for_session: ${can.error}`;
    if (can.answer !== true) return `user '${this.user}' is not allowed to switch to '${user}'`;
    this.user = user;
    const { answer, error } = await callAsNative(this.server.registered.checkSqlAuth, {
      ...loginRequest(),
      user,
      password: null,
    });
    if (error !== undefined) return `Error calling authenticate: ${error}`;
    ({ securityContext: this.securityContext } = sessionOf(user, answer));
    this.authAt = this.clock();
    return undefined;
  }

  /** A query that reads the metadata (as a BI tool's first query does): the answer, or the error the client sees. */
  async query(changeUser?: string): Promise<NativeAnswer> {
    const failed = await this.reauthenticateIfNeeded();
    if (failed !== undefined) return { error: failed };
    if (changeUser !== undefined) {
      // A query with __user goes through the SQLServer's contextByRequest (sqlApiLoad).
      return callAsNative(this.server.registered.sqlApiLoad, loadAsUser(this.state, changeUser));
    }
    return callAsNative(this.server.registered.meta, {
      request: queryRequest(),
      session: this.state,
      onlyCompilerId: false,
    });
  }
}

/** cube.js's SQL wiring of one hook on Cube's SQLServer, the clock that judges it, and logins as the native server's. */
export interface SqlDeployment extends HookedSqlServer {
  readonly clock: FakeClock;
  /** A login (auth.rs): the session, or the error the SQL client sees. */
  open(user: string, password: string): Promise<{ session?: NativeSession; error?: string }>;
}

/**
 * The SQL suites' Cube: loads Cube 1.7.43's SQL API before the calling file's tests, closes each test's hooks after it
 * and puts the native binary's own interface back at the end. `deploy` serves a hook made from `options` on a new
 * clock that starts at `startMs`.
 */
export function cubeSqlSuite(startMs: number): { deploy(options: DualAuthOptions): Promise<SqlDeployment> } {
  let cube: CubeSqlApi | undefined;
  const hooks: CheckAuth[] = [];
  beforeAll(async () => {
    cube = await loadCubeSqlApi();
  }, CUBE_SQL_API_TIMEOUT_MS);
  afterEach(() => {
    for (const hook of hooks.splice(0)) hook.close();
  });
  afterAll(() => cube?.restore());
  return {
    async deploy(options) {
      if (cube === undefined) throw new Error("Cube's SQL API loads in beforeAll");
      const clock = createClock(startMs);
      const served = await serveHook(cube, options, clock);
      hooks.push(served.hook);
      const open = (user: string, password: string) => NativeSession.open(served.server, clock.now, { user, password });
      return { ...served, clock, open };
    },
  };
}
