/**
 * The authorization step's lines: the claims each path reads, and an example token judged by the hook's own
 * functions (docs/cli-output.md#doctors-checks, `example-token`).
 */
import type { Authorization, ClaimRules } from '../../config/authorization';
import type { ClaimFormat } from '../../config/claim-format';
import { ENV } from '../../config/env';
import type { IdentityProvider } from '../../config/identity-providers';
import { DualAuthError, type AuthPath } from '../../errors';
import { providerByIssuer } from '../../hook/paths/key-set';
import { tenantAndGroupsOf } from '../../hook/tenant-and-groups';
import { decodeToken, type DecodedToken } from '../../hook/token';
import { check, type Check } from '../check';
import { listed, type ProjectModel } from '../cube-options';

/** Names and group lists as a message shows them: JSON strings, escaped (the operator's text, but a variable's). */
const quoted = (values: readonly string[]): string => values.map((value) => JSON.stringify(value)).join(', ');

/** One path's (or provider's) claims: where the tenant and the groups are read, and the groups configuration adds. */
function describeRules(rules: ClaimRules): string {
  // The default format goes unsaid; another is said with the claim it reads (docs/authorization.md#claim-formats).
  const format = (name: ClaimFormat, option: string): string =>
    name === 'array' ? '' : ` written as ${name} (${option})`;
  const tenant =
    rules.tenantClaim === undefined
      ? 'no tenant claim'
      : `tenant claim ${JSON.stringify(rules.tenantClaim.text)}${format(rules.tenantFormat, rules.tenantFormatOption)}`;
  const fixed = rules.fixedGroups.length === 0 ? '' : `, plus groups ${quoted(rules.fixedGroups)}`;
  const groups = `groups claim ${JSON.stringify(rules.groupsClaim.text)}${format(rules.groupsFormat, rules.groupsFormatOption)}`;
  return `${tenant}, ${groups}${fixed}`;
}

/** The authorization in force: off, or the claims read on each path (per identity provider) and the groups given. */
export function authorizationCheck(
  authorization: Authorization | undefined,
  providers: readonly IdentityProvider[],
  several: boolean,
): Check {
  if (authorization === undefined) {
    return check(
      'authorization',
      'ok',
      `off: none of ${ENV.tenantClaim}, ${ENV.serviceTenantClaim}, ${ENV.groupsClaim}, ${ENV.serviceGroupsClaim}, ${ENV.defaultGroups}, ${ENV.serviceGroups}, ${ENV.tenantClaimFormat}, ${ENV.groupsClaimFormat} (nor a provider's tenantClaim, groupsClaim, groups, tenantClaimFormat, groupsClaimFormat) is set, so the security context carries no tenant or groups of the hook's`,
    );
  }
  const keySet = several
    ? authorization.keySet.map(
        (rules, i) => `identity provider ${JSON.stringify(providers[i]?.issuer ?? '')}: ${describeRules(rules)}`,
      )
    : authorization.keySet.map((rules) => `identity-provider tokens: ${describeRules(rules)}`);
  const defaults =
    authorization.defaultGroups.length === 0
      ? 'no default groups'
      : `default groups ${quoted(authorization.defaultGroups)}`;
  return check(
    'authorization',
    'ok',
    `service tokens: ${describeRules(authorization.sharedSecret)}; ${keySet.join('; ')}; ${defaults}`,
  );
}

/** Said of every example token: what the judgement rests on. */
const NOT_VERIFIED = "judged from its decoded payload by the hook's own rules; signature and times not checked";

/**
 * Judged from the decoded payload, not verified, as an example may have expired; by the hook's own functions, so that
 * the verdict is the hook's. Never prints the token, nor any of its values but the issuer.
 */
export function exampleTokenCheck(
  token: string,
  authorization: Authorization | undefined,
  providers: readonly IdentityProvider[],
  several: boolean,
): Check {
  let decoded: DecodedToken;
  try {
    decoded = decodeToken(token);
  } catch (error) {
    return check(
      'example-token',
      'fail',
      `the example token is not one: ${error instanceof DualAuthError ? error.detail : String(error)}`,
    );
  }
  const path: AuthPath = decoded.header.alg === 'HS256' ? 'shared-secret' : 'key-set';
  const shared = path === 'shared-secret';
  const where = shared ? 'a service token (HS256, shared-secret path)' : 'an identity-provider token (key-set path)';
  const refused = (label: string, error: unknown): Check => {
    if (!(error instanceof DualAuthError)) throw error;
    return check('example-token', 'fail', `${label} is refused with ${error.code}: ${error.detail} (${NOT_VERIFIED})`);
  };
  if (!shared && providers.length === 0)
    return check(
      'example-token',
      'fail',
      `${where} is refused with ERR_JWKS_NOT_CONFIGURED: no identity provider is configured (${ENV.jwksUri}, ${ENV.providers})`,
    );
  let index = 0;
  try {
    if (!shared && several)
      index = providerByIssuer(new Map(providers.map((p, i) => [p.issuer as string, i])), decoded, ENV.providers);
  } catch (error) {
    return refused(where, error);
  }
  const provider = shared || !several ? undefined : providers[index];
  const named = provider === undefined ? where : `${where} of identity provider ${JSON.stringify(provider.issuer)}`;
  if (authorization === undefined)
    return check(
      'example-token',
      'ok',
      `${named}: authorization is off, so no tenant or groups are read (${NOT_VERIFIED})`,
    );
  const rules = shared ? authorization.sharedSecret : authorization.keySet[index];
  let groups: readonly string[];
  try {
    const verified = {
      context: decoded.payload,
      payload: decoded.payload,
      kid: undefined,
      refusedFrom: Infinity,
      ...(provider === undefined
        ? {}
        : { provider: { index, issuer: provider.issuer, jwksUri: provider.jwksUri, reason: provider.reason } }),
    };
    ({ groups } = tenantAndGroupsOf(authorization, verified, path));
  } catch (error) {
    return refused(named, error);
  }
  const tenant =
    rules?.tenantClaim === undefined
      ? 'no tenant claim is configured for it'
      : `carries the tenant claim ${JSON.stringify(rules.tenantClaim.text)} (${rules.tenantOption})`;
  const fixed =
    rules === undefined || rules.fixedGroups.length === 0
      ? ''
      : `, ${quoted(rules.fixedGroups)} given by configuration`;
  const count = `${groups.length} ${groups.length === 1 ? 'group' : 'groups'}`;
  return check(
    'example-token',
    'ok',
    `${named} passes the authorization step: ${tenant}; it gets ${count}${fixed} (${NOT_VERIFIED})`,
  );
}

/** The first Cube version that refuses an access policy keyed by `role` (cube-js/cube PR #11055). */
const ROLE_REMOVED = [1, 7] as const;

function removesRole(version: string): boolean {
  const [major = 0, minor = 0] = version.split('.').map(Number);
  return major > ROLE_REMOVED[0] || (major === ROLE_REMOVED[0] && minor >= ROLE_REMOVED[1]);
}

/**
 * `access-policies`: on Cube 1.7 and later a policy keyed by `role:` stops the model compiling (cube-js/cube issue
 * #11273), though the embedding service's handbook still shows it. Nothing on earlier lines (0.33 has no policies).
 */
export function accessPolicyCheck({ cubeVersion, model }: ProjectModel): Check | undefined {
  if (cubeVersion === undefined || !removesRole(cubeVersion) || model.kind !== 'read') return undefined;
  const files = model.rolePolicies;
  if (files.length === 0) return undefined;
  const keys = files.length === 1 ? 'keys' : 'key';
  return check(
    'access-policies',
    'fail',
    `${listed(files)} ${keys} an access policy by role:, which Cube ${cubeVersion} refuses to compile ("accessPolicy[0].role" is not allowed: Cube 1.7.0 removed role): key it by group: (or groups: for several), which Cube matches against what contextToGroups returns`,
  );
}
