/**
 * The SQL API's login, for BI tools: Cube's `checkSqlAuth` and `canSwitchSqlUser`. The password a SQL client sends is
 * a token of the company's identity provider, verified on the key-set path exactly as `checkAuth` verifies it (the
 * same authenticator: providers, keys, claims, authorization, codes), and the user name must be the token's user
 * claim. Cube's own static login (`CUBEJS_SQL_USER`/`CUBEJS_SQL_PASSWORD`) keeps working beside it.
 *
 * How Cube calls these (1.7.43, api-gateway's sql-server.js and the native server's auth.rs): once per connection,
 * `checkSqlAuth(request, user, password)`, whose answer crosses the Rust server as JSON; with `skipPasswordCheck` the
 * server takes the login as checked here. A switch of user inside a session (`__user`) asks `canSwitchSqlUser` (unless
 * the session is a superuser's), then `checkSqlAuth(request, newUser, null)`: no password. Cube before 0.34.27
 * (0.33 among them) calls `checkSqlAuth(request, user)` and compares the password itself, with no way to pass it here.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { claimPointer, readClaim, type ClaimPointer } from '../config/claim-pointer';
import { ANY_SQL_USER } from '../config/options';
import { DualAuthConfigError, DualAuthError, quote, quotedText, toThrowable } from '../errors';
import { findGateway, gatewayVersion } from '../host-cube';
import { unexpected, type Authenticator, type Outcome } from './authenticator';
import { reportOutcome, reportStart } from './outcome-report';
import type { SecurityContext } from './security-context';

/** The first Cube that passes the password to `checkSqlAuth`. */
export const SQL_PASSWORD_SINCE = '0.34.27';

/** What a login gives Cube: the fields Cube ≥ 0.34.27 reads from `checkSqlAuth`'s answer. */
export interface SqlLogin {
  /** The password the client sent (Cube's server keeps it with the session; it is never compared again). */
  readonly password: string;
  /** Always false: a superuser may switch to any user, and a token names one user only. */
  readonly superuser: false;
  /** For a token, the security context `checkAuth` gives the same token; for the static login, `{}` as in Cube. */
  readonly securityContext: SecurityContext;
  /** The password was checked here, in constant time for the static one. */
  readonly skipPasswordCheck: true;
}

/** Cube's SQL API options, as `cube.js` takes them: `module.exports = { checkAuth, checkSqlAuth, canSwitchSqlUser }`. */
export interface SqlAuth {
  /**
   * Cube's `checkSqlAuth`: the password is an identity-provider token whose user claim (`sqlUserClaim`, default `sub`)
   * is the user name, or the static login's password. Rejects with an `Error` naming the failure (Cube logs it and sends
   * it to the SQL client), never holding the token or a secret.
   */
  checkSqlAuth(req: unknown, user: unknown, password?: unknown): Promise<SqlLogin>;
  /** Cube's `canSwitchSqlUser`, as Cube's own default: a user may stay itself, and `sqlSuperUser` may switch. */
  canSwitchSqlUser(current: unknown, newUser: unknown): Promise<boolean>;
}

/** Options of the SQL login that are not the authenticator's. */
export interface SqlLoginSetting {
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

/** A SQL login is checked once per connection: the token cache would save nothing, and its hits carry no payload to read the user from. */
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
  const { options } = authenticator;
  const { onEvent, detailedErrors, names, sqlUser, sqlPassword, sqlSuperUser } = options;
  const userClaim: ClaimPointer | undefined =
    options.sqlUserClaim === ANY_SQL_USER
      ? undefined
      : claimPointer(options.sqlUserClaim, (problem) => {
          throw new DualAuthConfigError(names.sqlUserClaim, problem);
        });
  // Only a whole pair is a login: Cube without one makes up a user or a password nobody knows.
  const staticLogin =
    sqlUser !== undefined && sqlPassword !== undefined ? { user: sqlUser, password: digest(sqlPassword) } : undefined;

  const refuse = (error: DualAuthError): Promise<never> => Promise.reject(toThrowable(error, detailedErrors));

  function tokenLogin(user: string, token: string): Promise<SqlLogin> {
    const started = reportStart(onEvent);
    // Reported as checkAuth reports a request: the same events, on the key-set path.
    const settle = (outcome: Outcome): Promise<SqlLogin> => {
      const about = { path: 'key-set', kid: outcome.kid, issuer: outcome.provider?.issuer } as const;
      const refusal = outcome.accepted ? userMismatch(outcome.payload, user) : sqlRefusal(outcome);
      if (refusal !== undefined) {
        reportOutcome(onEvent, started, { accepted: false, error: refusal, ...about });
        return refuse(refusal);
      }
      reportOutcome(onEvent, started, { accepted: true, cached: false, ...about });
      const { context } = outcome as Extract<Outcome, { accepted: true }>;
      return Promise.resolve({
        password: token,
        superuser: false,
        securityContext: forSql(context, namespaces),
        skipPasswordCheck: true,
      });
    };
    try {
      // No request: without a Request-Origin header the token goes to the key-set path, whatever the SQL client sent.
      const outcome = authenticator.authenticate(undefined, token, NO_CACHE);
      return outcome instanceof Promise
        ? outcome.then(settle, (error: unknown) => refuse(unexpected(error, 'key-set', onEvent)))
        : settle(outcome);
    } catch (error) {
      return refuse(unexpected(error, 'key-set', onEvent));
    }
  }

  /** A refused token's error as a SQL client should read it: a service token's says it never signs in here. */
  function sqlRefusal(outcome: Extract<Outcome, { accepted: false }>): DualAuthError {
    const { error, header } = outcome;
    if (error.code !== 'ERR_ALG_NOT_ALLOWED' || typeof header?.alg !== 'string' || !/^HS/i.test(header.alg))
      return error;
    const message = `A service token (${quotedText(header.alg)}) is never accepted as a SQL password: sign in with a token of your identity provider`;
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
    const message = `The SQL user ${quote(user)} is not the one the token names in its claim ${JSON.stringify(userClaim.text)}`;
    return new DualAuthError('ERR_CLAIM_INVALID', message, 'key-set', `${message} (${names.sqlUserClaim})`);
  }

  function checkSqlAuth(_req: unknown, user: unknown, password?: unknown): Promise<SqlLogin> {
    if (password === undefined) {
      // Cube before 0.34.27 passes no password and compares the one returned, which no token login can give.
      const version = cubeVersion();
      const message = `cube-dual-auth's checkSqlAuth needs Cube ${SQL_PASSWORD_SINCE} or later, which passes the SQL password to it; this Cube${version === undefined ? '' : ` (${version})`} passes none`;
      return refuse(new DualAuthError('ERR_CONFIG_INVALID', message));
    }
    if (typeof user !== 'string' || user === '')
      return refuse(new DualAuthError('ERR_FORBIDDEN', 'The SQL login has no user name'));
    if (typeof password !== 'string' || password === '') {
      // Cube's switch of user (`__user`) asks for a login without a password: only a token of that user could give it.
      return refuse(
        new DualAuthError(
          'ERR_TOKEN_MISSING',
          `The SQL login of user ${quote(user)} has no password: sign in with a token of your identity provider`,
        ),
      );
    }
    if (staticLogin !== undefined && user === staticLogin.user) {
      // Cube's own wording for its static login; never a token for this user name, which is the deployment's.
      if (!timingSafeEqual(digest(password), staticLogin.password))
        return refuse(new DualAuthError('ERR_FORBIDDEN', `Incorrect user name ${quote(user)} or password`));
      return Promise.resolve({ password, superuser: false, securityContext: {}, skipPasswordCheck: true });
    }
    return tokenLogin(user, password);
  }

  async function canSwitchSqlUser(current: unknown, newUser: unknown): Promise<boolean> {
    if (typeof current !== 'string') return false;
    if (current === newUser) return true;
    return sqlSuperUser !== undefined && current === sqlSuperUser;
  }

  return { checkSqlAuth, canSwitchSqlUser };
}
