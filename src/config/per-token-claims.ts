/** The claims each identity provider sets per token, never compared (docs/security.md#per-token-claims). */
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
