/** The secrets in force, one snapshot a reload replaces whole (docs/rotation.md#what-a-reload-does). */
import { createHash, type KeyObject } from 'node:crypto';
import type { ResolvedOptions } from './resolve-options';
import type { Revocations } from './revocations';

/** What a reload of the secrets directory can change. */
export interface SecretsSnapshot {
  /** The API secrets as keys, in the order they are tried. */
  readonly secretKeys: readonly KeyObject[];
  /** A SHA-256 of each API secret, in memory only: the token cache drops what a removed secret verified. */
  readonly secretThumbprints: readonly string[];
  /** The SQL key secrets as keys, the signing one first. */
  readonly sqlKeyKeys: readonly KeyObject[];
  /** A SHA-256 of each SQL key secret, in memory only: a key login remembers its secret's, never the secret. */
  readonly sqlKeyThumbprints: readonly string[];
  readonly sqlKeysRevoked: Revocations | undefined;
  /** The static SQL login's password. */
  readonly sqlPassword: string | undefined;
  /** A SHA-256 of that password: a static login remembers it, to end its sessions once the password changes. */
  readonly sqlPasswordThumbprint: string | undefined;
}

/** The thumbprint of a secret key: never shown, only compared. */
export function secretThumbprint(key: KeyObject): string {
  return createHash('sha256').update(key.export()).digest('base64url');
}

/** The snapshot of resolved options. */
export function snapshotOf(
  options: Pick<ResolvedOptions, 'secretKeys' | 'sqlKeyKeys' | 'sqlKeysRevoked' | 'sqlPassword'>,
): SecretsSnapshot {
  return {
    secretKeys: options.secretKeys,
    secretThumbprints: options.secretKeys.map(secretThumbprint),
    sqlKeyKeys: options.sqlKeyKeys,
    sqlKeyThumbprints: options.sqlKeyKeys.map(secretThumbprint),
    sqlKeysRevoked: options.sqlKeysRevoked,
    sqlPassword: options.sqlPassword,
    sqlPasswordThumbprint:
      options.sqlPassword === undefined
        ? undefined
        : createHash('sha256').update(options.sqlPassword, 'utf8').digest('base64url'),
  };
}

/** Told of each swap, after it: the snapshot now in force and the one it replaced. */
export type SwapListener = (next: SecretsSnapshot, previous: SecretsSnapshot) => void;

/**
 * The one reference to the secrets in force, shared by the shared-secret path, the SQL keys and the static login.
 * @example
 * const secrets = new LiveSecrets(snapshotOf(resolved));
 * secrets.current.secretKeys; // read per request: one property load
 */
export class LiveSecrets {
  private readonly listeners: SwapListener[] = [];

  constructor(private snapshot: SecretsSnapshot) {}

  get current(): SecretsSnapshot {
    return this.snapshot;
  }

  /** Puts `next` in force at once, then tells the listeners (the token cache drops what a removed secret verified). */
  swap(next: SecretsSnapshot): void {
    const previous = this.snapshot;
    this.snapshot = next;
    for (const listener of this.listeners) listener(next, previous);
  }

  onSwap(listener: SwapListener): void {
    this.listeners.push(listener);
  }
}
