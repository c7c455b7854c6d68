import type { AuthPath, RejectionCode } from './errors';

/** A request was accepted. */
export interface AcceptedEvent {
  readonly type: 'accepted';
  readonly path: AuthPath;
  /** `kid` of the key that verified the token (key-set path only). */
  readonly kid?: string;
  /** Issuer of the identity provider chosen for the token, when one is configured (key-set path only). */
  readonly issuer?: string;
  /** True when the verified-token cache answered. */
  readonly cached: boolean;
  readonly durationMs: number;
}

/** A request was refused with a 403. */
export interface RejectedEvent {
  readonly type: 'rejected';
  /** Absent when the request was refused before a path was chosen (no token). */
  readonly path?: AuthPath;
  readonly code: RejectionCode;
  /** The message the client received: it never contains the token, the secret or key material. */
  readonly message: string;
  readonly kid?: string;
  /** Issuer of the identity provider chosen for the token, when one was (key-set path only). */
  readonly issuer?: string;
  readonly durationMs: number;
}

/** The key set was (re)loaded from the JWKS URL. */
export interface KeySetRefreshedEvent {
  readonly type: 'jwks-refreshed';
  readonly jwksUri: string;
  /** The identity provider's issuer, when one is configured (several providers, or discovery). */
  readonly issuer?: string;
  readonly kids: readonly string[];
  /** Keys in the answer that were skipped (not for signatures, wrong type, malformed). */
  readonly skipped: number;
  readonly durationMs: number;
}

/** Loading the key set failed; `servingStale` tells whether the last good key set is still in use. */
export interface KeySetRefreshFailedEvent {
  readonly type: 'jwks-refresh-failed';
  /** The JWKS URL; while discovery has found none yet, the discovery document asked first. */
  readonly jwksUri: string;
  /** The identity provider's issuer, when one is configured (several providers, or discovery). */
  readonly issuer?: string;
  readonly code: Extract<RejectionCode, 'ERR_JWKS_UNREACHABLE' | 'ERR_JWKS_TIMEOUT' | 'ERR_JWKS_INVALID'>;
  readonly message: string;
  readonly servingStale: boolean;
  readonly durationMs: number;
}

/** An issuer's discovery document was asked for its JWKS URL (docs/identity-providers.md). */
export interface DiscoveryEvent {
  readonly type: 'discovery';
  readonly issuer: string;
  /** The JWKS URL the document named; absent when discovery failed. */
  readonly jwksUri?: string;
  /** Why discovery failed; absent when it succeeded. */
  readonly code?: KeySetRefreshFailedEvent['code'];
  readonly durationMs: number;
}

/** What a SQL API login signed in with: an identity-provider token, a SQL key, or Cube's static login. */
export type SqlLoginKind = 'token' | 'key' | 'static';

/** A login to the SQL API was accepted or refused; a token login also reports its verification. */
export interface SqlLoginEvent {
  readonly type: 'sql-login';
  readonly kind: SqlLoginKind;
  readonly outcome: 'accepted' | 'refused';
  readonly code?: RejectionCode;
  /** The refusal's whole message (never the token, the key or a secret). */
  readonly message?: string;
  /** A key login's key id (`jti`), once the key's signature holds: the id to revoke. */
  readonly keyId?: string;
  /** Why a verified credential was refused to keep one name one identity (docs/security.md#one-name-one-identity). */
  readonly reason?: 'capacity' | 'superuser';
}

/** Cube's SQL API re-authenticated a session (docs/cube-lines.md#the-sql-apis-re-authentication). */
export interface SqlReauthenticatedEvent {
  readonly type: 'sql-reauthenticated';
  readonly durationMs: number;
}

/** A re-authentication of the SQL API was refused: the session's login is no longer live, or never was here. */
export interface SqlReauthenticationRefusedEvent {
  readonly type: 'sql-reauthentication-refused';
  readonly code: RejectionCode;
  /** The message the SQL client received: it names the user, never a token. */
  readonly message: string;
  readonly durationMs: number;
  /** `req.protocol` as a bounded label: `postgres`, `xmla`, or `other` for anything else or none. */
  readonly protocol: 'postgres' | 'xmla' | 'other';
  /** `req.method` as a bounded label: `password`, `ntlm`, `kerberos`, `token`, or `other`. */
  readonly method: 'password' | 'ntlm' | 'kerberos' | 'token' | 'other';
  /** Why, when the refusal keeps one name one identity (docs/security.md#one-name-one-identity). */
  readonly reason?: 'protocol' | 'ambiguous' | 'drift';
}

/** A file of the secrets directory changed while Cube ran (docs/rotation.md#what-each-replica-logs). */
export interface SecretReloadEvent {
  readonly type: 'secret-reload';
  /** The file's name in the directory (`api-secrets`, `sql-key-secrets`, `sql-keys-revoked`, `sql-password`). */
  readonly file: string;
  readonly outcome: 'applied' | 'invalid' | 'vanished';
  /** Why the file was not applied; never its content. */
  readonly reason?: string;
  /** How many values the file holds now (secrets, revocation entries): counts only. */
  readonly values?: number;
}

/** What a standing service credential is: cube-dual-auth's own (by its `jti`'s form), or any token without `exp`. */
export type StandingTokenKind = 'package' | 'no-exp';

/** A standing service credential was first accepted, told once per token (docs/embeddable.md). */
export interface StandingTokenEvent {
  readonly type: 'standing-token';
  readonly kind: StandingTokenKind;
  /** `header` when the request carried `Request-Origin`; `none` when routed by the token's shape (opt-in). */
  readonly origin: 'header' | 'none';
}

/** A fault inside cube-dual-auth or in a user-supplied `securityContext` function. */
export interface InternalErrorEvent {
  readonly type: 'internal-error';
  readonly message: string;
}

/** Everything the `onEvent` hook can receive. None of them carries a token, a secret or key material. */
export type AuthEvent =
  | AcceptedEvent
  | RejectedEvent
  | KeySetRefreshedEvent
  | KeySetRefreshFailedEvent
  | DiscoveryEvent
  | SqlLoginEvent
  | SqlReauthenticatedEvent
  | SqlReauthenticationRefusedEvent
  | SecretReloadEvent
  | StandingTokenEvent
  | InternalErrorEvent;

/** Receives {@link AuthEvent}s for the operator's logs or metrics. Must not throw; a throw is ignored. */
export type AuthEventListener = (event: AuthEvent) => void;

/** Calls the listener, shielding the request from a listener that throws. */
export function emit(listener: AuthEventListener | undefined, event: AuthEvent): void {
  if (!listener) return;
  try {
    listener(event);
  } catch {
    // A logging hook must never decide the outcome of a request.
  }
}
