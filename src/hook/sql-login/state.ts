/** What the SQL login's units share: one state per hook, and the answer, report and refusal each unit gives. */
import { claimPointer, type ClaimPointer } from '../../config/claim-pointer';
import { ANY_SQL_USER, type ResolvedOptions } from '../../config/options';
import { DualAuthConfigError, toThrowable, type DualAuthError } from '../../errors';
import { emit, type SqlLoginEvent, type SqlLoginKind } from '../../events';
import type { Authenticator } from '../authenticator';
import type { SecurityContext } from '../security-context';
import { LiveLogins, type LoginRecord, type Remembered } from './live-logins';
import { proofHolds, Proofs, type Proof } from './proofs';
import { SqlKeys } from './sql-key';
import { capacityRefusal, copyOf, superuserRefusal } from './sql-reauth';

/** What a login gives Cube: the fields Cube ≥ 0.34.27 reads from `checkSqlAuth`'s answer. */
export interface SqlLogin {
  /** The password the client sent (Cube keeps it, never compares it again); null on a re-authentication. */
  readonly password: string | null;
  /** Always false: a superuser may switch to any user, and a token names one user only. */
  readonly superuser: false;
  /** A token's context as `checkAuth` gives it, a SQL key's own, or `{}` for the static login as in Cube. */
  readonly securityContext: SecurityContext;
  /** The password was checked here, in constant time for the static one. */
  readonly skipPasswordCheck: true;
}

/** Why a verified credential's login is refused. */
export type LoginRefusalReason = NonNullable<SqlLoginEvent['reason']>;

/** The state every unit of one hook's SQL login reads. */
export interface SqlLoginState {
  readonly authenticator: Authenticator;
  readonly options: ResolvedOptions;
  /** The namespaces Cube applies to a security context (check-auth.ts), each given an enumerable copy here. */
  readonly namespaces: readonly string[];
  readonly sqlKeys: SqlKeys;
  readonly liveLogins: LiveLogins;
  /** The claim that names the SQL user; undefined when any user name is accepted (`*`). */
  readonly userClaim: ClaimPointer | undefined;
  /** One shared proof per secret, key or password that signed logins in. */
  readonly proofs: Proofs;
  /** The password of the last static login, whose sessions end once it is no longer in force (static-login.ts). */
  readonly staticLogin: { signedInBy: Proof | undefined };
}

/** The state of one hook's SQL login. Validates nothing more: the options table did. */
export function sqlLoginState(authenticator: Authenticator, namespaces: readonly string[]): SqlLoginState {
  const { options, clock } = authenticator;
  const sqlKeys = new SqlKeys(options, clock, authenticator.secrets);
  const sources = { secrets: () => authenticator.secrets.current, keyStores: authenticator.keyStores };
  const liveLogins = new LiveLogins({
    clock,
    clockTolerance: options.clockTolerance,
    namespaces,
    perUser: options.sqlLiveLoginsPerUser,
    perTokenClaims: options.sqlPerTokenClaims,
    // A key login re-authenticates only while its key is not revoked (docs/security.md#sql-keys).
    isRevoked: (id) => sqlKeys.isRevoked(id),
    // A login ends with the secret or key that proved it (docs/rotation.md#what-a-reload-does).
    stillProved: (proof) => proofHolds(sources, proof),
  });
  const userClaim =
    options.sqlUserClaim === ANY_SQL_USER
      ? undefined
      : claimPointer(options.sqlUserClaim, (problem) => {
          throw new DualAuthConfigError(options.names.sqlUserClaim, problem);
        });
  const proofs = new Proofs();
  return {
    authenticator,
    options,
    namespaces,
    sqlKeys,
    liveLogins,
    userClaim,
    proofs,
    staticLogin: { signedInBy: undefined },
  };
}

export const refuse = ({ options }: SqlLoginState, error: DualAuthError): Promise<never> =>
  Promise.reject(toThrowable(error, options.detailedErrors));

/** Reports a login's outcome by kind, for the metrics' count of SQL logins. */
export function reported(
  { options }: SqlLoginState,
  kind: SqlLoginKind,
  { error, keyId, reason }: { error?: DualAuthError; keyId?: string; reason?: LoginRefusalReason | undefined } = {},
): void {
  emit(options.onEvent, {
    type: 'sql-login',
    kind,
    outcome: error === undefined ? 'accepted' : 'refused',
    ...(error !== undefined && { code: error.code, message: error.detail }),
    ...(keyId !== undefined && { keyId }),
    ...(reason !== undefined && { reason }),
  });
}

/**
 * Keeps a login for re-authentication, or says why docs/security.md#one-name-one-identity refuses it: a superuser
 * sign-in under `*` by a credential not its own, or a memory at its cap.
 */
export function admit(
  { options, userClaim, liveLogins }: SqlLoginState,
  record: LoginRecord,
  own: unknown,
): { error: DualAuthError; reason: LoginRefusalReason } | undefined {
  const { user } = record;
  const { names, sqlSuperUser } = options;
  if (userClaim === undefined && user === sqlSuperUser && own !== user)
    return { error: superuserRefusal(user, names.sqlUserClaim), reason: 'superuser' };
  const kept: Remembered = liveLogins.remember(record);
  return kept.remembered ? undefined : { error: capacityRefusal(user, names.sqlLiveLoginsPerUser), reason: 'capacity' };
}

/** What Cube gets: a copy of the context, so that what cube.js code does to it never reaches a re-authentication. */
export const signedIn = (password: string, context: SecurityContext): Promise<SqlLogin> =>
  Promise.resolve({ password, superuser: false, securityContext: copyOf(context), skipPasswordCheck: true });

/**
 * The context as the SQL API carries it: Cube's native server hands it back as JSON, so each namespace is an
 * enumerable copy, not check-auth.ts's hidden member (docs/sql-api.md#cube-versions).
 */
export function forSql(context: SecurityContext, namespaces: readonly string[]): SecurityContext {
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
