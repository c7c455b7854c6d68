/**
 * What a password-less `checkSqlAuth` call may be answered with, and the refusals that guard one name to one identity
 * (docs/security.md#one-name-one-identity): only Cube Core's Postgres re-authentication and `__user` switch are.
 */
import { DualAuthError, quote } from '../../errors';
import type { SqlReauthenticationRefusedEvent } from '../../events';
import type { MissingLogin } from './live-logins';
import { withdrawnRefusal, type ProofNames } from './proofs';
import type { SecurityContext } from '../security-context';

/** The protocol of a refusal, as events and metrics label it: bounded, never the text a caller sent. */
export type SqlProtocolLabel = SqlReauthenticationRefusedEvent['protocol'];

/** The method of a refusal, as events and metrics label it. */
export type SqlMethodLabel = SqlReauthenticationRefusedEvent['method'];

/** The protocol and method Cube Core passes on its password-less calls: the only ones answered. */
export const PASSWORDLESS_PROTOCOL = 'postgres';
export const PASSWORDLESS_METHOD = 'password';

/** The first Cube that passes `req.protocol` and `req.method` to `checkSqlAuth` (Cube PR #9525). */
export const SQL_REQUEST_FIELDS_SINCE = '1.3.13';

/** The longest SQL user name, in UTF-8 bytes: a name is a key of the memory, not a place for data. */
export const MAX_SQL_USER_BYTES = 256;

const PROTOCOLS: ReadonlySet<string> = new Set<SqlProtocolLabel>(['postgres', 'xmla']);
const METHODS: ReadonlySet<string> = new Set<SqlMethodLabel>(['password', 'ntlm', 'kerberos', 'token']);

/** The protocol and method a request names, as bounded labels: anything unknown is `other`. */
export function requestLabels(req: unknown): { protocol: SqlProtocolLabel; method: SqlMethodLabel } {
  const { protocol, method } = requestFields(req);
  return {
    protocol: typeof protocol === 'string' && PROTOCOLS.has(protocol) ? (protocol as SqlProtocolLabel) : 'other',
    method: typeof method === 'string' && METHODS.has(method) ? (method as SqlMethodLabel) : 'other',
  };
}

/** What a field of `req` that is not its own data property reads as: never a protocol or method answered. */
const NOT_OWN = Symbol('not an own property');

/**
 * `req.protocol` and `req.method`, read without trusting `req`: only its own data properties, as Cube's JSON gives
 * them. One inherited through a prototype, or behind a getter, reads as {@link NOT_OWN}, and a proxy that throws
 * as missing: either way the call is refused (docs/security.md#one-name-one-identity).
 */
function requestFields(req: unknown): { protocol: unknown; method: unknown } {
  if (typeof req !== 'object' || req === null) return { protocol: undefined, method: undefined };
  try {
    return { protocol: ownField(req, 'protocol'), method: ownField(req, 'method') };
  } catch {
    return { protocol: undefined, method: undefined };
  }
}

function ownField(req: object, name: string): unknown {
  const own = Object.getOwnPropertyDescriptor(req, name);
  if (own !== undefined) return 'value' in own ? own.value : NOT_OWN;
  return name in req ? NOT_OWN : undefined;
}

/** A request field as a message shows it: quoted, printable ASCII only, cut short. */
function shown(value: unknown): string {
  if (typeof value === 'string') return quote(value);
  if (value === undefined) return 'none';
  return value === NOT_OWN ? "inherited (not the request's own)" : `a ${typeof value}`;
}

/** Undefined for a password-less call as Cube Core makes it (`postgres`, `password`); otherwise its refusal. */
export function passwordlessRefusal(req: unknown, user: string): DualAuthError | undefined {
  const { protocol, method } = requestFields(req);
  if (protocol === PASSWORDLESS_PROTOCOL && method === PASSWORDLESS_METHOD) return undefined;
  if (typeof req === 'object' && req !== null && protocol === undefined && method === undefined) {
    // A Cube before 1.3.13 passes a request without them: its re-authentication cannot be told from any other call.
    const message = `The SQL session of user ${quote(user)} cannot be re-authenticated: this Cube passes no protocol or method to checkSqlAuth (Cube ${SQL_REQUEST_FIELDS_SINCE} and later do), so its re-authentication cannot be told from another call; reconnect with a fresh token, or upgrade Cube`;
    return new DualAuthError('ERR_FORBIDDEN', message);
  }
  const message = `The SQL login of user ${quote(user)} came without a password over protocol ${shown(protocol)}, method ${shown(method)}: only Cube's re-authentication of a Postgres session is answered without one, so NTLM and Kerberos are not supported; sign in with a SQL key or an identity-provider token as the password`;
  return new DualAuthError('ERR_FORBIDDEN', message);
}

/** Undefined for a user name the memory may key on: at most {@link MAX_SQL_USER_BYTES} bytes. */
export function userNameRefusal(user: string): DualAuthError | undefined {
  if (Buffer.byteLength(user, 'utf8') <= MAX_SQL_USER_BYTES) return undefined;
  return new DualAuthError(
    'ERR_FORBIDDEN',
    `The SQL user name is longer than ${MAX_SQL_USER_BYTES} bytes: sign in with a shorter one`,
  );
}

/** The refusal of a superuser sign-in under `*` by a credential whose own `sub` is not the superuser. */
export function superuserRefusal(user: string, variable: string): DualAuthError {
  const message = `The SQL user ${quote(user)} is the superuser, who may switch to any user: with any user name accepted, only a credential whose own "sub" names it signs in as it`;
  return new DualAuthError('ERR_FORBIDDEN', message, undefined, `${message} (${variable})`);
}

/** The refusal of a login the memory of live logins is too full to keep (LiveLogins' cap). */
export function capacityRefusal(user: string, cap: string): DualAuthError {
  const message = `The SQL login of user ${quote(user)} is refused: this Cube process holds as many live SQL logins as it may, and keeps every other user's; try again once some have ended`;
  return new DualAuthError('ERR_FORBIDDEN', message, undefined, `${message} (${cap})`);
}

const RECONNECT = 'reconnect with a fresh token';

/** The refusal of a re-authentication without a live login: it names the user and the moment, never a token. */
export function missingLogin(user: string, missing: MissingLogin, names: ProofNames): DualAuthError {
  const who = `The SQL session of user ${quote(user)}`;
  switch (missing.reason) {
    case 'withdrawn':
      return withdrawnRefusal(user, missing.proof, names);
    case 'expired': {
      const when = new Date(missing.endedAt * 1000).toISOString();
      return missing.tooOld
        ? new DualAuthError('ERR_TOKEN_TOO_OLD', `${who} outlived the maximum token age at ${when}: ${RECONNECT}`)
        : new DualAuthError('ERR_TOKEN_EXPIRED', `${who} ended when its token expired at ${when}: ${RECONNECT}`);
    }
    case 'revoked':
      return new DualAuthError(
        'ERR_FORBIDDEN',
        `${who} was signed in by a credential that is now revoked: ${RECONNECT}`,
      );
    case 'ambiguous':
      return new DualAuthError(
        'ERR_FORBIDDEN',
        `${who} cannot be re-authenticated, as more than one identity signed in under that user name, and Cube does not say which session asks: ${RECONNECT}`,
      );
    case 'drift':
      return new DualAuthError(
        'ERR_FORBIDDEN',
        `${who} cannot be re-authenticated, as that user signed in with credentials of different kinds or security contexts, and a session never moves to another credential: ${RECONNECT}`,
      );
    case 'none':
      return new DualAuthError(
        'ERR_TOKEN_MISSING',
        `${who} has no live login in this Cube process (its token expired, or it never signed in here): ${RECONNECT}`,
      );
  }
}

/** The reason label of a re-authentication refusal, for the refusals that guard one name to one identity. */
export function refusalReason(missing: MissingLogin): SqlReauthenticationRefusedEvent['reason'] {
  return missing.reason === 'ambiguous' || missing.reason === 'drift' ? missing.reason : undefined;
}

/** Who a credential names: its issuer and `sub` when it has them (a key's context has its token's), else the user. */
export function subjectOf(claims: Readonly<Record<string, unknown>>, user: string): string {
  const { iss, sub } = claims;
  return typeof sub === 'string' ? `${typeof iss === 'string' ? iss : ''}\n${sub}` : `\n\n${user}`;
}

/** A copy of a context, private to one answer; as JSON, as Cube's native server sends it, when it holds a function. */
export function copyOf(context: SecurityContext): SecurityContext {
  try {
    return structuredClone(context);
  } catch {
    return JSON.parse(JSON.stringify(context)) as SecurityContext;
  }
}
