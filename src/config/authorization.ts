/**
 * Authorization, settled once at start for both callers
 * (docs/authorization.md#one-tenant-and-one-set-of-groups-from-both-callers).
 */
import { DualAuthConfigError } from '../errors';
import type { ClaimFormat } from './claim-format';
import { claimPointer, type ClaimPointer } from './claim-pointer';
import type { Fail } from './option-checks';

/** How one path (or one identity provider of the key-set path) reads the tenant and the groups. */
export interface ClaimRules {
  /** Where the tenant is; undefined when these tokens carry none. */
  readonly tenantClaim: ClaimPointer | undefined;
  readonly groupsClaim: ClaimPointer;
  /** Groups every token here gets, whatever it says (`serviceGroups`, or a provider's `groups`). */
  readonly fixedGroups: readonly string[];
  readonly tenantOption: string;
  readonly groupsOption: string;
  /** How the tenant and the groups claims are written (docs/authorization.md#claim-formats), and which option says. */
  readonly tenantFormat: ClaimFormat;
  readonly groupsFormat: ClaimFormat;
  readonly tenantFormatOption: string;
  readonly groupsFormatOption: string;
}

/** The authorization in force; absent from the resolved options when none of its options is set. */
export interface Authorization {
  readonly sharedSecret: ClaimRules;
  /** The key-set path's rules, by identity provider (the same order; one entry without `providers`). */
  readonly keySet: readonly ClaimRules[];
  /** Groups of a token that names none. */
  readonly defaultGroups: readonly string[];
  /** Groups only configuration gives: a token naming one is refused, so none passes for another caller. */
  readonly reserved: ReadonlySet<string>;
  /** True when some path reads a tenant: what the tenant's exports for cube.js need. */
  readonly tenant: boolean;
}

/** The options read here, as checked by the options table (claims as configured, group lists as lists). */
export interface AuthorizationSettings {
  readonly tenantClaim: string | undefined;
  readonly serviceTenantClaim: string | undefined;
  readonly groupsClaim: string;
  readonly serviceGroupsClaim: string;
  readonly defaultGroups: readonly string[] | undefined;
  readonly serviceGroups: readonly string[] | undefined;
  readonly tenantClaimFormat: ClaimFormat;
  readonly groupsClaimFormat: ClaimFormat;
  readonly providers: readonly ProviderClaims[] | undefined;
}

/** What a `providers` entry says of the claims. */
interface ProviderClaims {
  readonly issuer: string;
  readonly tenantClaim?: string;
  readonly groupsClaim?: string;
  readonly groups?: readonly string[];
  readonly tenantClaimFormat?: ClaimFormat;
  readonly groupsClaimFormat?: ClaimFormat;
}

type Names = Readonly<
  Record<
    | 'tenantClaim'
    | 'serviceTenantClaim'
    | 'groupsClaim'
    | 'serviceGroupsClaim'
    | 'defaultGroups'
    | 'serviceGroups'
    | 'tenantClaimFormat'
    | 'groupsClaimFormat'
    | 'providers',
    string
  >
>;

/** The options that turn authorization on, each by being set; the claims' defaults alone do not. */
const AUTHORIZATION_OPTIONS = [
  'tenantClaim',
  'serviceTenantClaim',
  'groupsClaim',
  'serviceGroupsClaim',
  'defaultGroups',
  'serviceGroups',
  'tenantClaimFormat',
  'groupsClaimFormat',
] as const;

/** The fields of a `providers` entry that turn authorization on. */
const PROVIDER_AUTHORIZATION_FIELDS = [
  'tenantClaim',
  'groupsClaim',
  'groups',
  'tenantClaimFormat',
  'groupsClaimFormat',
] as const;

/** A list of groups as an option gives it: one group, or a list of them (empty: none); duplicates count once. */
export function groupList(value: unknown, fail: Fail): readonly string[] {
  const list = typeof value === 'string' ? [value] : value;
  if (!Array.isArray(list)) fail('must be a group name or a list of group names');
  for (const group of list)
    if (typeof group !== 'string' || group.trim() === '') fail('must list non-empty group names only');
  return [...new Set(list as string[])];
}

const parseClaim = (text: string, option: string): ClaimPointer =>
  claimPointer(text, (problem) => {
    throw new DualAuthConfigError(option, problem);
  });

/** The key-set path's rules: one entry of the top-level options, or one per provider, its own fields first. */
function keySetRules(
  settings: AuthorizationSettings,
  tenantClaim: ClaimPointer | undefined,
  names: Names,
): ClaimRules[] {
  const groupsClaim = parseClaim(settings.groupsClaim, names.groupsClaim);
  const topLevel: ClaimRules = {
    tenantClaim,
    groupsClaim,
    fixedGroups: [],
    tenantOption: names.tenantClaim,
    groupsOption: names.groupsClaim,
    tenantFormat: settings.tenantClaimFormat,
    groupsFormat: settings.groupsClaimFormat,
    tenantFormatOption: names.tenantClaimFormat,
    groupsFormatOption: names.groupsClaimFormat,
  };
  const providers = settings.providers ?? [];
  if (providers.length === 0) return [topLevel];
  return providers.map((provider) => {
    const field = (name: string): string =>
      `${names.providers} (issuer ${JSON.stringify(provider.issuer)}) field "${name}"`;
    const own = (key: keyof ProviderClaims): boolean => provider[key] !== undefined;
    const rules: ClaimRules = {
      tenantClaim: own('tenantClaim') ? parseClaim(provider.tenantClaim as string, field('tenantClaim')) : tenantClaim,
      groupsClaim: own('groupsClaim') ? parseClaim(provider.groupsClaim as string, field('groupsClaim')) : groupsClaim,
      fixedGroups: provider.groups ?? [],
      tenantOption: own('tenantClaim') ? field('tenantClaim') : topLevel.tenantOption,
      groupsOption: own('groupsClaim') ? field('groupsClaim') : topLevel.groupsOption,
      tenantFormat: provider.tenantClaimFormat ?? topLevel.tenantFormat,
      groupsFormat: provider.groupsClaimFormat ?? topLevel.groupsFormat,
      tenantFormatOption: own('tenantClaimFormat') ? field('tenantClaimFormat') : topLevel.tenantFormatOption,
      groupsFormatOption: own('groupsClaimFormat') ? field('groupsClaimFormat') : topLevel.groupsFormatOption,
    };
    // A format for a tenant no claim reads is a setting that does nothing: most likely a tenant claim left out.
    if (own('tenantClaimFormat') && rules.tenantClaim === undefined)
      throw new DualAuthConfigError(
        field('tenantClaimFormat'),
        `is set, but this provider's tokens carry no tenant claim (${names.tenantClaim} or its "tenantClaim")`,
      );
    return rules;
  });
}

/** The authorization of the options; `given` (before defaults) alone says whether it was asked for. */
export function authorizationOf(
  given: Readonly<Record<string, unknown>>,
  settings: AuthorizationSettings,
  names: Names,
): Authorization | undefined {
  const providers = settings.providers ?? [];
  const asked =
    AUTHORIZATION_OPTIONS.some((key) => given[key] !== undefined) ||
    providers.some((provider) => PROVIDER_AUTHORIZATION_FIELDS.some((field) => provider[field] !== undefined));
  if (!asked) return undefined;
  const tenantClaim =
    settings.tenantClaim === undefined ? undefined : parseClaim(settings.tenantClaim, names.tenantClaim);
  const keySet = keySetRules(settings, tenantClaim, names);
  const serviceGroups = settings.serviceGroups ?? [];
  const reserved = new Set([...serviceGroups, ...keySet.flatMap((rules) => rules.fixedGroups)]);
  const defaultGroups = settings.defaultGroups ?? [];
  const taken = defaultGroups.find((group) => reserved.has(group));
  if (taken !== undefined) {
    throw new DualAuthConfigError(
      names.defaultGroups,
      `holds ${JSON.stringify(taken)}, a group configuration gives to one caller only (${names.serviceGroups} or a provider's "groups"): every token naming no group would get it`,
    );
  }
  const sharedSecret: ClaimRules = {
    tenantClaim:
      settings.serviceTenantClaim === undefined
        ? tenantClaim
        : parseClaim(settings.serviceTenantClaim, names.serviceTenantClaim),
    groupsClaim: parseClaim(settings.serviceGroupsClaim, names.serviceGroupsClaim),
    fixedGroups: serviceGroups,
    tenantOption: settings.serviceTenantClaim === undefined ? names.tenantClaim : names.serviceTenantClaim,
    groupsOption: names.serviceGroupsClaim,
    tenantFormat: settings.tenantClaimFormat,
    groupsFormat: settings.groupsClaimFormat,
    tenantFormatOption: names.tenantClaimFormat,
    groupsFormatOption: names.groupsClaimFormat,
  };
  const tenant = [sharedSecret, ...keySet].some((rules) => rules.tenantClaim !== undefined);
  if (given.tenantClaimFormat !== undefined && !tenant)
    throw new DualAuthConfigError(
      names.tenantClaimFormat,
      `is set, but no token carries a tenant claim (${names.tenantClaim}, ${names.serviceTenantClaim} or a provider's "tenantClaim")`,
    );
  return { sharedSecret, keySet, defaultGroups, reserved, tenant };
}
