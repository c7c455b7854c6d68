/** The key-set path's identity providers: one JWKS URL, one issuer to discover from, or several routed by `iss`. */
import type { KeySetAlgorithm } from '../algorithms';
import { DualAuthConfigError } from '../errors';
import type { ClaimFormat } from './claim-format';
import { discoverableIssuer } from './option-checks';

/** One identity provider of the `providers` option; a field left out inherits the top-level option of its name. */
export interface IdentityProviderOptions {
  /** The provider's issuer: a token whose `iss` is exactly this is verified with this provider's settings only. */
  issuer: string;
  /** Its JWKS URL. @default discovered from `issuer` (OpenID Connect Discovery, then RFC 8414 metadata) */
  jwksUri?: string;
  /** Required `aud` (any one of them). @default the top-level `audience` */
  audience?: string | readonly string[];
  /** Algorithms accepted from this provider, asymmetric only. @default the top-level `algorithms` */
  algorithms?: readonly KeySetAlgorithm[];
  /** Required `sub`. @default the top-level `subject` */
  subject?: string;
  /** The claim holding the context; `null` for the whole payload. @default the top-level `claimsNamespace` */
  claimsNamespace?: string | null;
  /** Where this provider's tokens carry the tenant (claim or JSON Pointer). @default the top-level `tenantClaim` */
  tenantClaim?: string;
  /** Where this provider's tokens list their groups. @default the top-level `groupsClaim` */
  groupsClaim?: string;
  /** Groups every token of this provider gets besides its own, to tell providers apart. @default none */
  groups?: string | readonly string[];
  /** How this provider's tokens write the tenant claim. @default the top-level `tenantClaimFormat` */
  tenantClaimFormat?: ClaimFormat;
  /** How this provider's tokens write the groups claim (Cognito: `json`). @default the top-level `groupsClaimFormat` */
  groupsClaimFormat?: ClaimFormat;
}

/** The checked options that decide the key-set path's identity providers (resolving the options hands them over). */
export interface ProviderSettings {
  readonly providers: readonly IdentityProviderOptions[] | undefined;
  readonly jwksUri: string | undefined;
  readonly issuer: readonly string[] | undefined;
  readonly audience: readonly string[] | undefined;
  readonly algorithms: readonly KeySetAlgorithm[];
  readonly subject: string | undefined;
  readonly claimsNamespace: string | undefined;
}

type ProviderOptionNames = Readonly<Record<'providers' | 'jwksUri' | 'issuer', string>>;

/** The settings a provider of `providers` inherits when it leaves them out, and the one provider always takes. */
type Inherited = Pick<ProviderSettings, 'audience' | 'algorithms' | 'subject' | 'claimsNamespace'>;

/** One identity provider with every setting it is verified by (inherited ones filled in). */
export interface IdentityProvider extends Inherited {
  /** The `iss` that routes tokens here (several providers), and the issuer discovered from without `jwksUri`. */
  readonly issuer: string | undefined;
  /** The configured JWKS URL; undefined when it is discovered from `issuer`. */
  readonly jwksUri: string | undefined;
  /** Accepted `iss` values (checked by jsonwebtoken), undefined when not checked. */
  readonly issuers: readonly string[] | undefined;
  /** Why a token goes to this provider, as `explain` and `cube-dual-auth verify` report it. */
  readonly reason: string;
}

function inherit(options: Inherited): Inherited {
  const { audience, algorithms, subject, claimsNamespace } = options;
  return { audience, algorithms, subject, claimsNamespace };
}

/** `providers` when given; else the one of `jwksUri`; else the one discovered from a single issuer URL; else none. */
export function identityProvidersOf(
  options: ProviderSettings,
  names: ProviderOptionNames,
): readonly IdentityProvider[] {
  const { providers, jwksUri, issuer } = options;
  if (providers !== undefined) {
    return providers.map((provider) => {
      const own = { ...inherit(options), ...definedFields(provider) };
      return {
        ...own,
        audience: typeof own.audience === 'string' ? [own.audience] : own.audience,
        claimsNamespace: own.claimsNamespace ?? undefined,
        issuer: provider.issuer,
        jwksUri: provider.jwksUri,
        issuers: [provider.issuer],
        reason: `its "iss" is the issuer of a configured identity provider (${names.providers})`,
      };
    });
  }
  if (jwksUri !== undefined) {
    return [
      {
        ...inherit(options),
        issuer: undefined,
        jwksUri,
        issuers: issuer,
        reason: `the one identity provider (${names.jwksUri})`,
      },
    ];
  }
  const only = issuer?.length === 1 ? issuer[0] : undefined;
  if (only === undefined || !/^https?:\/\//i.test(only)) return [];
  discoverableIssuer(only, (problem) => {
    throw new DualAuthConfigError(
      names.issuer,
      `${problem} (${names.jwksUri} is not set, so the JWKS URL is discovered from it)`,
    );
  });
  return [
    {
      ...inherit(options),
      issuer: only,
      jwksUri: undefined,
      issuers: [only],
      reason: `the one identity provider, discovered from ${names.issuer}`,
    },
  ];
}

/** A provider entry's own settings: a field left out (or undefined) inherits the top-level option. */
function definedFields<T extends object>(entry: T): Partial<T> {
  return Object.fromEntries(Object.entries(entry).filter(([, value]) => value !== undefined)) as Partial<T>;
}
