/**
 * Token login: the password is an identity-provider token, verified on the key-set path as `checkAuth` verifies it,
 * whose user claim must be the user name (docs/sql-api.md#a-token-as-the-password-for-tools-that-fetch-a-fresh-one).
 */
import { readClaim } from '../../config/claim-pointer';
import { DualAuthError, quote, quotedText } from '../../errors';
import { unexpected, type Outcome } from '../authenticator';
import { reportOutcome, reportStart } from '../outcome-report';
import type { SecurityContext } from '../security-context';
import type { LoginRecord } from './live-logins';
import type { Proof } from './proofs';
import { subjectOf } from './sql-reauth';
import { admit, forSql, refuse, reported, signedIn, type SqlLogin, type SqlLoginState } from './state';

/** A SQL login is checked once per connection: the token cache would save nothing, and its hits carry no payload. */
const NO_CACHE = { useCache: false } as const;

/** Signs `user` in with `token`, reported as `checkAuth` reports a request: the same events, on the key-set path. */
export function tokenLogin(state: SqlLoginState, user: string, token: string): Promise<SqlLogin> {
  const { onEvent } = state.options;
  const started = reportStart(onEvent);
  const settle = (outcome: Outcome): Promise<SqlLogin> => {
    const about = { path: 'key-set', kid: outcome.kid, issuer: outcome.provider?.issuer } as const;
    const { context, payload } = outcome.accepted ? outcome : { context: {}, payload: undefined };
    const securityContext = forSql(context, state.namespaces);
    const mismatch = outcome.accepted ? userMismatch(state, payload, user) : sqlRefusal(outcome);
    const record = loginRecord(state, { user, securityContext, payload, proof: proofOf(state, outcome) });
    const admitted = mismatch ?? admit(state, record, payload?.sub);
    const refused = admitted instanceof DualAuthError ? admitted : admitted?.error;
    if (refused !== undefined) {
      const reason = admitted instanceof DualAuthError ? undefined : admitted?.reason;
      reported(state, 'token', { error: refused, reason });
      reportOutcome(onEvent, started, { accepted: false, error: refused, ...about });
      return refuse(state, refused);
    }
    reported(state, 'token');
    reportOutcome(onEvent, started, { accepted: true, cached: false, ...about });
    return signedIn(token, securityContext);
  };
  const failed = (error: unknown): Promise<never> => {
    const refusal = unexpected(error, 'key-set', onEvent);
    reported(state, 'token', { error: refusal });
    return refuse(state, refusal);
  };
  try {
    // No request: without a Request-Origin header the token goes to the key-set path, whatever the SQL client sent.
    const outcome = state.authenticator.authenticate(undefined, token, NO_CACHE);
    return outcome instanceof Promise ? outcome.then(settle, failed) : settle(outcome);
  } catch (error) {
    return failed(error);
  }
}

/** The identity provider's key that verified a token, as a login remembers it; undefined when refused. */
function proofOf({ proofs }: SqlLoginState, outcome: Outcome): Proof | undefined {
  if (!outcome.accepted) return undefined;
  const { kid, provider, thumbprint } = outcome;
  if (kid === undefined || provider === undefined || thumbprint === undefined) return undefined;
  return proofs.providerKey(provider.index, kid, thumbprint);
}

/** What re-authentication needs of a token login: its user, context, end, id and key, never the token. */
function loginRecord(
  { options }: SqlLoginState,
  {
    user,
    securityContext,
    payload,
    proof,
  }: {
    user: string;
    securityContext: SecurityContext;
    payload: Readonly<Record<string, unknown>> | undefined;
    proof: Proof | undefined;
  },
): LoginRecord {
  const { exp, iat, jti } = payload ?? {};
  return {
    user,
    securityContext,
    kind: 'token',
    subject: subjectOf(payload ?? {}, user),
    ...(typeof exp === 'number' && { expiresAt: exp }),
    ...(typeof iat === 'number' && { issuedAt: iat }),
    ...(options.maxTokenAge !== undefined && { maxAge: options.maxTokenAge }),
    ...(typeof jti === 'string' && { id: jti }),
    // Ends when its key leaves the identity provider's key set (docs/rotation.md#what-a-reload-does).
    ...(proof !== undefined && { proof }),
  };
}

/** A refused token's error as a SQL client should read it: a service token's says it never signs in here. */
function sqlRefusal(outcome: Extract<Outcome, { accepted: false }>): DualAuthError {
  const { error, header } = outcome;
  if (error.code !== 'ERR_ALG_NOT_ALLOWED' || typeof header?.alg !== 'string' || !/^HS/i.test(header.alg)) return error;
  const message = `A service token (${quotedText(header.alg)}) is never accepted as a SQL password: sign in with a token of your identity provider`;
  return new DualAuthError('ERR_ALG_NOT_ALLOWED', message, 'key-set');
}

/** Undefined when the verified payload's user claim is the user name the client signed in with. */
function userMismatch(
  { userClaim, options }: SqlLoginState,
  payload: Readonly<Record<string, unknown>> | undefined,
  user: string,
): DualAuthError | undefined {
  if (userClaim === undefined) return undefined;
  const value = payload === undefined ? undefined : readClaim(payload, userClaim);
  const claim = `${JSON.stringify(userClaim.text)} (${options.names.sqlUserClaim})`;
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
  return new DualAuthError('ERR_CLAIM_INVALID', message, 'key-set', `${message} (${options.names.sqlUserClaim})`);
}
