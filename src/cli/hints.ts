/** One-line fixes for each rejection code, as `verify` prints them under the rejection message. */
import { ENV } from '../config/env';
import type { AuthPath, RejectionCode } from '../errors';
import { SECRET_ADVICE } from '../config/secret-strength';

/** The code table is a `Record` over every code, so adding a code without a hint fails to compile. */
function hints(origin: string): Record<RejectionCode, string | Record<AuthPath, string>> {
  return {
    ERR_TOKEN_MISSING: 'Pass the token itself: cube-dual-auth verify <token> (or - to read it from standard input).',
    ERR_TOKEN_MALFORMED:
      'Pass the compact JWT (header.payload.signature) without quotes, spaces or line breaks; a "Bearer " prefix is fine.',
    ERR_PAYLOAD_NOT_OBJECT: "The token's payload must be a JSON object of claims: fix whatever issues the token.",
    ERR_ALG_NOT_ALLOWED: {
      'key-set': `If this is a service token (HS256), send it with "Request-Origin: ${origin}" (--origin); an HS256 token without that header is most likely the service's Cube Core connection (docs/embeddable.md); if the identity provider signs with another algorithm, add it to ${ENV.algorithms}.`,
      'shared-secret': `Only HS256 tokens signed with the API secret use "Request-Origin: ${origin}": send identity-provider tokens without that header (--no-origin).`,
    },
    ERR_ISSUER_UNKNOWN: `The token's "iss" must be exactly the issuer of one of the identity providers in ${ENV.providers}: add its provider there, or use a token of a configured one.`,
    ERR_KID_MISSING:
      'The identity provider must name its signing key ("kid") in the token header; if this is a service token, send it with --origin.',
    ERR_KID_UNKNOWN: `Check that the JWKS (${ENV.jwksUri}, or the one discovered for this token's issuer) is the issuer's; after a key rotation the new key is picked up on the next JWKS refresh.`,
    ERR_SIGNATURE_INVALID: {
      'shared-secret': `${ENV.apiSecret} must be the secret the service signs with; during a rotation, list both in ${ENV.apiSecrets} (comma-separated), which replaces it.`,
      'key-set': `The token was not signed by that key of ${ENV.jwksUri}: it comes from another identity provider or tenant, or was altered.`,
    },
    ERR_TOKEN_EXPIRED: `Get a fresh token; if the clocks of issuer and server differ, sync them (NTP) or raise ${ENV.clockTolerance}.`,
    ERR_TOKEN_NOT_YET_VALID: `The issuer's clock is ahead of this machine's: sync the clocks (NTP) or raise ${ENV.clockTolerance}.`,
    ERR_TOKEN_TOO_OLD: `Get a fresh token, or raise ${ENV.maxTokenAge} if tokens are meant to live longer.`,
    ERR_CLAIM_INVALID:
      'exp, nbf and iat must be numbers of seconds since 1970 (and iat is required when a maximum token age is set).',
    ERR_AUDIENCE_MISMATCH: `Request a token for this API from the identity provider, or add its audience to ${ENV.audience}.`,
    ERR_ISSUER_MISMATCH: `${ENV.issuer} must equal the token's "iss" exactly (scheme and trailing slash included).`,
    ERR_SUBJECT_MISMATCH: `${ENV.subject} restricts the key-set path to one subject: unset it or use a token for that subject.`,
    ERR_SECURITY_CONTEXT_INVALID: `Check that ${ENV.claimsNamespace} names a claim of the token whose value is an object.`,
    ERR_SECURITY_CONTEXT_TIMEOUT: `The securityContext function did not settle in time: make it answer, or raise ${ENV.securityContextTimeoutMs}.`,
    ERR_CLAIM_MISSING: `Issue tokens with every claim of ${ENV.requiredClaims}, or remove the claim from that list.`,
    ERR_TENANT_MISSING: {
      'shared-secret': `Put the tenant in the security context the service signs, under the claim ${ENV.tenantClaim} names.`,
      'key-set': `Have the identity provider put the tenant in the claim ${ENV.tenantClaim} (or the provider's "tenantClaim") names.`,
    },
    ERR_TENANT_INVALID: 'The tenant claim must hold the tenant as a non-empty string: fix whatever issues the token.',
    ERR_GROUPS_INVALID: `The groups claim (${ENV.serviceGroupsClaim} for service tokens, ${ENV.groupsClaim} for identity-provider tokens) must hold a group name or a list of them, and none that ${ENV.serviceGroups} or a provider's "groups" gives.`,
    ERR_CLAIM_FORMAT: `The tenant or groups claim must be written as its declared format says (${ENV.tenantClaimFormat}, ${ENV.groupsClaimFormat} or a provider's "tenantClaimFormat", "groupsClaimFormat"): array, json or space. Fix the format to what the identity provider sends.`,
    ERR_FORBIDDEN:
      'Your own code (queryRewrite or a securityContext function) refused the request with forbidden(): see its message.',
    ERR_SHARED_SECRET_NOT_CONFIGURED: `Set ${ENV.apiSecret} to the secret shared with the service: ${SECRET_ADVICE}.`,
    ERR_JWKS_NOT_CONFIGURED: `Set ${ENV.jwksUri} to the identity provider's JWKS URL, or ${ENV.issuer} to its issuer URL to discover it; if this is a service token, send it with --origin.`,
    ERR_JWKS_UNREACHABLE: `Check the identity provider's URL (${ENV.jwksUri}, or its issuer when discovered) and that this host can reach it (DNS, firewall, proxy); cube-dual-auth doctor tests it.`,
    ERR_JWKS_TIMEOUT: `The identity provider answered too slowly: check the network path, or raise ${ENV.jwksTimeoutMs}.`,
    ERR_JWKS_INVALID: `${ENV.jwksUri} must answer a JWKS ({"keys": [...]}) with signing keys for ${ENV.algorithms} (an OIDC discovery URL is not one: set the issuer instead); a discovered issuer's document must name exactly that issuer and an http(s) jwks_uri.`,
    ERR_CONFIG_INVALID: 'Fix the environment variable named in the message; cube-dual-auth doctor checks all of them.',
    ERR_INTERNAL: 'The cause is printed on standard error: please report it as a bug of cube-dual-auth.',
    ERR_SECRET_REMOVED:
      'The SQL key secret that signed this session was removed: sign in with a key of a secret in force.',
    ERR_KEY_REMOVED:
      "The identity provider's key that signed this session left its key set: sign in with a fresh token.",
    ERR_PASSWORD_CHANGED: 'The static SQL password changed since this session signed in: sign in with the new one.',
  };
}

/** The fix for a rejection; `path` picks between the two paths' variants where they differ. */
export function hintFor(code: RejectionCode, path: AuthPath | undefined, origin: string): string {
  const hint = hints(origin)[code];
  return typeof hint === 'string' ? hint : hint[path ?? 'key-set'];
}

/** The fix for a SQL key given where a token belongs: whatever the code, the key is in the wrong place. */
export const SQL_KEY_HINT = `A SQL key signs in to the SQL API only: store it as a BI tool's password, with the user name it was made for; give the REST API, verify and sql-key a token of the identity provider.`;
