import type { ResolvedOptions } from '../config';
import type { AuthEventListener } from '../events';
import type { KeyStoreOptions } from './key-store';

export { KEY_STORE_DEFAULTS, KeyStore, type KeyStoreOptions, type KeyStoreState } from './key-store';
export type { JwksFailure, JwksFailureCode } from './errors';

/** The key store's settings from resolved options: one mapping for the hook and for `doctor`. */
export function keyStoreOptions(options: ResolvedOptions & { jwksUri: string }, onEvent?: AuthEventListener): KeyStoreOptions {
  return {
    jwksUri: options.jwksUri,
    algorithms: options.algorithms,
    cooldownMs: options.jwksCooldownMs,
    maxAgeMs: options.jwksMaxAgeMs,
    staleIfErrorMs: options.jwksStaleIfErrorMs,
    timeoutMs: options.jwksTimeoutMs,
    maxResponseBytes: options.jwksMaxResponseBytes,
    onEvent,
  };
}
