/**
 * The SQL API's login, for BI tools: Cube's `checkSqlAuth` and `canSwitchSqlUser` (docs/sql-api.md). Each call goes to
 * one unit over the hook's shared state: token login, key login, static login, or re-authentication.
 */
import { DualAuthError, quote } from '../../errors';
import { findGateway, gatewayVersion } from '../../host-cube';
import type { Authenticator } from '../authenticator';
import { keyLogin } from './key-login';
import { canSwitchSqlUser, reauthenticate } from './reauthentication';
import { looksLikeSqlKey } from './sql-key';
import { userNameRefusal } from './sql-reauth';
import { refuse, sqlLoginState, type SqlLogin } from './state';
import { staticLogin } from './static-login';
import { tokenLogin } from './token-login';

export type { SqlLogin } from './state';

/** The first Cube that passes the password to `checkSqlAuth`. */
export const SQL_PASSWORD_SINCE = '0.34.27';

/** Cube's SQL API options, as `cube.js` exports them beside `checkAuth` (docs/sql-api.md#in-cubejs). */
export interface SqlAuth {
  /**
   * Cube's `checkSqlAuth`: the password is an identity-provider token whose user claim (`sqlUserClaim`, default `sub`)
   * is the user name, a SQL key of that user, or the static login's password. Without a password (null: Cube's
   * re-authentication and `__user` switch), answers with the user's live login (a token's or a key's), or the static
   * login's context. Rejects with an `Error` naming the failure (Cube logs it and sends it to the SQL client), never
   * holding the token, the key or a secret.
   */
  checkSqlAuth(req: unknown, user: unknown, password?: unknown): Promise<SqlLogin>;
  /** Cube's `canSwitchSqlUser`, as Cube's own default: a user may stay itself, and `sqlSuperUser` may switch. */
  canSwitchSqlUser(current: unknown, newUser: unknown): Promise<boolean>;
}

/** Options of the SQL login that are not the authenticator's. */
interface SqlLoginSetting {
  readonly namespaces: readonly string[];
  /** The version of the Cube running, for the refusal on a Cube that passes no password. */
  readonly cubeVersion?: () => string | undefined;
}

/** The running Cube's version, found as `doctor` and the errors find its gateway; undefined outside Cube. */
function hostCubeVersion(): string | undefined {
  const found = findGateway(process.cwd());
  return found === undefined ? undefined : gatewayVersion(found.file);
}

/** The SQL API's login of a hook, checked by its authenticator. Validates nothing more: the options table did. */
export function sqlAuthOf(
  authenticator: Authenticator,
  { namespaces, cubeVersion = hostCubeVersion }: SqlLoginSetting,
): SqlAuth {
  const state = sqlLoginState(authenticator, namespaces);
  /** Whether a call with a password argument (null included) came: then this Cube passes passwords. */
  let passesPasswords = false;

  function checkSqlAuth(req: unknown, user: unknown, password?: unknown): Promise<SqlLogin> {
    if (password !== undefined) passesPasswords = true;
    else if (!passesPasswords) {
      // Cube before 0.34.27 passes none and compares the one returned, which no token login can give; once a Cube
      // has passed one, a call without it is a re-authentication (docs/sql-api.md#cube-versions).
      const version = cubeVersion();
      const running = version === undefined ? '' : ` (${version})`;
      const message = `cube-dual-auth's checkSqlAuth needs Cube ${SQL_PASSWORD_SINCE} or later, which passes the SQL password to it; this Cube${running} passes none`;
      return refuse(state, new DualAuthError('ERR_CONFIG_INVALID', message));
    }
    if (typeof user !== 'string' || user === '')
      return refuse(state, new DualAuthError('ERR_FORBIDDEN', 'The SQL login has no user name'));
    const tooLong = userNameRefusal(user);
    if (tooLong !== undefined) return refuse(state, tooLong);
    if (password === null || password === undefined) return reauthenticate(state, req, user);
    if (typeof password !== 'string' || password === '') {
      const message = `The SQL login of user ${quote(user)} has no password: sign in with a token of your identity provider`;
      return refuse(state, new DualAuthError('ERR_TOKEN_MISSING', message));
    }
    const asStatic = staticLogin(state, user, password);
    if (asStatic !== undefined) return asStatic;
    // A key says what it is in its header; a forged header only fails the key's signature.
    return looksLikeSqlKey(password) ? keyLogin(state, user, password) : tokenLogin(state, user, password);
  }

  return { checkSqlAuth, canSwitchSqlUser: (current, newUser) => canSwitchSqlUser(state, current, newUser) };
}
