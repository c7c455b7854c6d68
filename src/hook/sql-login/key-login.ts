/** Key login: the password is a SQL key of the user (sql-key.ts; docs/security.md#sql-keys). */
import { unexpected } from '../authenticator';
import type { LoginRecord } from './live-logins';
import type { VerifiedSqlKey } from './sql-key';
import { subjectOf } from './sql-reauth';
import { admit, forSql, refuse, reported, signedIn, type SqlLogin, type SqlLoginState } from './state';

/** Signs `user` in with `key`, remembered for re-authentication as a token login is. */
export function keyLogin(state: SqlLoginState, user: string, key: string): Promise<SqlLogin> {
  let login: VerifiedSqlKey;
  try {
    login = state.sqlKeys.verify(key, user);
  } catch (error) {
    const refusal = unexpected(error, undefined, state.options.onEvent);
    reported(state, 'key', { error: refusal });
    return refuse(state, refusal);
  }
  const securityContext = forSql(login.securityContext, state.namespaces);
  // Re-authenticated until the key expires, outlives the maximum age, is revoked, or its secret is removed.
  const record: LoginRecord = {
    user,
    securityContext,
    kind: 'key',
    subject: subjectOf(login.securityContext, login.user),
    expiresAt: login.expiresAt,
    issuedAt: login.issuedAt,
    maxAge: state.options.sqlKeyMaxAge,
    id: login.id,
    // Ends when its secret leaves sql-key-secrets (docs/rotation.md#what-a-reload-does).
    proof: state.proofs.sqlKeySecret(login.secretThumbprint),
  };
  const refused = admit(state, record, login.securityContext.sub);
  if (refused !== undefined) {
    reported(state, 'key', { error: refused.error, keyId: login.id, reason: refused.reason });
    return refuse(state, refused.error);
  }
  reported(state, 'key', { keyId: login.id });
  return signedIn(key, securityContext);
}
