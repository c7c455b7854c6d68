import type { ResolvedOptions } from '../config/options';
import type { AuthEventListener } from '../events';
import type { IdentityProvider } from '../config/identity-providers';
import type { KeyStoreOptions } from './key-store';

export { KeyStore, type KeyStoreOptions } from './key-store';

/** One identity provider's key store settings from resolved options: one mapping for the hook and for `doctor`. */
export function keyStoreOptions(
  options: ResolvedOptions,
  provider: IdentityProvider,
  onEvent?: AuthEventListener,
): KeyStoreOptions {
  const { issuer, jwksUri } = provider;
  return {
    // The configuration guarantees an issuer to discover from whenever no JWKS URL is set.
    jwksUri: jwksUri ?? { discoverFrom: issuer as string },
    ...(issuer !== undefined && { issuer }),
    algorithms: provider.algorithms,
    cooldownMs: options.jwksCooldownMs,
    maxAgeMs: options.jwksMaxAgeMs,
    staleIfErrorMs: options.jwksStaleIfErrorMs,
    timeoutMs: options.jwksTimeoutMs,
    maxResponseBytes: options.jwksMaxResponseBytes,
    onEvent,
  };
}
