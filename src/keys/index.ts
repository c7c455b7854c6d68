export { KEY_STORE_DEFAULTS, KeyStore, type KeyStoreOptions, type KeyStoreState } from './key-store';
export type { JwksFailure, JwksFailureCode } from './errors';
