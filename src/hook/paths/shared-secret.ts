import type { KeyObject } from 'node:crypto';
import { SHARED_SECRET_ALGORITHM } from '../../algorithms';
import { claimPolicy } from '../claims';
import type { ResolvedOptions } from '../../config/options';
import type { LiveSecrets } from '../../config/secrets-snapshot';
import { DualAuthError, quote } from '../../errors';
import type { DecodedToken } from '../token';
import { TokenVerifier } from '../verification';
import { hasStandingShape } from '../standing-token';
import type { Verified, VerificationPath } from './path';

const PATH = 'shared-secret';

/**
 * The shared-secret path: tokens of the service's backend, HS256 with the deployment's API secret (any of
 * them, for rotation). Nothing else is accepted here, whatever the token's header says.
 */
export class SharedSecretPath implements VerificationPath {
  private readonly verifier: TokenVerifier;
  /** For the package's standing token: the same checks but the maximum token age, when one is set (embeddable.md). */
  private readonly standingVerifier: TokenVerifier | undefined;

  /** @param secrets the API secrets in force, read once per token: a reload swaps them whole */
  constructor(
    private readonly options: ResolvedOptions,
    private readonly secrets: LiveSecrets,
  ) {
    this.verifier = new TokenVerifier(SHARED_SECRET_ALGORITHM, claimPolicy(options), invalidSignature);
    // Its life is the API secret's, which rotation ends; an age bound would refuse it for good once passed.
    const standingPolicy = { ...claimPolicy(options), maxTokenAge: undefined };
    if (options.maxTokenAge !== undefined)
      this.standingVerifier = new TokenVerifier(SHARED_SECRET_ALGORITHM, standingPolicy, invalidSignature);
  }

  /**
   * jsonwebtoken verifies the signature before the claims, so an expired token is reported as expired, not as forged.
   */
  verify(token: DecodedToken, now: number): Verified {
    const { secretKeys: keys, secretThumbprints } = this.secrets.current;
    if (keys.length === 0) {
      const notConfigured = 'Shared-secret path is not configured on this deployment';
      throw new DualAuthError(
        'ERR_SHARED_SECRET_NOT_CONFIGURED',
        notConfigured,
        PATH,
        `${notConfigured} (${this.options.names.apiSecret} is not set)`,
      );
    }
    if (token.header.alg !== SHARED_SECRET_ALGORITHM) {
      const refused = `Algorithm ${quote(token.header.alg)} is not accepted on the shared-secret path (HS256 only)`;
      throw new DualAuthError(
        'ERR_ALG_NOT_ALLOWED',
        refused,
        PATH,
        `${refused}: a request with "Request-Origin: ${this.options.origin}" must carry a token signed with the API secret`,
      );
    }
    for (let i = 0; ; i++) {
      // The secret's thumbprint files the token in the cache, which drops it when the secret is removed.
      const key = { key: keys[i] as KeyObject, thumbprint: secretThumbprints[i] as string };
      try {
        return verifiedBy(this.verifier, token, key, now);
      } catch (error) {
        const code = error instanceof DualAuthError ? error.code : undefined;
        // A standing token is told by its payload only once too old: the hot path decodes it once, in jsonwebtoken.
        if (code === 'ERR_TOKEN_TOO_OLD' && this.standingVerifier !== undefined && hasStandingShape(token))
          return verifiedBy(this.standingVerifier, token, key, now);
        // During a rotation a signature may match a later secret; any other refusal is final.
        if (i === keys.length - 1 || code !== 'ERR_SIGNATURE_INVALID') throw error;
      }
    }
  }
}

function verifiedBy(
  verifier: TokenVerifier,
  token: DecodedToken,
  { key, thumbprint }: { readonly key: KeyObject; readonly thumbprint: string },
  now: number,
): Verified {
  const { payload, refusedFrom } = verifier.verify(token, key, now);
  return { context: payload, payload, kid: undefined, thumbprint, refusedFrom };
}

function invalidSignature(): DualAuthError {
  return new DualAuthError(
    'ERR_SIGNATURE_INVALID',
    'Invalid signature: the token is not signed with the API secret',
    PATH,
  );
}
