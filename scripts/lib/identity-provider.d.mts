// Types for the TypeScript tests that start the identity provider (the module itself is plain ESM).

export interface IdentityProviderApp {
  readonly clientId: string;
  /** The claims its access tokens carry (under the claims namespace when one is set). */
  readonly claims: Record<string, unknown>;
  /** Lifetime of its access tokens. Default 300. */
  readonly tokenLifetimeSeconds?: number;
}

export interface RunningIdentityProvider {
  readonly issuer: string;
  readonly audience: string;
  readonly jwksUrl: string;
  /** The `kid` of the key tokens are signed with now. */
  readonly kid: string;
  /** Key rotation, step 0: makes a new signing key, not published yet; resolves with its kid. */
  createKey(): Promise<string>;
  /** Key rotation, step 1: publishes a created key next to the current ones; tokens are still signed as before. */
  publishKey(kid: string): Promise<void>;
  /** Key rotation, step 2: tokens issued from now on are signed with this published key. */
  signWith(kid: string): void;
  /** Key rotation, step 3: the JWKS stops publishing this key (not the one tokens are signed with). */
  withdrawKey(kid: string): Promise<void>;
  /** Signs any claims (RS256, 5 min) with the current signing key, as whoever controls this provider could. */
  signClaims(claims: Record<string, unknown>): string;
  issueToken(clientId: string): Promise<string>;
  close(): Promise<void>;
}

export declare function startIdentityProvider(options: {
  audience: string;
  claimsNamespace?: string;
  apps: readonly IdentityProviderApp[];
}): Promise<RunningIdentityProvider>;
