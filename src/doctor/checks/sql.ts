/**
 * The SQL API's lines: its login (`checkSqlAuth`) as this environment and the Cube found configure it, and the SQL
 * keys' set-up (docs/sql-api.md).
 */
import { ANY_SQL_USER, type ResolvedOptions } from '../../config/options';
import { ENV, readEnv } from '../../config/env';
import { formatDuration } from '../../config/duration';
import type { IdentityProvider } from '../../config/identity-providers';
import { MIN_SECRET_BYTES } from '../../config/secret-strength';
import { SQL_PASSWORD_SINCE } from '../../hook/sql-login';
import { SQL_REQUEST_FIELDS_SINCE } from '../../hook/sql-login/sql-reauth';
import { findGateway, gatewayVersion } from '../../host-cube';
import { sqlAuthFinding, type CubeJsReading } from '../cube-js';
import { check, type Check, type CheckStatus } from '../check';

/** Cube's variables that turn its SQL API on (a port, unless "false"), as Cube's own env.js reads them. */
const SQL_API_PORTS = ['CUBEJS_PG_SQL_PORT', 'CUBEJS_SQL_PORT'];

/** The variable that turns Cube's SQL API on here, or undefined when it is off. */
export function sqlApiPort(env: NodeJS.ProcessEnv): string | undefined {
  return SQL_API_PORTS.find((name) => ![undefined, 'false'].includes(readEnv(env, name)));
}

/** True when `version` (x.y.z) is before `since`. */
function before(version: string, since: string): boolean {
  const parts = (text: string) => text.split(/[.+-]/).slice(0, 3).map(Number);
  const [a, b] = [parts(version), parts(since)];
  for (let i = 0; i < 3; i++) if ((a[i] ?? 0) !== (b[i] ?? 0)) return (a[i] ?? 0) < (b[i] ?? 0);
  return false;
}

/**
 * The SQL API's login, never its password, and what refuses every login (docs/cli-output.md#doctors-checks,
 * `sql-api`). Undefined when the SQL API is neither on nor configured: most deployments have none.
 */
export function sqlApiCheck(
  env: NodeJS.ProcessEnv,
  options: ResolvedOptions,
  providers: readonly IdentityProvider[],
  cwd: string,
): Check | undefined {
  const port = sqlApiPort(env);
  if (
    port === undefined &&
    [ENV.sqlUserClaim, ENV.sqlUser, ENV.sqlPassword, ENV.sqlSuperUser].every((name) => readEnv(env, name) === undefined)
  )
    return undefined;
  const found = findGateway(cwd);
  const version = found === undefined ? undefined : gatewayVersion(found.file);
  if (version !== undefined && before(version, SQL_PASSWORD_SINCE)) {
    return check(
      'sql-api',
      'fail',
      `Cube ${version} passes no password to checkSqlAuth: every SQL login is refused; it needs Cube ${SQL_PASSWORD_SINCE} or later`,
    );
  }
  const { sqlUserClaim, sqlUser, sqlPassword, sqlSuperUser } = options;
  const user =
    sqlUserClaim === ANY_SQL_USER
      ? `any user name (${ENV.sqlUserClaim}=${ANY_SQL_USER}), a session re-authenticated only while one subject signs in under its name`
      : `the user name must be the token's claim ${JSON.stringify(sqlUserClaim)} (${ENV.sqlUserClaim})`;
  const tokens =
    providers.length === 0
      ? `no identity provider is configured (${ENV.jwksUri}, ${ENV.providers}), so every token login is refused`
      : `an identity-provider token as the password, ${user}`;
  const half = (sqlUser === undefined) !== (sqlPassword === undefined);
  const staticLogin =
    sqlUser !== undefined && sqlPassword !== undefined
      ? `static login ${JSON.stringify(sqlUser)} with ${ENV.sqlPassword} (never printed)`
      : half
        ? `no static login: ${sqlUser === undefined ? ENV.sqlUser : ENV.sqlPassword} is not set, only ${sqlUser === undefined ? ENV.sqlPassword : ENV.sqlUser}`
        : 'no static login';
  // Under `*` a token names no user name: the superuser signs in only by its own `sub` (docs/security.md).
  const anySuperUser = sqlSuperUser !== undefined && sqlUserClaim === ANY_SQL_USER;
  const superUser =
    sqlSuperUser === undefined
      ? `no ${ENV.sqlSuperUser}: a user stays itself`
      : `${ENV.sqlSuperUser} ${JSON.stringify(sqlSuperUser)} may ask to switch users${anySuperUser ? ', and signs in only with a token or SQL key whose own "sub" names it' : ''}`;
  const where = port === undefined ? '' : ` on ${port}`;
  // Without req.protocol and req.method no password-less call is answered (docs/security.md, "One name, one identity").
  const noFields = version !== undefined && before(version, SQL_REQUEST_FIELDS_SINCE);
  const status: CheckStatus = providers.length === 0 || half || anySuperUser || noFields ? 'warn' : 'ok';
  const lifetime = noFields ? reauthenticationRefused(version) : sqlSessionLifetime(env, options);
  return check('sql-api', status, `SQL API${where}: ${tokens}; ${staticLogin}; ${superUser}; ${DAX_API}; ${lifetime}`);
}

/** What a Cube before 1.3.13 does to a BI session: it passes no `req.protocol`, so no re-authentication is answered. */
const reauthenticationRefused = (version: string): string =>
  `Cube ${version} passes no req.protocol or req.method to checkSqlAuth (Cube ${SQL_REQUEST_FIELDS_SINCE} and later do), so every re-authentication is refused and a BI session ends at its first one, CUBESQL_AUTH_EXPIRE_SECS after its login: upgrade Cube`;

/** What Cube Cloud's DAX API users do, as the README's Cube Cloud section says (docs/cube-lines.md). */
const DAX_API =
  "Cube Cloud's DAX API (NTLM, Kerberos) is not supported: its users sign in with a SQL key or a token as the password";

/** Cube's native server re-authenticates a SQL session this often unless told (cubesql's `auth_expire_secs`). */
const CUBESQL_AUTH_EXPIRE_SECS_DEFAULT = 300;

/**
 * How long a BI session lives: until its token expires (or outgrows the maximum token age), as Cube finds when it
 * re-authenticates the session every `CUBESQL_AUTH_EXPIRE_SECS` (docs/sql-api.md, "How long a session lives").
 */
function sqlSessionLifetime(env: NodeJS.ProcessEnv, { maxTokenAge }: Pick<ResolvedOptions, 'maxTokenAge'>): string {
  const until =
    maxTokenAge === undefined
      ? 'a BI session lives until its token expires'
      : `a BI session lives until its token expires or is ${maxTokenAge} s old (${ENV.maxTokenAge})`;
  const given = readEnv(env, 'CUBESQL_AUTH_EXPIRE_SECS');
  if (given === undefined)
    return `${until}, checked every ${CUBESQL_AUTH_EXPIRE_SECS_DEFAULT} s (CUBESQL_AUTH_EXPIRE_SECS, Cube's default)`;
  // Cube reads the variable as whole seconds; the value is not echoed, as nothing from the environment is.
  if (!/^\d+$/.test(given)) return `${until}; CUBESQL_AUTH_EXPIRE_SECS is not a whole number of seconds`;
  return `${until}, checked every ${Number(given)} s (CUBESQL_AUTH_EXPIRE_SECS)`;
}

/**
 * The SQL keys' set-up, as counts, never values. A weak secret, or one that is an API secret, fails the configuration
 * line before this one is reached. Undefined when SQL keys are not set up.
 */
export function sqlKeyCheck(env: NodeJS.ProcessEnv, options: ResolvedOptions): Check | undefined {
  if ([ENV.sqlKeySecrets, ENV.sqlKeyMaxAge, ENV.sqlKeysRevoked].every((name) => readEnv(env, name) === undefined))
    return undefined;
  const secrets = options.sqlKeyKeys.length;
  const revoked = options.sqlKeysRevoked?.size ?? 0;
  const maxAge = `keys live at most ${formatDuration(options.sqlKeyMaxAge)} (${ENV.sqlKeyMaxAge})`;
  const revokedIds = `${revoked} revoked key ${revoked === 1 ? 'id' : 'ids'} (${ENV.sqlKeysRevoked})`;
  if (secrets === 0)
    return check(
      'sql-key',
      'warn',
      `SQL keys: ${ENV.sqlKeySecrets} is not set, so every SQL key is refused and "cube-dual-auth sql-key" mints none; ${maxAge}; ${revokedIds}`,
    );
  const inForce =
    secrets === 1
      ? `1 secret in ${ENV.sqlKeySecrets}`
      : `${secrets} secrets in ${ENV.sqlKeySecrets} (the first signs, all verify)`;
  return check(
    'sql-key',
    'ok',
    `SQL keys (cube-dual-auth sql-key): ${inForce}, each with at least ${MIN_SECRET_BYTES} bytes of key material and none an API secret; ${maxAge}; ${revokedIds}`,
  );
}

const SEVERITY: readonly CheckStatus[] = ['ok', 'warn', 'fail'];

/**
 * The `sql-api` line with what `cube.js` exports as `checkSqlAuth` said after its head, and its status the worse of
 * the two; a line that fails already (a Cube that passes no password) is kept as it is.
 */
export function withSqlAuthOfCubeJs(sql: Check, reading: CubeJsReading, sqlApiOn: boolean): Check {
  if (sql.status === 'fail') return sql;
  const finding = sqlAuthFinding(reading, sqlApiOn);
  const status = SEVERITY[Math.max(SEVERITY.indexOf(sql.status), SEVERITY.indexOf(finding.status))] as CheckStatus;
  const at = sql.message.indexOf(': ');
  return check('sql-api', status, `${sql.message.slice(0, at)}: ${finding.message}; ${sql.message.slice(at + 2)}`);
}
