import type { KeyObject } from 'node:crypto';
import { claimPolicy } from '../claims';
import { keyFactsOf, type KeyMisfit } from '../../keys/key-facts';
import type { ResolvedOptions } from '../../config/options';
import { DualAuthError, quote } from '../../errors';
import { own, ownValue, type DecodedToken } from '../token';
import { TokenVerifier } from '../verification';
import type { IdentityProvider } from '../../config/identity-providers';
import type { ProviderChoice, Verified, VerificationPath } from './path';

const PATH = 'key-set';

/** Where the key-set path gets one identity provider's public keys: its key store, keyed by `kid` only. */
interface KeySource {
  getKey(kid: string): KeyObject | Promise<KeyObject>;
}

/** An identity provider with the keys it verifies with. */
interface ProviderKeys {
  readonly provider: IdentityProvider;
  readonly keys: KeySource;
}

/** One provider as the path uses it: its verifiers made once. */
interface Route {
  readonly provider: IdentityProvider;
  readonly keys: KeySource;
  /** One verifier per allowed algorithm: the token's algorithm is pinned for jsonwebtoken. */
  readonly verifiers: ReadonlyMap<string, TokenVerifier>;
  readonly choice: ProviderChoice;
}

/**
 * With several identity providers, the one (here, what `byIssuer` keeps for it) whose issuer is exactly the token's
 * `iss`, read before verification; the `iss` is then verified against that provider's issuer like any other claim.
 * Throws `ERR_ISSUER_UNKNOWN` naming the configured issuers and `providersName`, their variable. Used by `doctor` too.
 */
export function providerByIssuer<T>(byIssuer: ReadonlyMap<string, T>, token: DecodedToken, providersName: string): T {
  const iss = own(token.payload, 'iss');
  const route = typeof iss === 'string' ? byIssuer.get(iss) : undefined;
  if (route !== undefined) return route;
  const issuers = [...byIssuer.keys()].map((issuer) => JSON.stringify(issuer)).join(', ');
  const configured = `configured issuers: ${issuers} (${providersName})`;
  if (iss === undefined) {
    const none = 'Token has no "iss" claim: this deployment chooses the identity provider by it';
    throw new DualAuthError('ERR_ISSUER_UNKNOWN', none, PATH, `${none}; ${configured}`);
  }
  const unknown = `Token issuer ${quote(iss)} is not an identity provider of this deployment`;
  throw new DualAuthError('ERR_ISSUER_UNKNOWN', unknown, PATH, `${unknown}; ${configured}`);
}

/**
 * The key-set path: tokens of the customer's identity providers, verified with a public key from the provider's
 * JWKS, chosen by `kid`. With several providers, the token's `iss` chooses the provider first, and its `kid` is
 * looked up among that provider's keys only. Asymmetric algorithms only; `jku`, `x5u`, `jwk` and `x5c` in the
 * header are never read, so a token cannot choose where its key comes from.
 */
export class KeySetPath implements VerificationPath {
  private readonly routes: readonly Route[];
  /** With several providers, by issuer; undefined when there is one (or none) and `iss` routes nothing. */
  private readonly byIssuer: ReadonlyMap<string, Route> | undefined;
  /** Every algorithm some provider accepts: anything else is refused before routing. */
  private readonly algorithms: ReadonlySet<string>;

  constructor(
    private readonly options: ResolvedOptions,
    providers: readonly ProviderKeys[],
    private readonly clock: () => number,
  ) {
    this.routes = providers.map(({ provider, keys }, index) => {
      const policy = claimPolicy(options, provider);
      const verifiers = new Map(
        provider.algorithms.map((alg) => [alg, new TokenVerifier(alg, policy, invalidSignature, misfitKey)]),
      );
      const choice: ProviderChoice = {
        index,
        issuer: provider.issuer,
        jwksUri: provider.jwksUri,
        reason: provider.reason,
      };
      return { provider, keys, verifiers, choice };
    });
    this.byIssuer =
      options.providers === undefined
        ? undefined
        : new Map(this.routes.map((route) => [route.provider.issuer as string, route]));
    this.algorithms = new Set(this.routes.flatMap((route) => route.provider.algorithms));
  }

  verify(token: DecodedToken, now: number): Verified | Promise<Verified> {
    const { header } = token;
    const { alg } = header;
    const kid = ownValue(header, 'kid', header.kid);
    if (this.routes.length === 0) throw this.notConfigured();
    if (!this.algorithms.has(alg)) throw this.algorithmRefused(alg, [...this.algorithms]);
    const route = this.routeOf(token);
    const verifier = route.verifiers.get(alg);
    if (verifier === undefined) throw this.algorithmRefused(alg, route.provider.algorithms, route.provider.issuer);
    if (typeof kid !== 'string' || kid === '') {
      throw new DualAuthError(
        'ERR_KID_MISSING',
        'Token header has no "kid": the key-set path needs it to choose a key from the JWKS',
        PATH,
      );
    }
    const key = route.keys.getKey(kid);
    if (key instanceof Promise)
      return key.then((loaded) => this.check(token, route, verifier, kid, loaded, this.clock()));
    return this.check(token, route, verifier, kid, key, now);
  }

  /**
   * The provider of a token: the only one, or with several the one whose issuer is exactly the token's `iss`, read
   * before verification; the `iss` is then verified against that provider's issuer like any other claim.
   */
  private routeOf(token: DecodedToken): Route {
    const { byIssuer } = this;
    if (byIssuer === undefined) return this.routes[0] as Route;
    return providerByIssuer(byIssuer, token, this.options.names.providers);
  }

  /** The provider a token goes to, for reports of refused tokens; undefined when none. Never throws. */
  providerFor(token: DecodedToken): ProviderChoice | undefined {
    try {
      return this.routes.length === 0 ? undefined : this.routeOf(token).choice;
    } catch {
      return undefined;
    }
  }

  private notConfigured(): DualAuthError {
    const { names, origin } = this.options;
    const notConfigured = 'Key-set path is not configured on this deployment';
    return new DualAuthError(
      'ERR_JWKS_NOT_CONFIGURED',
      `${notConfigured}; only service tokens are accepted`,
      PATH,
      `${notConfigured} (${names.jwksUri} is not set, nor ${names.providers}, nor one issuer URL in ${names.issuer} to discover it from); only requests with "Request-Origin: ${origin}" and an API-secret token are accepted`,
    );
  }

  private check(
    token: DecodedToken,
    route: Route,
    verifier: TokenVerifier,
    kid: string,
    key: KeyObject,
    now: number,
  ): Verified {
    const { payload, refusedFrom } = verifier.verify(token, key, now);
    const { claimsNamespace } = route.provider;
    const thumbprint = keyFactsOf(key)?.thumbprint;
    return {
      context: this.contextOf(payload, claimsNamespace),
      payload,
      kid,
      thumbprint,
      refusedFrom,
      provider: route.choice,
      claimsNamespace,
    };
  }

  /** With a claims namespace, the security context is that claim of the payload, as with Cube's own setting. */
  private contextOf(payload: Record<string, unknown>, claimsNamespace: string | undefined): Record<string, unknown> {
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

  private algorithmRefused(alg: string, allowed: readonly string[], issuer?: string): DualAuthError {
    const refused = `Algorithm ${quote(alg)} is not accepted on the key-set path`;
    const symmetric = /^HS/i.test(alg);
    const from = issuer === undefined ? '' : ` from issuer ${JSON.stringify(issuer)}`;
    return new DualAuthError(
      'ERR_ALG_NOT_ALLOWED',
      symmetric
        ? `${refused}: a token signed with the API secret needs the service's Request-Origin header`
        : `${refused}${from && ' from this issuer'}`,
      PATH,
      symmetric
        ? `${refused}${from} (${allowed.join(', ')} only): a token signed with the API secret needs the header "Request-Origin: ${this.options.origin}"`
        : `${refused}${from} (${allowed.join(', ')} only)`,
    );
  }
}

function invalidSignature(token: DecodedToken): DualAuthError {
  const kid = quote(own(token.header, 'kid'));
  return new DualAuthError(
    'ERR_SIGNATURE_INVALID',
    `Invalid signature: the token is not signed by key ${kid} of the JWKS`,
    PATH,
  );
}

function misfitKey(token: DecodedToken, misfit: KeyMisfit): DualAuthError {
  const kid = quote(own(token.header, 'kid'));
  const { alg } = token.header;
  // One key, one algorithm: a JWK that names its algorithm verifies tokens of that one only.
  const why = misfit.kind === 'bound' ? `is for ${quote(misfit.alg)} only, not ${alg}` : `cannot verify ${alg} tokens`;
  return new DualAuthError('ERR_ALG_NOT_ALLOWED', `Key ${kid} of the JWKS ${why}`, PATH);
}
