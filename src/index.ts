import type { CheckAuth } from './hook/check-auth';
import { readyMadeCubeOptions, readyMadeSqlAuth, validatedCheckAuth } from './hook/ready-made';
import { CUBE_API_SECRET_PLACEHOLDER } from './hook/cube-api-secret';

export {
  /**
   * The algorithms the key-set path can be configured with (option `algorithms`, `CUBEJS_JWT_ALGS`): asymmetric only.
   * HS256 belongs to the shared-secret path alone, and `none` to no path.
   * @example
   * ```ts
   * import { createCheckAuth, KEY_SET_ALGORITHMS, type KeySetAlgorithm } from 'cube-dual-auth';
   *
   * // An algorithm from your own configuration, narrowed to the type the option takes.
   * const alg = process.env.IDP_SIGNING_ALG ?? 'RS256';
   * const isKeySetAlgorithm = (value: string): value is KeySetAlgorithm =>
   *   (KEY_SET_ALGORITHMS as readonly string[]).includes(value);
   * if (!isKeySetAlgorithm(alg)) throw new Error(`${alg} cannot verify an identity provider's token`);
   *
   * export const checkAuth = createCheckAuth({ jwksUri: 'https://idp.example.com/jwks.json', algorithms: [alg] });
   * ```
   */
  KEY_SET_ALGORITHMS,
} from './algorithms';
export type { KeySetAlgorithm } from './algorithms';
export {
  /**
   * Creates a `checkAuth` for Cube from explicit options, checked at once: an option that cannot work throws a
   * `DualAuthConfigError` naming it, so Cube stops at start (docs/reference.md#explicit-options).
   * @example
   * ```ts
   * // cube.ts, compiled to the cube.js Cube loads
   * import { createCheckAuth, logger, optionsFromEnv } from 'cube-dual-auth';
   *
   * export = {
   *   logger,
   *   checkAuth: createCheckAuth({
   *     ...optionsFromEnv(), // the environment's configuration, and what no variable can say:
   *     securityContext: (context, { path }) => (path === 'key-set' ? { tenant: context.org_id } : context),
   *   }),
   * };
   * ```
   */
  createCheckAuth,
} from './hook/check-auth';
export type { CheckAuth, Explanation, SecurityContext } from './hook/check-auth';
export type { CubeContext, CubeOptions, CubeQuery, QueryRewrite } from './hook/cube-options';
export type { SqlAuth, SqlLogin } from './hook/sql-login';
export type { DualAuthOptions, SecurityContextInfo, SecurityContextMapper } from './config/options';
export {
  /**
   * The environment variable of each option the environment can set, by option name (`ENV.jwksUri` is
   * `'CUBEJS_JWK_URL'`), plus `apiSecrets`, `additionalApiSecrets` and `log` (docs/reference.md#environment).
   * @example
   * ```ts
   * import { ENV } from 'cube-dual-auth';
   *
   * const keySet = [ENV.jwksUri, ENV.issuer, ENV.providers].filter((name) => process.env[name]);
   * if (keySet.length === 0) console.warn(`${ENV.jwksUri} is unset: only the service's tokens will be accepted`);
   * ```
   */
  ENV,
  /**
   * The options the ready-made `checkAuth` reads from `env` (default `process.env`), for `createCheckAuth` to add to.
   * A variable it cannot read (not JSON, not a number) throws a `DualAuthConfigError` naming it; what the options say
   * is checked when a hook is made of them.
   * @example
   * ```ts
   * import { createCheckAuth, optionsFromEnv } from 'cube-dual-auth';
   *
   * // Everything the environment configures, and the refusals written to the log your way.
   * export const checkAuth = createCheckAuth({
   *   ...optionsFromEnv(process.env),
   *   onEvent: (event) => {
   *     if (event.type === 'rejected') console.warn(`cube-dual-auth refused a request: ${event.code}`);
   *   },
   * });
   * ```
   */
  optionsFromEnv,
} from './config/env';
export {
  /**
   * A configuration that cannot work: thrown by `createCheckAuth` and by reading the ready-made `checkAuth`, at
   * start. `option` names the option (`option "jwksUri"`) or the variable (`CUBEJS_JWK_URL`); `code` is
   * `ERR_CONFIG_INVALID`.
   * @example
   * ```ts
   * import { createCheckAuth, DualAuthConfigError } from 'cube-dual-auth';
   *
   * try {
   *   createCheckAuth({ jwksUri: 'ftp://idp.example.com/jwks' });
   * } catch (error) {
   *   if (!(error instanceof DualAuthConfigError)) throw error;
   *   // option "jwksUri": cube-dual-auth: option "jwksUri" must be an http(s) URL, not "ftp://idp.example.com/jwks"
   *   console.error(`${error.option}: ${error.message}`);
   * }
   * ```
   */
  DualAuthConfigError,
  /**
   * A refused request: status 403 with a stable `code` (docs/reference.md#rejections) and a `message` for the caller.
   * Inside Cube the hook throws Cube's own 403 error, which `instanceof DualAuthError` recognises too. Throw one from
   * a `securityContext` function to refuse with your own message.
   * @example
   * ```ts
   * import { createCheckAuth, DualAuthError, optionsFromEnv } from 'cube-dual-auth';
   *
   * export const checkAuth = createCheckAuth({
   *   ...optionsFromEnv(),
   *   securityContext: (context, { path }) => {
   *     if (path === 'key-set' && context.email_verified !== true)
   *       throw new DualAuthError('ERR_FORBIDDEN', 'Verify your e-mail address first', path);
   *     return context;
   *   },
   * });
   * ```
   */
  DualAuthError,
  /**
   * A refusal of your own, for `queryRewrite` and the rest of `cube.js`: throw what it returns, and Cube answers
   * `403 {"error": message}` where a plain `Error` would be a 500.
   * @example
   * ```ts
   * import { checkAuth, forbidden, type CubeContext, type CubeQuery } from 'cube-dual-auth';
   *
   * function queryRewrite<Query extends CubeQuery>(query: Query, { securityContext }: CubeContext): Query {
   *   const { region } = (securityContext ?? {}) as { region?: unknown };
   *   if (typeof region !== 'string') throw forbidden('No region in the security context');
   *   const filter = { member: 'orders.region', operator: 'equals', values: [region] };
   *   return { ...query, filters: [...(query.filters ?? []), filter] };
   * }
   *
   * export = { checkAuth, queryRewrite };
   * ```
   */
  forbidden,
} from './errors';
export {
  /**
   * Cube's `logger` option: Cube's own log lines, written by Cube's default logger, with every token in them masked
   * (Cube logs the token of each request it refuses).
   * @example
   * ```ts
   * import { checkAuth, logger } from 'cube-dual-auth';
   *
   * export = { checkAuth, logger };
   * ```
   */
  logger,
} from './logger';
export {
  /**
   * The metrics of every hook in this process with metrics on (`CUBE_DUAL_AUTH_METRICS=true`), in the Prometheus text
   * format, for a server of yours to serve (docs/metrics.md#scraping-serving-them-yourself-opentelemetry).
   * @example
   * ```ts
   * import { createServer } from 'node:http';
   * import { metrics } from 'cube-dual-auth';
   *
   * // On an internal port, away from Cube's public API.
   * createServer(async (_req, res) => {
   *   res.writeHead(200, { 'Content-Type': metrics.contentType }).end(await metrics.text());
   * }).listen(9464, '127.0.0.1');
   * ```
   */
  metrics,
} from './metrics';
export type { CubeLogger } from './logger';
export type { AuthPath, RejectionCode } from './errors';
export type {
  AcceptedEvent,
  AuthEvent,
  AuthEventListener,
  DiscoveryEvent,
  InternalErrorEvent,
  KeySetRefreshedEvent,
  KeySetRefreshFailedEvent,
  RejectedEvent,
  SqlLoginEvent,
  SqlLoginKind,
  SqlReauthenticatedEvent,
  SqlReauthenticationRefusedEvent,
} from './events';

/**
 * The ready-made hook for `cube.js`, configured from the environment. Reading it checks the environment and throws a
 * `DualAuthConfigError` naming the variable when the configuration cannot work, so Cube stops before it listens;
 * requiring the package checks nothing. With `import`, the check runs at import once a path is configured
 * (docs/reference.md#when-the-environment-is-checked).
 * @example
 * ```ts
 * // cube.ts, compiled to the cube.js Cube loads; CUBEJS_API_SECRET and CUBEJS_JWK_URL in .env
 * import { checkAuth, logger } from 'cube-dual-auth';
 *
 * // The identity provider's keys fetched while Cube starts, not by the first request.
 * checkAuth.prefetch().catch(() => {});
 *
 * export = { checkAuth, logger };
 * ```
 * @example
 * ```ts
 * // explain.mts: why a token is refused, step by step, without side effects (what `cube-dual-auth verify` prints)
 * import { checkAuth } from 'cube-dual-auth';
 *
 * const report = await checkAuth.explain({ headers: {} }, process.env.TOKEN);
 * console.log(report.accepted ? report.securityContext : report.error?.message);
 * ```
 */
export declare const checkAuth: CheckAuth;
// A getter, so the check runs when cube.js reads `checkAuth`; a named function, since Node's reader of CommonJS
// exports would list a `get: function () { return x.y; }` and read it whenever an ES module imports this file.
Object.defineProperty(exports, 'checkAuth', { enumerable: true, get: validatedCheckAuth });

/**
 * Cube's `contextToGroups`, configured from the environment as `checkAuth` is: the groups the hook put in the security
 * context (`CUBE_DUAL_AUTH_GROUPS_CLAIM`), which the data model's access policies name (Cube 1.x). A context without
 * groups is refused with a 403. `createCheckAuth` users take the member of the hook they made.
 * @example
 * ```ts
 * // cube.ts: with access policies by group in the data model, this is the whole set-up on Cube 1.x
 * import { checkAuth, contextToGroups } from 'cube-dual-auth';
 *
 * export = { checkAuth, contextToGroups };
 * ```
 */
export const contextToGroups = readyMadeCubeOptions.contextToGroups;
/**
 * Cube's `contextToAppId`, configured from the environment as `checkAuth` is: `CUBE_APP_<tenant>`, one compiled data
 * model per tenant (`CUBE_DUAL_AUTH_TENANT_CLAIM`). A context without a tenant is refused with a 403.
 * @example
 * ```ts
 * import { checkAuth, contextToAppId, contextToOrchestratorId } from 'cube-dual-auth';
 *
 * export = {
 *   checkAuth,
 *   contextToAppId,
 *   contextToOrchestratorId,
 *   // The refresh worker's contexts come from here, not from a token: each needs its tenant and groups.
 *   scheduledRefreshContexts: async () => [{ securityContext: { tenant: 'acme', groups: ['analyst'] } }],
 * };
 * ```
 */
export const contextToAppId = readyMadeCubeOptions.contextToAppId;
/**
 * Cube's `contextToOrchestratorId`, configured from the environment as `checkAuth` is: the id `contextToAppId` gives,
 * so each tenant has its own query cache and queue.
 * @example
 * ```ts
 * import { checkAuth, contextToAppId, contextToOrchestratorId } from 'cube-dual-auth';
 *
 * export = { checkAuth, contextToAppId, contextToOrchestratorId };
 * ```
 */
export const contextToOrchestratorId = readyMadeCubeOptions.contextToOrchestratorId;
/**
 * A `queryRewrite` keeping every query to the caller's tenant, configured from the environment as `checkAuth` is:
 * given each cube's tenant member, it adds `<member> equals <tenant>` for every cube the query touches and refuses a
 * query touching a cube it has no member for. Without a tenant claim configured, it throws while cube.js loads.
 * @example
 * ```ts
 * import { checkAuth, contextToAppId, tenantFilter } from 'cube-dual-auth';
 *
 * export = {
 *   checkAuth,
 *   contextToAppId,
 *   queryRewrite: tenantFilter({ orders: 'orders.tenant', customers: 'customers.tenant_id' }),
 * };
 * ```
 */
export const tenantFilter = readyMadeCubeOptions.tenantFilter;

/**
 * Cube's SQL API login for BI tools, configured from the environment as `checkAuth` is. The password is a SQL key of
 * that user (`cube-dual-auth sql-key`, `CUBE_DUAL_AUTH_SQL_KEY_SECRETS`) or a token of the identity provider whose user
 * claim (`CUBE_DUAL_AUTH_SQL_USER_CLAIM`, default `sub`) is the user name; Cube's static
 * `CUBEJS_SQL_USER`/`CUBEJS_SQL_PASSWORD` login keeps working. Needs Cube 0.34.27 or later
 * (docs/sql-api.md#in-cubejs).
 * @example
 * ```ts
 * import { canSwitchSqlUser, checkAuth, checkSqlAuth } from 'cube-dual-auth';
 *
 * export = { checkAuth, checkSqlAuth, canSwitchSqlUser };
 * ```
 */
export const checkSqlAuth = readyMadeSqlAuth.checkSqlAuth;
/**
 * Cube's `canSwitchSqlUser` for the SQL API login, as Cube's own default: a user may stay itself, and only
 * `CUBEJS_SQL_SUPER_USER` may switch to another (`__user`, docs/sql-api.md#cubes-static-login-keeps-working).
 * @example
 * ```ts
 * import { canSwitchSqlUser, checkAuth, checkSqlAuth } from 'cube-dual-auth';
 *
 * export = {
 *   checkAuth,
 *   checkSqlAuth,
 *   canSwitchSqlUser: async (current: unknown, user: unknown) => {
 *     const allowed = await canSwitchSqlUser(current, user);
 *     if (!allowed) console.warn(`SQL API: ${String(current)} may not switch to ${String(user)}`);
 *     return allowed;
 *   },
 * };
 * ```
 */
export const canSwitchSqlUser = readyMadeSqlAuth.canSwitchSqlUser;
/**
 * The `apiSecret` option Cube's start requires when `CUBEJS_API_SECRET` and `CUBEJS_JWK_URL` are unset, for a
 * deployment whose API secret lives only in the secrets directory's `api-secrets`, which Cube does not read. Not a
 * secret of the deployment: 32 random bytes, new in each process, with which `checkAuth` verifies nothing (it replaces
 * Cube's own verification); `doctor` says when it is needed (docs/deploying.md#an-api-secret-only-in-the-directory).
 * @example
 * ```ts
 * import { apiSecret, checkAuth, logger } from 'cube-dual-auth';
 *
 * export = { apiSecret, checkAuth, logger };
 * ```
 */
export const apiSecret: string = CUBE_API_SECRET_PLACEHOLDER;
