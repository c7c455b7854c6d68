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
  /** For the package's standing token: the same checks but the maximum token age (docs/embeddable.md). */
  private readonly standingVerifier: TokenVerifier;

  /** @param secrets the API secrets in force, read once per token: a reload swaps them whole */
  constructor(
    private readonly options: ResolvedOptions,
    private readonly secrets: LiveSecrets,
  ) {
    this.verifier = new TokenVerifier(SHARED_SECRET_ALGORITHM, claimPolicy(options), invalidSignature);
    // Its life is the API secret's, which rotation ends; an age bound would refuse it for good once passed.
    const standingPolicy = { ...claimPolicy(options), maxTokenAge: undefined };
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
    const verifier = hasStandingShape(token) ? this.standingVerifier : this.verifier;
    for (let i = 0; ; i++) {
      try {
        const { payload, refusedFrom } = verifier.verify(token, keys[i] as KeyObject, now);
        // The secret's thumbprint files the token in the cache, which drops it when the secret is removed.
        return { context: payload, payload, kid: undefined, thumbprint: secretThumbprints[i], refusedFrom };
      } catch (error) {
        // During a rotation a signature may match a later secret; any other refusal is final.
        const lastKey = i === keys.length - 1;
        if (lastKey || !(error instanceof DualAuthError) || error.code !== 'ERR_SIGNATURE_INVALID') throw error;
      }
    }
  }
}

function invalidSignature(): DualAuthError {
  return new DualAuthError(
    'ERR_SIGNATURE_INVALID',
    'Invalid signature: the token is not signed with the API secret',
    PATH,
  );
}
