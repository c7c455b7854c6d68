import type { KeyObject } from 'node:crypto';
import { keyFitsAlgorithm, type KeySetAlgorithm } from '../algorithms';
import { claimPolicy } from '../claims';
import { keyFactsOf } from '../keys/key-facts';
import type { ResolvedOptions } from '../config';
import { DualAuthError, quote } from '../errors';
import { own, type DecodedToken } from '../token';
import { TokenVerifier } from '../verification';
import type { Verified, VerificationPath } from './path';

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
export class KeySetPath implements VerificationPath {
  readonly name = PATH;
  /** One verifier per allowed algorithm: the token's algorithm is pinned for jsonwebtoken. */
  private readonly verifiers: ReadonlyMap<string, TokenVerifier>;
  private readonly allowedText: string;

  constructor(
    private readonly options: ResolvedOptions,
    private readonly keys: KeySource | undefined,
    private readonly clock: () => number,
  ) {
    const policy = claimPolicy(options, PATH);
    this.verifiers = new Map(options.algorithms.map((alg) => [alg, new TokenVerifier(alg, policy, invalidSignature)]));
    this.allowedText = options.algorithms.join(', ');
  }

  verify(token: DecodedToken): Verified | Promise<Verified> {
    const { keys } = this;
    if (keys === undefined) {
      const notConfigured = 'Key-set path is not configured on this deployment';
      throw new DualAuthError(
        'ERR_JWKS_NOT_CONFIGURED',
        `${notConfigured}; only service tokens are accepted`,
        PATH,
        `${notConfigured} (${this.options.names.jwksUri} is not set); only requests with ` +
          `"Request-Origin: ${this.options.origin}" and an API-secret token are accepted`,
      );
    }
    const { alg } = token.header;
    const kid = own(token.header, 'kid');
    const verifier = this.verifiers.get(alg);
    if (verifier === undefined) throw this.algorithmRefused(alg);
    if (typeof kid !== 'string' || kid === '') {
      throw new DualAuthError('ERR_KID_MISSING', 'Token header has no "kid": the key-set path needs it to choose a key from the JWKS', PATH);
    }
    const key = keys.getKey(kid);
    if (key instanceof Promise) return key.then((loaded) => this.check(token, verifier, kid, loaded));
    return this.check(token, verifier, kid, key);
  }

  private check(token: DecodedToken, verifier: TokenVerifier, kid: string, key: KeyObject): Verified {
    const alg = token.header.alg as KeySetAlgorithm;
    if (!keyFitsAlgorithm(alg, key)) {
      throw new DualAuthError('ERR_ALG_NOT_ALLOWED', `Key ${quote(kid)} of the JWKS cannot verify ${alg} tokens`, PATH);
    }
    const facts = keyFactsOf(key);
    // One key, one algorithm: a JWK that names its algorithm verifies tokens of that one only.
    if (facts?.alg !== undefined && facts.alg !== alg) {
      throw new DualAuthError('ERR_ALG_NOT_ALLOWED', `Key ${quote(kid)} of the JWKS is for ${quote(facts.alg)} only, not ${alg}`, PATH);
    }
    const { payload, refusedFrom } = verifier.verify(token, key, this.clock());
    return { context: this.contextOf(payload), payload, kid, key: facts?.thumbprint, refusedFrom };
  }

  /** With a claims namespace, the security context is that claim of the payload, as with Cube's own setting. */
  private contextOf(payload: Record<string, unknown>): Record<string, unknown> {
    const { claimsNamespace } = this.options;
    if (claimsNamespace === undefined) return payload;
    const claim = own(payload, claimsNamespace);
    if (typeof claim !== 'object' || claim === null || Array.isArray(claim)) {
      const { claimsNamespace: variable } = this.options.names;
      throw new DualAuthError(
        'ERR_SECURITY_CONTEXT_INVALID',
        'The claim that holds the security context is missing from the token or is not an object',
        PATH,
        `Claim "${claimsNamespace}" (${variable}) is missing from the token or is not an object`,
      );
    }
    return claim as Record<string, unknown>;
  }

  private algorithmRefused(alg: string): DualAuthError {
    const refused = `Algorithm ${quote(alg)} is not accepted on the key-set path`;
    const symmetric = /^HS/i.test(alg);
    return new DualAuthError(
      'ERR_ALG_NOT_ALLOWED',
      symmetric ? `${refused}: a token signed with the API secret needs the service's Request-Origin header` : refused,
      PATH,
      `${refused} (${this.allowedText} only)${symmetric ? `: a token signed with the API secret needs the header "Request-Origin: ${this.options.origin}"` : ''}`,
    );
  }
}

function invalidSignature(token: DecodedToken): DualAuthError {
  const kid = quote(own(token.header, 'kid'));
  return new DualAuthError('ERR_SIGNATURE_INVALID', `Invalid signature: the token is not signed by key ${kid} of the JWKS`, PATH);
}
