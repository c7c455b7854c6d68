/**
 * The SQL API's login, for BI tools: Cube's `checkSqlAuth` and `canSwitchSqlUser`. The password is a token of the
 * identity provider, verified on the key-set path as `checkAuth` verifies it, whose user claim must be the user name,
 * or a SQL key (sql-key.ts); Cube's static `CUBEJS_SQL_USER`/`CUBEJS_SQL_PASSWORD` login keeps working beside them.
 * Re-authentication without a password is answered from the live logins (live-logins.ts); when and how Cube calls:
 * docs/cube-lines.md#the-sql-apis-re-authentication.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { claimPointer, readClaim, type ClaimPointer } from '../config/claim-pointer';
import { ANY_SQL_USER } from '../config/options';
import { DualAuthConfigError, DualAuthError, quote, quotedText, toThrowable } from '../errors';
import { emit, type SqlLoginEvent, type SqlLoginKind, type SqlReauthenticationRefusedEvent } from '../events';
import { findGateway, gatewayVersion } from '../host-cube';
import { unexpected, type Authenticator, type Outcome } from './authenticator';
import { LiveLogins, type LoginRecord, type Remembered } from './live-logins';
import { reportOutcome, reportStart } from './outcome-report';
import type { SecurityContext } from './security-context';
import { looksLikeSqlKey, SqlKeys, type SqlKeyLogin } from './sql-key';
import {
  capacityRefusal,
  copyOf,
  missingLogin,
  passwordlessRefusal,
  refusalReason,
  requestLabels,
  subjectOf,
  superuserRefusal,
  userNameRefusal,
} from './sql-reauth';

/** Why a verified credential's login is refused. */
type LoginRefusalReason = NonNullable<SqlLoginEvent['reason']>;

/** The first Cube that passes the password to `checkSqlAuth`. */
export const SQL_PASSWORD_SINCE = '0.34.27';

/** What a login gives Cube: the fields Cube ≥ 0.34.27 reads from `checkSqlAuth`'s answer. */
export interface SqlLogin {
  /**
   * The password the client sent (Cube's server keeps it with the session; it is never compared again); null on a
   * re-authentication, which has none and keeps no token to give back.
   */
  readonly password: string | null;
  /** Always false: a superuser may switch to any user, and a token names one user only. */
  readonly superuser: false;
  /**
   * For a token, the security context `checkAuth` gives the same token; for a SQL key, the one it carries; for the
   * static login, `{}` as in Cube.
   */
  readonly securityContext: SecurityContext;
  /** The password was checked here, in constant time for the static one. */
  readonly skipPasswordCheck: true;
}

/**
 * Cube's SQL API options, as `cube.js` takes them: `module.exports = { checkAuth, checkSqlAuth,
 * canSwitchSqlUser }`.
 */
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
  /** The namespaces Cube applies to a security context (check-auth.ts), each given an enumerable copy here. */
  readonly namespaces: readonly string[];
  /** The version of the Cube running, for the refusal on a Cube that passes no password. */
  readonly cubeVersion?: () => string | undefined;
}

/** The running Cube's version, found as `doctor` and the errors find its gateway; undefined outside Cube. */
function hostCubeVersion(): string | undefined {
  const found = findGateway(process.cwd());
  return found === undefined ? undefined : gatewayVersion(found.file);
}

/**
 * A SQL login is checked once per connection: the token cache would save nothing, and its hits carry no payload to read
 * the user from.
 */
const NO_CACHE = { useCache: false } as const;

/** A password in a form that compares in constant time whatever its length. */
const digest = (text: string): Buffer => createHash('sha256').update(text, 'utf8').digest();

/**
 * The security context as the SQL API must carry it. Cube's Rust server hands it back as JSON, where the hidden member
 * by which `checkAuth`'s context answers to each claims namespace (check-auth.ts) does not go: the namespace is an
 * enumerable copy of the context here instead, so the data model's `SECURITY_CONTEXT` is the same as over the REST API.
 */
function forSql(context: SecurityContext, namespaces: readonly string[]): SecurityContext {
  if (namespaces.length === 0) return context;
  const inner: SecurityContext = { ...context };
  for (const namespace of namespaces) delete inner[namespace];
  const result: SecurityContext = { ...inner };
  for (const namespace of namespaces)
    Object.defineProperty(result, namespace, {
      value: { ...inner },
      enumerable: true,
      writable: true,
      configurable: true,
    });
  return result;
}

/** The SQL API's login of a hook, checked by its authenticator. Validates nothing more: the options table did. */
export function sqlAuthOf(
  authenticator: Authenticator,
  { namespaces, cubeVersion = hostCubeVersion }: SqlLoginSetting,
): SqlAuth {
  const { options, clock } = authenticator;
  const { onEvent, detailedErrors, names, sqlUser, sqlSuperUser, maxTokenAge, clockTolerance } = options;
  const sqlKeys = new SqlKeys(options, clock, authenticator.secrets);
  const liveLogins = new LiveLogins({
    clock,
    clockTolerance,
    namespaces,
    perUser: options.sqlLiveLoginsPerUser,
    perTokenClaims: options.sqlPerTokenClaims,
    // A key login re-authenticates only while its key is not revoked (docs/security.md, "SQL keys").
    isRevoked: (id) => sqlKeys.isRevoked(id),
  });
  const userClaim: ClaimPointer | undefined =
    options.sqlUserClaim === ANY_SQL_USER
      ? undefined
      : claimPointer(options.sqlUserClaim, (problem) => {
          throw new DualAuthConfigError(names.sqlUserClaim, problem);
        });
  // Only a whole pair is a login: Cube without one makes up a user or a password nobody knows. The password in force
  // is read at each login, as a reload of the secrets directory may replace it.
  const staticLoginNow = (): { user: string; password: Buffer } | undefined => {
    const { sqlPassword } = authenticator.secrets.current;
    return sqlUser !== undefined && sqlPassword !== undefined
      ? { user: sqlUser, password: digest(sqlPassword) }
      : undefined;
  };

  const refuse = (error: DualAuthError): Promise<never> => Promise.reject(toThrowable(error, detailedErrors));

  /** Reports a login's outcome by kind, for the metrics' count of SQL logins. */
  function reported(kind: SqlLoginKind, error?: DualAuthError, keyId?: string, reason?: LoginRefusalReason): void {
    emit(onEvent, {
      type: 'sql-login',
      kind,
      outcome: error === undefined ? 'accepted' : 'refused',
      ...(error !== undefined && { code: error.code, message: error.detail }),
      ...(keyId !== undefined && { keyId }),
      ...(reason !== undefined && { reason }),
    });
  }

  /**
   * Keeps a login for re-authentication, or says why a rule of docs/security.md ("One name, one identity") refuses it:
   * a superuser sign-in under `*` by a credential not its own, or a memory at its cap.
   */
  function admit(record: LoginRecord, own: unknown): { error: DualAuthError; reason: LoginRefusalReason } | undefined {
    const { user } = record;
    if (userClaim === undefined && user === sqlSuperUser && own !== user)
      return { error: superuserRefusal(user, names.sqlUserClaim), reason: 'superuser' };
    const kept: Remembered = liveLogins.remember(record);
    return kept.remembered
      ? undefined
      : { error: capacityRefusal(user, names.sqlLiveLoginsPerUser), reason: 'capacity' };
  }

  /** What Cube gets: a copy of the context, so that what cube.js code does to it never reaches a re-authentication. */
  const signedIn = (password: string, context: SecurityContext): Promise<SqlLogin> =>
    Promise.resolve({ password, superuser: false, securityContext: copyOf(context), skipPasswordCheck: true });

  function keyLogin(user: string, key: string): Promise<SqlLogin> {
    let login: SqlKeyLogin;
    try {
      login = sqlKeys.verify(key, user);
    } catch (error) {
      const refusal = unexpected(error, undefined, onEvent);
      reported('key', refusal);
      return refuse(refusal);
    }
    const securityContext = forSql(login.securityContext, namespaces);
    // Re-authenticated as a token login is, until the key expires, outlives the maximum age, or is revoked.
    const record: LoginRecord = {
      user,
      securityContext,
      kind: 'key',
      subject: subjectOf(login.securityContext, login.user),
      expiresAt: login.expiresAt,
      issuedAt: login.issuedAt,
      maxAge: options.sqlKeyMaxAge,
      id: login.id,
    };
    const refused = admit(record, login.securityContext.sub);
    if (refused !== undefined) {
      reported('key', refused.error, login.id, refused.reason);
      return refuse(refused.error);
    }
    reported('key', undefined, login.id);
    return signedIn(key, securityContext);
  }

  function tokenLogin(user: string, token: string): Promise<SqlLogin> {
    const started = reportStart(onEvent);
    // Reported as checkAuth reports a request: the same events, on the key-set path.
    const settle = (outcome: Outcome): Promise<SqlLogin> => {
      const about = { path: 'key-set', kid: outcome.kid, issuer: outcome.provider?.issuer } as const;
      const { context, payload } = outcome.accepted ? outcome : { context: {}, payload: undefined };
      const securityContext = forSql(context, namespaces);
      const mismatch = outcome.accepted ? userMismatch(payload, user) : sqlRefusal(outcome);
      const admitted = mismatch ?? admit(loginRecord(user, securityContext, payload), payload?.sub);
      const refused = admitted instanceof DualAuthError ? admitted : admitted?.error;
      if (refused !== undefined) {
        reported('token', refused, undefined, admitted instanceof DualAuthError ? undefined : admitted?.reason);
        reportOutcome(onEvent, started, { accepted: false, error: refused, ...about });
        return refuse(refused);
      }
      reported('token');
      reportOutcome(onEvent, started, { accepted: true, cached: false, ...about });
      return signedIn(token, securityContext);
    };
    const failed = (error: unknown): Promise<never> => {
      const refusal = unexpected(error, 'key-set', onEvent);
      reported('token', refusal);
      return refuse(refusal);
    };
    try {
      // No request: without a Request-Origin header the token goes to the key-set path, whatever the SQL client sent.
      const outcome = authenticator.authenticate(undefined, token, NO_CACHE);
      return outcome instanceof Promise ? outcome.then(settle, failed) : settle(outcome);
    } catch (error) {
      return failed(error);
    }
  }

  /** What re-authentication needs of a token login: its user, context, end and id, never the token. */
  function loginRecord(
    user: string,
    securityContext: SecurityContext,
    payload: Readonly<Record<string, unknown>> | undefined,
  ): LoginRecord {
    const { exp, iat, jti } = payload ?? {};
    return {
      user,
      securityContext,
      kind: 'token',
      subject: subjectOf(payload ?? {}, user),
      ...(typeof exp === 'number' && { expiresAt: exp }),
      ...(typeof iat === 'number' && { issuedAt: iat }),
      ...(maxTokenAge !== undefined && { maxAge: maxTokenAge }),
      ...(typeof jti === 'string' && { id: jti }),
    };
  }

  /**
   * Cube's re-authentication (and `__user` switch): `checkSqlAuth(req, user, null)`, answered only as Cube Core asks
   * it (sql-reauth.ts). Answers with the static login's context, as Cube's default does, or a copy of the user's one
   * live identity's; refuses, asking for the credential again, when there is none or the name holds several.
   */
  function reauthenticate(req: unknown, user: string): Promise<SqlLogin> {
    const started = onEvent ? performance.now() : 0;
    const gate = passwordlessRefusal(req, user);
    if (gate !== undefined) return refuseReauthentication(req, gate, 'protocol', started);
    const accept = (securityContext: SecurityContext): Promise<SqlLogin> => {
      emit(onEvent, { type: 'sql-reauthenticated', durationMs: performance.now() - started });
      return Promise.resolve({ password: null, superuser: false, securityContext, skipPasswordCheck: true });
    };
    const staticLogin = staticLoginNow();
    if (staticLogin !== undefined && user === staticLogin.user) return accept({});
    const found = liveLogins.find(user);
    // A copy each time: Cube's __user path hands the context to contextByReq as it is, where cube.js code may change
    // it.
    if (found.found) return accept(copyOf(found.login.securityContext));
    return refuseReauthentication(req, missingLogin(user, found), refusalReason(found), started);
  }

  /** Reports a refused re-authentication with its request's bounded labels and why, then refuses it. */
  function refuseReauthentication(
    req: unknown,
    refusal: DualAuthError,
    reason: SqlReauthenticationRefusedEvent['reason'],
    started: number,
  ): Promise<never> {
    emit(onEvent, {
      type: 'sql-reauthentication-refused',
      code: refusal.code,
      message: refusal.detail,
      durationMs: performance.now() - started,
      ...requestLabels(req),
      ...(reason !== undefined && { reason }),
    });
    return refuse(refusal);
  }

  /** A refused token's error as a SQL client should read it: a service token's says it never signs in here. */
  function sqlRefusal(outcome: Extract<Outcome, { accepted: false }>): DualAuthError {
    const { error, header } = outcome;
    if (error.code !== 'ERR_ALG_NOT_ALLOWED' || typeof header?.alg !== 'string' || !/^HS/i.test(header.alg))
      return error;
    const message =
      `A service token (${quotedText(header.alg)}) is never accepted as a SQL password: sign in with a ` +
      `token of your identity provider`;
    return new DualAuthError('ERR_ALG_NOT_ALLOWED', message, 'key-set');
  }

  /** Undefined when the verified payload's user claim is the user name the client signed in with. */
  function userMismatch(
    payload: Readonly<Record<string, unknown>> | undefined,
    user: string,
  ): DualAuthError | undefined {
    if (userClaim === undefined) return undefined;
    const value = payload === undefined ? undefined : readClaim(payload, userClaim);
    const claim = `${JSON.stringify(userClaim.text)} (${names.sqlUserClaim})`;
    if (typeof value !== 'string') {
      const message = `The token has no user claim ${JSON.stringify(userClaim.text)} to sign in to the SQL API with`;
      return new DualAuthError(
        'ERR_CLAIM_MISSING',
        message,
        'key-set',
        `${message}: the claim ${claim} is missing or not a string`,
      );
    }
    if (value === user) return undefined;
    const message =
      `The SQL user ${quote(user)} is not the one the token names in its claim ` + `${JSON.stringify(userClaim.text)}`;
    return new DualAuthError('ERR_CLAIM_INVALID', message, 'key-set', `${message} (${names.sqlUserClaim})`);
  }

  /** Whether a call with a password argument (null included) came: then this Cube passes passwords (≥ 0.34.27). */
  let passesPasswords = false;

  function checkSqlAuth(req: unknown, user: unknown, password?: unknown): Promise<SqlLogin> {
    if (password !== undefined) passesPasswords = true;
    else if (!passesPasswords) {
      // Cube before 0.34.27 passes no password and compares the one returned, which no token login can give. Once
      // a Cube has passed one, a call without it is a re-authentication, as with null.
      const version = cubeVersion();
      const message =
        `cube-dual-auth's checkSqlAuth needs Cube ${SQL_PASSWORD_SINCE} or later, which passes the SQL ` +
        `password to it; this Cube${version === undefined ? '' : ` (${version})`} passes none`;
      return refuse(new DualAuthError('ERR_CONFIG_INVALID', message));
    }
    if (typeof user !== 'string' || user === '')
      return refuse(new DualAuthError('ERR_FORBIDDEN', 'The SQL login has no user name'));
    const tooLong = userNameRefusal(user);
    if (tooLong !== undefined) return refuse(tooLong);
    if (password === null || password === undefined) return reauthenticate(req, user);
    if (typeof password !== 'string' || password === '') {
      // A client that sent no password: only a token of that user could sign it in.
      return refuse(
        new DualAuthError(
          'ERR_TOKEN_MISSING',
          `The SQL login of user ${quote(user)} has no password: sign in with a token of your identity provider`,
        ),
      );
    }
    const staticLogin = staticLoginNow();
    if (staticLogin !== undefined && user === staticLogin.user) {
      // Cube's own wording for its static login; never a token for this user name, which is the deployment's.
      if (!timingSafeEqual(digest(password), staticLogin.password)) {
        const refusal = new DualAuthError('ERR_FORBIDDEN', `Incorrect user name ${quote(user)} or password`);
        reported('static', refusal);
        return refuse(refusal);
      }
      reported('static');
      return Promise.resolve({ password, superuser: false, securityContext: {}, skipPasswordCheck: true });
    }
    // A key says what it is in its header; a forged header only fails the key's signature.
    return looksLikeSqlKey(password) ? keyLogin(user, password) : tokenLogin(user, password);
  }

  async function canSwitchSqlUser(current: unknown, newUser: unknown): Promise<boolean> {
    if (typeof current !== 'string') return false;
    if (current === newUser) return true;
    return sqlSuperUser !== undefined && current === sqlSuperUser;
  }

  return { checkSqlAuth, canSwitchSqlUser };
}
