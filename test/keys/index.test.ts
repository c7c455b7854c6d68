import { describe, expect, it } from 'vitest';
import { resolveOptions } from '../../src/config/options';
import type { IdentityProvider } from '../../src/config/identity-providers';
import type { AuthEvent } from '../../src/events';
import { keyStoreOptions } from '../../src/keys';

const JWKS_URL = 'https://idp.example/jwks.json';

/** The options resolved as the hook resolves them, and their one identity provider. */
function resolvedWith(options: Parameters<typeof resolveOptions>[0]) {
  const resolved = resolveOptions(options);
  return { resolved, provider: resolved.identityProviders[0] as IdentityProvider };
}

describe("keyStoreOptions: one identity provider's key store, from the resolved options", () => {
  it("gives the key store the hook's documented defaults", () => {
    const { resolved, provider } = resolvedWith({ jwksUri: JWKS_URL });
    const { cooldownMs, maxAgeMs, staleIfErrorMs, timeoutMs, maxResponseBytes } = keyStoreOptions(resolved, provider);
    expect({ cooldownMs, maxAgeMs, staleIfErrorMs, timeoutMs, maxResponseBytes }).toEqual({
      cooldownMs: 30_000,
      maxAgeMs: 600_000,
      staleIfErrorMs: 86_400_000,
      timeoutMs: 5_000,
      maxResponseBytes: 524_288,
    });
  });

  it("takes the JWKS settings given, and the identity provider's algorithms", () => {
    const { resolved, provider } = resolvedWith({
      jwksUri: JWKS_URL,
      algorithms: ['ES256', 'RS256'],
      jwksCooldownMs: 1_000,
      jwksMaxAgeMs: 2_000,
      jwksStaleIfErrorMs: 3_000,
      jwksTimeoutMs: 4_000,
      jwksMaxResponseBytes: 5_000,
    });
    expect(keyStoreOptions(resolved, provider)).toEqual({
      jwksUri: JWKS_URL,
      algorithms: ['ES256', 'RS256'],
      cooldownMs: 1_000,
      maxAgeMs: 2_000,
      staleIfErrorMs: 3_000,
      timeoutMs: 4_000,
      maxResponseBytes: 5_000,
      onEvent: undefined,
    });
  });

  it('discovers the JWKS URL from the issuer when none is configured, and names the issuer', () => {
    const { resolved, provider } = resolvedWith({ issuer: 'https://idp.example/' });
    expect(keyStoreOptions(resolved, provider)).toMatchObject({
      jwksUri: { discoverFrom: 'https://idp.example/' },
      issuer: 'https://idp.example/',
    });
  });

  it("names each identity provider's issuer, and hands the listener on", () => {
    const events: AuthEvent[] = [];
    const onEvent = (event: AuthEvent) => events.push(event);
    const resolved = resolveOptions({
      providers: [{ issuer: 'https://a.example/', jwksUri: JWKS_URL }, { issuer: 'https://b.example/' }],
    });
    const [a, b] = resolved.identityProviders.map((provider) => keyStoreOptions(resolved, provider, onEvent));
    expect(a).toMatchObject({ jwksUri: JWKS_URL, issuer: 'https://a.example/', onEvent });
    expect(b).toMatchObject({ jwksUri: { discoverFrom: 'https://b.example/' }, issuer: 'https://b.example/', onEvent });
  });

  it('leaves the issuer out when the one identity provider has none', () => {
    const { resolved, provider } = resolvedWith({ jwksUri: JWKS_URL });
    expect(keyStoreOptions(resolved, provider)).not.toHaveProperty('issuer');
  });
});
