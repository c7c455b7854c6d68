/**
 * Re-authentication and the user switch: Cube's password-less `checkSqlAuth(req, user, null)`, answered only as Cube
 * Core asks it (sql-reauth.ts), from the live logins (docs/cube-lines.md#the-sql-apis-re-authentication).
 */
import type { DualAuthError } from '../../errors';
import { emit, type SqlReauthenticationRefusedEvent } from '../../events';
import type { SecurityContext } from '../security-context';
import { copyOf, missingLogin, passwordlessRefusal, refusalReason, requestLabels } from './sql-reauth';
import { refuse, type SqlLogin, type SqlLoginState } from './state';
import { withdrawnRefusal } from './proofs';
import { staticPassword, staticWithdrawn } from './static-login';

/**
 * Answers with the static login's context, `{}` as Cube's default does, or a copy of the user's one live identity's;
 * refuses, asking for the credential again, when there is none or the name holds several.
 */
export function reauthenticate(state: SqlLoginState, req: unknown, user: string): Promise<SqlLogin> {
  const { onEvent } = state.options;
  const started = onEvent ? performance.now() : 0;
  const gate = passwordlessRefusal(req, user);
  if (gate !== undefined) return refuseReauthentication(state, req, gate, 'protocol', started);
  const accept = (securityContext: SecurityContext): Promise<SqlLogin> => {
    emit(onEvent, { type: 'sql-reauthenticated', durationMs: performance.now() - started });
    return Promise.resolve({ password: null, superuser: false, securityContext, skipPasswordCheck: true });
  };
  const names = state.options.names;
  if (staticPassword(state, user) !== undefined) {
    const withdrawn = staticWithdrawn(state);
    if (withdrawn === undefined) return accept({});
    return refuseReauthentication(state, req, withdrawnRefusal(user, withdrawn, names), undefined, started);
  }
  const found = state.liveLogins.find(user);
  // A copy each time: Cube's __user path hands the context to contextByReq as it is, where cube.js code may change it.
  if (found.found) return accept(copyOf(found.login.securityContext));
  return refuseReauthentication(state, req, missingLogin(user, found, names), refusalReason(found), started);
}

/** Reports a refused re-authentication with its request's bounded labels and why, then refuses it. */
function refuseReauthentication(
  state: SqlLoginState,
  req: unknown,
  refusal: DualAuthError,
  reason: SqlReauthenticationRefusedEvent['reason'],
  started: number,
): Promise<never> {
  emit(state.options.onEvent, {
    type: 'sql-reauthentication-refused',
    code: refusal.code,
    message: refusal.detail,
    durationMs: performance.now() - started,
    ...requestLabels(req),
    ...(reason !== undefined && { reason }),
  });
  return refuse(state, refusal);
}

/** Cube's `canSwitchSqlUser`, as Cube's own default: a user may stay itself, and `sqlSuperUser` may switch. */
export async function canSwitchSqlUser(
  { options }: SqlLoginState,
  current: unknown,
  newUser: unknown,
): Promise<boolean> {
  if (typeof current !== 'string') return false;
  if (current === newUser) return true;
  return options.sqlSuperUser !== undefined && current === options.sqlSuperUser;
}
