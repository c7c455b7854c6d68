/**
 * Cube's static login, beside token and key logins (docs/sql-api.md#cubes-static-login-keeps-working): its user name
 * never signs in with a token. The pair is read at each call, as a reload of the secrets directory may replace it.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { DualAuthError, quote } from '../../errors';
import { proofHolds, type Proof } from './proofs';
import { refuse, reported, type SqlLogin, type SqlLoginState } from './state';

/** A password in a form that compares in constant time whatever its length. */
const digest = (text: string): Buffer => createHash('sha256').update(text, 'utf8').digest();

/** The static login's password in force when `user` is its user name; undefined otherwise, or without a whole pair. */
export function staticPassword({ options, authenticator }: SqlLoginState, user: string): string | undefined {
  const { sqlPassword } = authenticator.secrets.current;
  return options.sqlUser !== undefined && user === options.sqlUser ? sqlPassword : undefined;
}

/** The static login's answer, in Cube's own words; undefined when `user` is not its user name. */
export function staticLogin(state: SqlLoginState, user: string, password: string): Promise<SqlLogin> | undefined {
  const snapshot = state.authenticator.secrets.current;
  const sqlPassword = staticPassword(state, user);
  if (sqlPassword === undefined) return undefined;
  if (!timingSafeEqual(digest(password), digest(sqlPassword))) {
    const refusal = new DualAuthError('ERR_FORBIDDEN', `Incorrect user name ${quote(user)} or password`);
    reported(state, 'static', { error: refusal });
    return refuse(state, refusal);
  }
  reported(state, 'static');
  const { sqlPasswordThumbprint } = snapshot;
  if (sqlPasswordThumbprint !== undefined)
    state.staticLogin.signedInBy = state.proofs.sqlPassword(sqlPasswordThumbprint);
  return Promise.resolve({ password, superuser: false, securityContext: {}, skipPasswordCheck: true });
}

/**
 * The password that signed the static logins in, once it is no longer the one in force; undefined while it is, or
 * when no static login was made here. Cube's request names no session, so the last login's password stands for all.
 */
export function staticWithdrawn({ staticLogin, authenticator }: SqlLoginState): Proof | undefined {
  const proof = staticLogin.signedInBy;
  if (proof === undefined) return undefined;
  const holds = proofHolds({ secrets: () => authenticator.secrets.current, keyStores: [] }, proof);
  return holds ? undefined : proof;
}
