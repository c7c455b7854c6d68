import type { CheckAuth } from './hook/check-auth';
import { readyMadeCubeOptions, readyMadeSqlAuth, validatedCheckAuth } from './hook/ready-made';

export { KEY_SET_ALGORITHMS } from './algorithms';
export type { KeySetAlgorithm } from './algorithms';
export { createCheckAuth } from './hook/check-auth';
export type { CheckAuth, Explanation, SecurityContext } from './hook/check-auth';
export type { CubeContext, CubeOptions, CubeQuery, QueryRewrite } from './hook/cube-options';
export type { SqlAuth, SqlLogin } from './hook/sql-login';
export type { DualAuthOptions, SecurityContextInfo, SecurityContextMapper } from './config/options';
export { ENV, optionsFromEnv } from './config/env';
export { DualAuthConfigError, DualAuthError, forbidden } from './errors';
export { logger } from './logger';
export { metrics } from './metrics';
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
 * requiring the package checks nothing. With `import`, the check runs at import once a path is configured (docs/reference.md).
 */
export declare const checkAuth: CheckAuth;
// A getter, so the check runs when cube.js reads `checkAuth`; a named function, since Node's reader of CommonJS
// exports would list a `get: function () { return x.y; }` and read it whenever an ES module imports this file.
Object.defineProperty(exports, 'checkAuth', { enumerable: true, get: validatedCheckAuth });

/**
 * Cube's options reading the tenant and groups the ready-made hook puts in the security context, configured from the
 * environment as `checkAuth` is: `module.exports = { checkAuth, contextToGroups }` with access policies in the model
 * is the whole set-up on Cube 1.x. `createCheckAuth` users take the same members of the hook they made.
 */
export const { contextToGroups, contextToAppId, contextToOrchestratorId, tenantFilter } = readyMadeCubeOptions;

/**
 * Cube's SQL API login for BI tools, configured from the environment as `checkAuth` is:
 * `module.exports = { checkAuth, checkSqlAuth, canSwitchSqlUser }`. The password is a SQL key of that user
 * (`cube-dual-auth sql-key`, `CUBE_DUAL_AUTH_SQL_KEY_SECRETS`) or a token of the identity provider whose user claim
 * (`CUBE_DUAL_AUTH_SQL_USER_CLAIM`, default `sub`) is the user name; Cube's static
 * `CUBEJS_SQL_USER`/`CUBEJS_SQL_PASSWORD` login keeps working. Needs Cube 0.34.27 or later. `createCheckAuth` users
 * take the same members of the hook they made.
 */
export const { checkSqlAuth, canSwitchSqlUser } = readyMadeSqlAuth;
