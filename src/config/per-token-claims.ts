/**
 * Per-token claims: what an identity provider puts in each token it issues (a token id, a session id, a hash of the
 * access token) and that differs between two tokens of one login. Two live SQL logins of one user that differ only in
 * them are the same identity (docs/security.md, "One name, one identity"); `iat`, `nbf`, `exp`, `jti` and `auth_time`
 * are never compared whatever this list says.
 */

/** The per-token claims of each identity provider, as their token references name them (docs/security.md). */
export const PER_TOKEN_CLAIMS_BY_PROVIDER = {
  'Entra ID': ['uti', 'aio', 'rh'],
  Keycloak: ['sid', 'session_state'],
  Auth0: ['sid', 'nonce'],
  Okta: ['nonce', 'at_hash', 'c_hash'],
} as const satisfies Readonly<Record<string, readonly string[]>>;

/** The default of `sqlPerTokenClaims`: every provider's, as a token says which provider issued it only by `iss`. */
export const DEFAULT_PER_TOKEN_CLAIMS: readonly string[] = [
  ...new Set(Object.values(PER_TOKEN_CLAIMS_BY_PROVIDER).flat()),
];
