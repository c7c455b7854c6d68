/**
 * SQL keys: passwords for BI tools that stand for one identity-provider login for as long as the operator decides.
 * `cube-dual-auth sql-key` mints them, `checkSqlAuth` takes them back, and nothing else (docs/security.md#sql-keys).
 */
import { randomUUID, type KeyObject } from 'node:crypto';
import { JsonWebTokenError, sign, TokenExpiredError, verify, type VerifyOptions } from 'jsonwebtoken';
import { SHARED_SECRET_ALGORITHM } from '../../algorithms';
import { formatDuration } from '../../config/duration';
import type { ResolvedOptions } from '../../config/options';
import { isRevokedKey } from '../../config/revocations';
import { LiveSecrets, snapshotOf } from '../../config/secrets-snapshot';
import { DualAuthError, quote } from '../../errors';
import { isObject } from '../../http/json';
import type { SecurityContext } from '../security-context';
import { decodeToken, own } from '../token';

/** The `typ` header of every SQL key: what tells a key from any other token before its signature is checked. */
export const SQL_KEY_TYPE = 'cube-dual-auth-sql-key+jwt';

/** The audience of every SQL key, checked with the signature: a token of another kind never names it. */
export const SQL_KEY_AUDIENCE = 'cube-dual-auth:sql-api';

/** What `cube-dual-auth sql-key` gives: the key and what may be said about it (everything but the key is no secret). */
export interface MintedSqlKey {
  /** The key itself: the password to store in the BI tool. */
  readonly key: string;
  /** Its id (`jti`), the one to list in `CUBE_DUAL_AUTH_SQL_KEYS_REVOKED`. */
  readonly id: string;
  /** The SQL user it signs in as. */
  readonly user: string;
  /** Seconds since 1970, to the millisecond. */
  readonly issuedAt: number;
  /** Seconds since 1970, to the millisecond. */
  readonly expiresAt: number;
  /** The security context the key carries: the login's, with the key's own `iat`, `exp` and `jti`. */
  readonly securityContext: SecurityContext;
}

/** What a SQL key is minted from. */
export interface SqlKeyGrant {
  /** The signing secret: the first SQL key secret. */
  readonly secret: KeyObject;
  /** The SQL user name: the login's user claim. */
  readonly user: string;
  /** The security context `checkAuth` gave the login's token, tenant and groups included. */
  readonly securityContext: SecurityContext;
  /** Lifetime in seconds. */
  readonly expiresIn: number;
  /** Epoch ms of the minting. */
  readonly now: number;
}

/** Signs a SQL key for a login the hook has accepted. */
export function mintSqlKey({ secret, user, securityContext, expiresIn, now }: SqlKeyGrant): MintedSqlKey {
  const id = randomUUID();
  // To the millisecond (RFC 7519's NumericDate allows it): a `user … before <now>` cut spares a key made just after.
  const issuedAt = now / 1000;
  const expiresAt = issuedAt + expiresIn;
  // The security context as JSON carries it: what the hook hides from JSON (its namespace members) is not sent.
  const context = withKeyClaims(JSON.parse(JSON.stringify(securityContext)) as SecurityContext, {
    id,
    issuedAt,
    expiresAt,
  });
  const payload = {
    sub: user,
    aud: SQL_KEY_AUDIENCE,
    jti: id,
    iat: issuedAt,
    exp: expiresAt,
    security_context: context,
  };
  const key = sign(payload, secret, {
    algorithm: SHARED_SECRET_ALGORITHM,
    header: { alg: SHARED_SECRET_ALGORITHM, typ: SQL_KEY_TYPE },
  });
  return { key, id, user, issuedAt, expiresAt, securityContext: context };
}

/**
 * The context with the key's own `iat`, `exp` and `jti` in place of its token's (docs/security.md#sql-keys): applied
 * when a key is minted, and again when one is read, for keys minted before.
 */
function withKeyClaims(
  context: Readonly<Record<string, unknown>>,
  { id, issuedAt, expiresAt }: { readonly id: string; readonly issuedAt: number; readonly expiresAt: number },
): SecurityContext {
  return { ...context, iat: issuedAt, exp: expiresAt, jti: id };
}

/** Whether a token's header marks it as a SQL key (its signature unchecked: only ever used to refuse, or route). */
export function isSqlKeyHeader(header: Readonly<Record<string, unknown>> | undefined): boolean {
  return header !== undefined && own(header, 'typ') === SQL_KEY_TYPE;
}

/** Whether a SQL password is shaped as a SQL key (its header says so); never throws. */
export function looksLikeSqlKey(text: string): boolean {
  const dot = text.indexOf('.');
  if (dot <= 0) return false;
  try {
    const header: unknown = JSON.parse(Buffer.from(text.slice(0, dot), 'base64url').toString('utf8'));
    return isObject(header) && isSqlKeyHeader(header);
  } catch {
    return false;
  }
}

/** A SQL key accepted for a login. */
export interface SqlKeyLogin {
  readonly id: string;
  readonly user: string;
  /** The security context the key carries, as minted. */
  readonly securityContext: SecurityContext;
  /** Seconds since 1970. */
  readonly issuedAt: number;
  readonly expiresAt: number;
}

/** A key accepted for a login, with what verified it. */
export interface VerifiedSqlKey extends SqlKeyLogin {
  /** The thumbprint of the SQL key secret that verified it, shared with the snapshot in force (secrets-snapshot.ts). */
  readonly secretThumbprint: string;
}

/** How many accepted keys are remembered before the expired ones are first dropped. */
const PRUNE_FIRST_AT = 1024;

/** The public message of a key refused for its signature: never which secrets are configured. */
const TAMPERED = 'The SQL key is not valid: it was altered, or signed with a secret this deployment no longer has';

/** The SQL keys of one hook: verifies a key for a login, and says at each re-authentication whether it still holds. */
export class SqlKeys {
  private readonly verifyOptions: VerifyOptions;
  /** Each key accepted here, by id: a `user … before …` revocation judges an id by its user and `iat`. */
  private readonly accepted = new Map<string, SqlKeyLogin>();
  private pruneAt = PRUNE_FIRST_AT;

  /** @param secrets the SQL key secrets and revocations in force, which a reload swaps (config/reload.ts) */
  constructor(
    private readonly options: ResolvedOptions,
    private readonly clock: () => number = Date.now,
    private readonly secrets: LiveSecrets = new LiveSecrets(snapshotOf(options)),
  ) {
    this.verifyOptions = {
      algorithms: [SHARED_SECRET_ALGORITHM],
      audience: SQL_KEY_AUDIENCE,
      clockTolerance: options.clockTolerance,
    };
  }

  /**
   * The login a SQL key gives `user`: signature (any SQL key secret), `exp`, the maximum age, revocation, then that
   * the key is `user`'s. Throws the {@link DualAuthError} naming why, never quoting the key.
   */
  verify(key: string, user: string): VerifiedSqlKey {
    const { names } = this.options;
    const snapshot = this.secrets.current;
    const keys = snapshot.sqlKeyKeys;
    if (keys.length === 0) {
      const message = 'SQL keys are not accepted on this deployment';
      throw new DualAuthError('ERR_FORBIDDEN', message, undefined, `${message} (${names.sqlKeySecrets} is not set)`);
    }
    const decoded = decodeToken(key);
    if (decoded.header.alg !== SHARED_SECRET_ALGORITHM || !isSqlKeyHeader(decoded.header))
      throw new DualAuthError('ERR_SIGNATURE_INVALID', TAMPERED);
    const nowMs = this.clock();
    let payload: unknown;
    let by = 0;
    for (const [i, secret] of keys.entries()) {
      try {
        payload = verify(key, secret, { ...this.verifyOptions, clockTimestamp: nowMs / 1000 });
        by = i;
        break;
      } catch (error) {
        // During a rotation a key may be signed by a later secret; every other failure is final.
        if (error instanceof JsonWebTokenError && error.message === 'invalid signature' && i < keys.length - 1)
          continue;
        throw this.rejection(error, decoded.payloadIfObject());
      }
    }
    const login = loginOf(payload);
    const refusal = this.refusal(login, nowMs) ?? userMismatch(login, user);
    if (refusal !== undefined) throw refusal;
    this.remember(login);
    return { ...login, secretThumbprint: snapshot.sqlKeyThumbprints[by] as string };
  }

  /** Why a key accepted before is refused now (expired, too old, revoked); undefined while it holds. */
  refusal(login: SqlKeyLogin, nowMs: number = this.clock()): DualAuthError | undefined {
    const { clockTolerance, sqlKeyMaxAge, names } = this.options;
    const now = nowMs / 1000;
    if (now > login.expiresAt + clockTolerance) return expired(login.expiresAt);
    if (now > login.issuedAt + sqlKeyMaxAge + clockTolerance) {
      const message = `The SQL key ${quote(login.id)} is older than ${formatDuration(sqlKeyMaxAge)}, the longest a SQL key lives on this deployment: ask for a new one`;
      return new DualAuthError('ERR_TOKEN_TOO_OLD', message, undefined, `${message} (${names.sqlKeyMaxAge})`);
    }
    if (isRevokedKey(this.secrets.current.sqlKeysRevoked, login)) {
      const message = `The SQL key ${quote(login.id)} is revoked: ask for a new one`;
      return new DualAuthError('ERR_FORBIDDEN', message, undefined, `${message} (${names.sqlKeysRevoked})`);
    }
    return undefined;
  }

  /** Whether `id` is a revoked key's, by id or by its user and issue time, in the revocations in force now. */
  isRevoked(id: string): boolean {
    const revocations = this.secrets.current.sqlKeysRevoked;
    if (revocations === undefined) return false;
    if (revocations.ids.has(id)) return true;
    const login = this.accepted.get(id);
    return login !== undefined && isRevokedKey(revocations, login);
  }

  private remember(login: SqlKeyLogin): void {
    this.accepted.set(login.id, login);
    if (this.accepted.size < this.pruneAt) return;
    const now = this.clock() / 1000;
    for (const [id, known] of this.accepted) if (known.expiresAt < now) this.accepted.delete(id);
    this.pruneAt = Math.max(PRUNE_FIRST_AT, 2 * this.accepted.size);
  }

  /** jsonwebtoken's refusal as ours: its text never reaches a caller. */
  private rejection(error: unknown, payload: Record<string, unknown> | undefined): DualAuthError {
    if (error instanceof TokenExpiredError) return expired(payload?.exp);
    if (error instanceof JsonWebTokenError && error.message.startsWith('jwt audience invalid'))
      return new DualAuthError('ERR_CLAIM_INVALID', 'The SQL key is not valid: it names another audience');
    if (error instanceof JsonWebTokenError && error.message === 'invalid signature') {
      const { names } = this.options;
      return new DualAuthError(
        'ERR_SIGNATURE_INVALID',
        TAMPERED,
        undefined,
        `${TAMPERED} (none of the ${this.secrets.current.sqlKeyKeys.length} secrets of ${names.sqlKeySecrets} verifies it)`,
      );
    }
    return new DualAuthError('ERR_TOKEN_MALFORMED', 'The SQL key is malformed');
  }
}

function expired(exp: unknown): DualAuthError {
  const at = typeof exp === 'number' ? ` at ${new Date(exp * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z')}` : '';
  return new DualAuthError('ERR_TOKEN_EXPIRED', `The SQL key expired${at}: ask for a new one`);
}

/** A verified key's claims as a login; a key signed by us always has them, so a gap means it was not minted here. */
function loginOf(payload: unknown): SqlKeyLogin {
  const claims = isObject(payload) ? payload : {};
  const { sub, jti, iat, exp, security_context: context } = claims;
  if (
    typeof sub !== 'string' ||
    typeof jti !== 'string' ||
    typeof iat !== 'number' ||
    typeof exp !== 'number' ||
    !isObject(context)
  )
    throw new DualAuthError('ERR_TOKEN_MALFORMED', 'The SQL key is malformed: it lacks a claim every SQL key has');
  const securityContext = withKeyClaims(context, { id: jti, issuedAt: iat, expiresAt: exp });
  return { id: jti, user: sub, securityContext, issuedAt: iat, expiresAt: exp };
}

function userMismatch(login: SqlKeyLogin, user: string): DualAuthError | undefined {
  if (login.user === user) return undefined;
  return new DualAuthError(
    'ERR_CLAIM_INVALID',
    `The SQL user ${quote(user)} is not the user of this SQL key: sign in as the user the key was made for`,
  );
}
