/**
 * What proved a SQL login: the SQL key secret, the identity provider's key, or the static password. A live login keeps
 * a reference to one shared proof, never a secret, and ends once its proof is no longer in force
 * (docs/rotation.md#what-a-reload-does).
 */
import type { SecretsSnapshot } from '../../config/secrets-snapshot';
import { DualAuthError, quote } from '../../errors';
import type { KeyStore } from '../../keys';
import { keyFactsOf } from '../../keys/key-facts';

/** A SQL key secret, by its thumbprint (config/secrets-snapshot.ts). */
export interface SqlKeySecretProof {
  readonly kind: 'sql-key-secret';
  readonly thumbprint: string;
}

/** A key of an identity provider's key set: its provider's place, its `kid` and its thumbprint (keys/key-facts.ts). */
export interface ProviderKeyProof {
  readonly kind: 'provider-key';
  readonly provider: number;
  readonly kid: string;
  readonly thumbprint: string;
}

/** The static SQL login's password, by its thumbprint. */
export interface SqlPasswordProof {
  readonly kind: 'sql-password';
  readonly thumbprint: string;
}

export type Proof = SqlKeySecretProof | ProviderKeyProof | SqlPasswordProof;

/** Where proofs are checked: the secrets in force and every identity provider's key set as last loaded. */
export interface ProofSources {
  readonly secrets: () => SecretsSnapshot;
  readonly keyStores: readonly Pick<KeyStore, 'heldKey'>[];
}

/** Past this many interned proofs the table starts again: logins keep theirs, only the sharing is lost. */
const MAX_INTERNED = 1024;

/**
 * One shared object per proof, so that 10,000 logins by one secret or key hold one reference each.
 * @example
 * const proofs = new Proofs();
 * proofs.sqlKeySecret(thumbprint) === proofs.sqlKeySecret(thumbprint); // true
 */
export class Proofs {
  private readonly interned = new Map<string, Proof>();

  sqlKeySecret(thumbprint: string): SqlKeySecretProof {
    return this.intern(`s\n${thumbprint}`, () => ({ kind: 'sql-key-secret', thumbprint }));
  }

  providerKey(provider: number, kid: string, thumbprint: string): ProviderKeyProof {
    return this.intern(`k\n${provider}\n${kid}\n${thumbprint}`, () => ({
      kind: 'provider-key',
      provider,
      kid,
      thumbprint,
    }));
  }

  sqlPassword(thumbprint: string): SqlPasswordProof {
    return this.intern(`p\n${thumbprint}`, () => ({ kind: 'sql-password', thumbprint }));
  }

  private intern<P extends Proof>(key: string, make: () => P): P {
    const known = this.interned.get(key);
    if (known !== undefined) return known as P;
    if (this.interned.size >= MAX_INTERNED) this.interned.clear();
    const made: P = Object.freeze(make());
    this.interned.set(key, made);
    return made;
  }
}

/** Whether `proof` is still in force: the secret still configured, the key still in its provider's key set. */
export function proofHolds({ secrets, keyStores }: ProofSources, proof: Proof): boolean {
  switch (proof.kind) {
    case 'sql-key-secret':
      return secrets().sqlKeyThumbprints.includes(proof.thumbprint);
    case 'sql-password':
      return secrets().sqlPasswordThumbprint === proof.thumbprint;
    case 'provider-key': {
      const key = keyStores[proof.provider]?.heldKey(proof.kid);
      return key !== undefined && keyFactsOf(key)?.thumbprint === proof.thumbprint;
    }
  }
}

/** The variable each kind of proof is configured by, for the operator's detail. */
export interface ProofNames {
  readonly sqlKeySecrets: string;
  readonly sqlPassword: string;
}

/** The refusal of a session whose proof left: it names what left and asks to sign in again, never a secret. */
export function withdrawnRefusal(user: string, proof: Proof, names: ProofNames): DualAuthError {
  const who = `The SQL session of user ${quote(user)}`;
  switch (proof.kind) {
    case 'sql-key-secret': {
      const message = `${who} was signed in by a SQL key whose secret this deployment no longer has: sign in again with a new SQL key`;
      return new DualAuthError('ERR_SECRET_REMOVED', message, undefined, `${message} (${names.sqlKeySecrets})`);
    }
    case 'provider-key':
      return new DualAuthError(
        'ERR_KEY_REMOVED',
        `${who} was signed in by a token whose key ${quote(proof.kid)} has left its identity provider's key set: sign in again with a fresh token`,
      );
    case 'sql-password': {
      const message = `${who} was signed in with a password that has changed since: sign in again with the new password`;
      return new DualAuthError('ERR_PASSWORD_CHANGED', message, undefined, `${message} (${names.sqlPassword})`);
    }
  }
}
