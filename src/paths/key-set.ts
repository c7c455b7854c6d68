import type { KeyObject } from 'node:crypto';
import type { KeySetAlgorithm, ResolvedOptions } from '../config';
import { checkClaims, type ClaimPolicy } from '../claims';
import { DualAuthError, quote } from '../errors';
import { asymmetricSignatureMatches, keyFitsAlgorithm } from '../signature';
import type { DecodedToken } from '../token';

const PATH = 'key-set';

/** Where the key-set path gets public keys: the JWKS key store, keyed by `kid` only. */
export interface KeySource {
  getKey(kid: string): KeyObject | Promise<KeyObject>;
}

/**
 * The key-set path: tokens of the customer's identity provider, verified with a public key from the
 * configured JWKS URL, chosen by `kid`. Asymmetric algorithms only; `jku`, `x5u`, `jwk` and `x5c` in the
 * header are never read, so a token cannot choose where its key comes from.
 */
export class KeySetPath {
  private readonly policy: ClaimPolicy;
  private readonly allowed: ReadonlySet<string>;
  private readonly allowedText: string;

  constructor(
    private readonly options: ResolvedOptions,
    private readonly keys: KeySource | undefined,
  ) {
    this.policy = {
      path: PATH,
      clockTolerance: options.clockTolerance,
      maxTokenAge: options.maxTokenAge,
      audience: options.audience,
      issuer: options.issuer,
      subject: options.subject,
    };
    this.allowed = new Set(options.algorithms);
    this.allowedText = options.algorithms.join(', ');
  }

  /** The `kid` a token would be verified with, after the checks that need no key. */
  kidOf(token: DecodedToken): string {
    if (!this.keys) {
      throw new DualAuthError(
        'ERR_JWKS_NOT_CONFIGURED',
        'Key-set path is not configured on this deployment (CUBEJS_JWK_URL is not set); only requests with ' +
          `"Request-Origin: ${this.options.origin}" and an API-secret token are accepted`,
        PATH,
      );
    }
    const { alg, kid } = token.header;
    if (!this.allowed.has(alg)) throw this.algorithmRefused(alg);
    if (typeof kid !== 'string' || kid === '') {
      throw new DualAuthError('ERR_KID_MISSING', 'Token header has no "kid": the key-set path needs it to choose a key from the JWKS', PATH);
    }
    return kid;
  }

  /**
   * Verifies the token with the key of `kid` (from {@link kidOf}): at once when the key is in memory, as a promise
   * when the key set has to be fetched first.
   */
  verify(token: DecodedToken, kid: string, now: () => number): void | Promise<void> {
    const key = (this.keys as KeySource).getKey(kid);
    return key instanceof Promise ? key.then((loaded) => this.check(token, kid, loaded, now)) : this.check(token, kid, key, now);
  }

  private check(token: DecodedToken, kid: string, key: KeyObject, now: () => number): void {
    const alg = token.header.alg as KeySetAlgorithm;
    if (!keyFitsAlgorithm(alg, key)) {
      throw new DualAuthError('ERR_ALG_NOT_ALLOWED', `Key ${quote(kid)} of the JWKS cannot verify ${alg} tokens`, PATH);
    }
    if (!asymmetricSignatureMatches(alg, key, token.signingInput, token.signature)) {
      throw new DualAuthError('ERR_SIGNATURE_INVALID', `Invalid signature: the token is not signed by key ${quote(kid)} of the JWKS`, PATH);
    }
    checkClaims(token.payload, this.policy, now());
  }

  private algorithmRefused(alg: string): DualAuthError {
    const hint = /^HS/i.test(alg)
      ? `: a token signed with the API secret needs the header "Request-Origin: ${this.options.origin}"`
      : '';
    return new DualAuthError(
      'ERR_ALG_NOT_ALLOWED',
      `Algorithm ${quote(alg)} is not accepted on the key-set path (${this.allowedText} only)${hint}`,
      PATH,
    );
  }
}
