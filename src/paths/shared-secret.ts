import type { ResolvedOptions } from '../config';
import { checkClaims, type ClaimPolicy } from '../claims';
import { DualAuthError, quote } from '../errors';
import { hs256Matches } from '../signature';
import type { DecodedToken } from '../token';

const PATH = 'shared-secret';

/**
 * The shared-secret path: tokens of the service's backend, HS256 with the deployment's API secret (any of
 * them, for rotation). Nothing else is accepted here, whatever the token's header says.
 */
export class SharedSecretPath {
  private readonly policy: ClaimPolicy;

  constructor(private readonly options: ResolvedOptions) {
    this.policy = {
      path: PATH,
      clockTolerance: options.clockTolerance,
      maxTokenAge: options.maxTokenAge,
      audience: undefined,
      issuer: undefined,
      subject: undefined,
    };
  }

  /** Verifies signature then claims, so an expired token is reported as expired, not as forged. */
  verify(token: DecodedToken, now: () => number): void {
    const { secretKeys } = this.options;
    if (secretKeys.length === 0) {
      throw new DualAuthError(
        'ERR_SHARED_SECRET_NOT_CONFIGURED',
        'Shared-secret path is not configured on this deployment (CUBEJS_API_SECRET is not set)',
        PATH,
      );
    }
    if (token.header.alg !== 'HS256') {
      throw new DualAuthError(
        'ERR_ALG_NOT_ALLOWED',
        `Algorithm ${quote(token.header.alg)} is not accepted on the shared-secret path (HS256 only): a request with "Request-Origin: ${this.options.origin}" must carry a token signed with the API secret`,
        PATH,
      );
    }
    if (!secretKeys.some((key) => hs256Matches(key, token.signingInput, token.signature))) {
      throw new DualAuthError('ERR_SIGNATURE_INVALID', 'Invalid signature: the token is not signed with the API secret', PATH);
    }
    checkClaims(token.payload, this.policy, now());
  }
}
