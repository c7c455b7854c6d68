/**
 * The tenant and the groups of a verified token, read from the claims configured for its path (and identity
 * provider), and written into the security context as `tenant` and `groups`, where Cube's `contextToGroups`, access
 * policies, `contextToAppId` and `queryRewrite` read them the same way for both callers.
 */
import type { Authorization, ClaimRules } from '../config/authorization';
import { decodeClaim, decodeTenant, type ClaimFormat } from '../config/claim-format';
import { readClaim, type ClaimPointer } from '../config/claim-pointer';
import { DualAuthError, quote, type AuthPath } from '../errors';
import type { Verified } from './paths/path';

export interface TenantAndGroups {
  /** Undefined when the token's path (or provider) has no tenant claim configured. */
  readonly tenant: string | undefined;
  /** Distinct, the token's own (or the default ones) first, then the ones configuration gives. */
  readonly groups: readonly string[];
}

/** What a claim's value is, for a message: never the value itself. */
function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'string') return 'an empty string';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

/** Where a claim is and how it is written, for {@link decoded}. */
interface ClaimPlace {
  readonly claim: ClaimPointer;
  readonly format: ClaimFormat;
  readonly option: string;
  readonly what: 'tenant' | 'groups';
  readonly path: AuthPath;
}

/** A claim's value in its declared format; one not in it is refused whole, never read as one odd group or tenant. */
function decoded(value: unknown, { claim, format, option, what, path }: ClaimPlace): unknown {
  const result = (what === 'tenant' ? decodeTenant : decodeClaim)(value, format);
  if ('value' in result) return result.value;
  const message = `The token's ${what} claim ${JSON.stringify(claim.text)} is not in its declared format ${format}: it is ${result.problem}`;
  throw new DualAuthError('ERR_CLAIM_FORMAT', message, path, `${message} (${option})`);
}

function rulesFor(authorization: Authorization, verified: Verified, path: AuthPath): ClaimRules {
  if (path === 'shared-secret') return authorization.sharedSecret;
  // The key-set path always names the provider that verified the token; with one provider there is one entry.
  return authorization.keySet[verified.provider?.index ?? 0] as ClaimRules;
}

function claimedTenant(
  rules: ClaimRules,
  payload: Readonly<Record<string, unknown>>,
  path: AuthPath,
): string | undefined {
  const claim = rules.tenantClaim;
  if (claim === undefined) return undefined;
  const format = rules.tenantFormat;
  const name = JSON.stringify(claim.text);
  const found = readClaim(payload, claim);
  const value =
    found === undefined
      ? undefined
      : decoded(found, { claim, format, option: rules.tenantFormatOption, what: 'tenant', path });
  if (value === undefined) {
    // Refused, never answered for every tenant: a query without a tenant must not reach the data.
    const message = `The token has no tenant claim ${name}`;
    throw new DualAuthError(
      'ERR_TENANT_MISSING',
      message,
      path,
      `${message} (${rules.tenantOption}), so the request cannot be given a tenant`,
    );
  }
  if (typeof value !== 'string' || value.trim() === '') {
    const message = `The token's tenant claim ${name} must be a non-empty string, not ${kindOf(value)}`;
    throw new DualAuthError('ERR_TENANT_INVALID', message, path, `${message} (${rules.tenantOption})`);
  }
  return value;
}

/** The token's own groups: none when the claim is absent or an empty list. */
function ownGroups(
  rules: ClaimRules,
  authorization: Authorization,
  payload: Readonly<Record<string, unknown>>,
  path: AuthPath,
): readonly string[] {
  const claim = rules.groupsClaim;
  const found = readClaim(payload, claim);
  if (found === undefined) return [];
  const value = decoded(found, {
    claim,
    format: rules.groupsFormat,
    option: rules.groupsFormatOption,
    what: 'groups',
    path,
  });
  const name = JSON.stringify(claim.text);
  const refuse = (why: string): never => {
    const message = `The token's groups claim ${name} ${why}`;
    throw new DualAuthError('ERR_GROUPS_INVALID', message, path, `${message} (${rules.groupsOption})`);
  };
  const list = typeof value === 'string' ? [value] : value;
  if (!Array.isArray(list)) return refuse(`must be a group name or a list of group names, not ${kindOf(value)}`);
  for (const group of list) {
    if (typeof group !== 'string' || group.trim() === '')
      return refuse(`must list non-empty group names only, not ${kindOf(group)}`);
    // A group configuration gives one caller only (the service's, a provider's) would let this token pass for it.
    if (authorization.reserved.has(group))
      return refuse(`names ${quote(group)}, which this deployment gives by configuration only`);
  }
  return list as string[];
}

/**
 * Reads the tenant and the groups from a verified token's whole payload, own members only, before the namespace and
 * the `securityContext` function; throws the refusal when either is missing or malformed.
 */
export function tenantAndGroupsOf(authorization: Authorization, verified: Verified, path: AuthPath): TenantAndGroups {
  const rules = rulesFor(authorization, verified, path);
  const tenant = claimedTenant(rules, verified.payload, path);
  const own = ownGroups(rules, authorization, verified.payload, path);
  const groups = [...new Set([...(own.length > 0 ? own : authorization.defaultGroups), ...rules.fixedGroups])];
  return { tenant, groups };
}

/**
 * The security context with the hook's `tenant` and `groups` in place of any the token or the `securityContext`
 * function put there: only the configured claims decide them (no tenant claim on the path: no `tenant`).
 */
export function withTenantAndGroups(
  context: Record<string, unknown>,
  { tenant, groups }: TenantAndGroups,
): Record<string, unknown> {
  // A spread copies own members as JSON.parse made them (an own "__proto__" stays a member) and leaves the input alone.
  const result: Record<string, unknown> = { ...context, groups: [...groups] };
  if (tenant === undefined) delete result.tenant;
  else result.tenant = tenant;
  return result;
}
