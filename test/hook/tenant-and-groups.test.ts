import { describe, expect, it } from 'vitest';
import { resolveOptions, type DualAuthOptions } from '../../src/config/options';
import type { Authorization } from '../../src/config/authorization';
import type { AuthPath } from '../../src/errors';
import type { Verified } from '../../src/hook/paths/path';
import { tenantAndGroupsOf, withTenantAndGroups } from '../../src/hook/tenant-and-groups';
import { randomSecret } from '../support/claims';
import { refusalOf } from '../support/requests';

const SECRET = randomSecret();
const A = 'https://a.idp.example/';
const B = 'https://b.idp.example/';

function authorizationOf(options: DualAuthOptions): Authorization {
  const { authorization } = resolveOptions({ apiSecret: SECRET, ...options });
  if (authorization === undefined) throw new Error('expected authorization to be configured');
  return authorization;
}

const verified = (payload: Record<string, unknown>, index?: number): Verified => ({
  context: payload,
  payload,
  kid: undefined,
  refusedFrom: Infinity,
  ...(index !== undefined && { provider: { index, issuer: undefined, jwksUri: undefined, reason: 'test' } }),
});

const refusal = (authorization: Authorization, payload: Record<string, unknown>, path: AuthPath, index?: number) =>
  refusalOf(() => tenantAndGroupsOf(authorization, verified(payload, index), path));

/** Both callers as the README shows them: the service's roles and the IdP's nested roles, one tenant claim. */
const BOTH = authorizationOf({
  jwksUri: 'https://idp.example/jwks',
  tenantClaim: 'tenant_id',
  groupsClaim: '/realm_access/roles',
  serviceGroups: ['embeddable'],
  defaultGroups: ['viewer'],
});

describe('tenantAndGroupsOf: the same tenant and groups from both callers', () => {
  it("reads a service token's tenant and roles, and adds the service groups", () => {
    expect(tenantAndGroupsOf(BOTH, verified({ tenant_id: 'acme', roles: ['analyst'] }), 'shared-secret')).toEqual({
      tenant: 'acme',
      groups: ['analyst', 'embeddable'],
    });
  });

  it("reads an identity provider's token by its pointer; it gets no service group", () => {
    const payload = { tenant_id: 'acme', realm_access: { roles: ['analyst', 'admin', 'analyst'] } };
    expect(tenantAndGroupsOf(BOTH, verified(payload), 'key-set')).toEqual({
      tenant: 'acme',
      groups: ['analyst', 'admin'],
    });
  });

  it('gives the default groups to a token naming none (claim absent or an empty list), and takes one name as one group', () => {
    expect(tenantAndGroupsOf(BOTH, verified({ tenant_id: 'acme' }), 'shared-secret').groups).toEqual([
      'viewer',
      'embeddable',
    ]);
    expect(
      tenantAndGroupsOf(BOTH, verified({ tenant_id: 'acme', realm_access: { roles: [] } }), 'key-set').groups,
    ).toEqual(['viewer']);
    expect(tenantAndGroupsOf(BOTH, verified({ tenant_id: 'acme', roles: 'analyst' }), 'shared-secret').groups).toEqual([
      'analyst',
      'embeddable',
    ]);
  });

  it('reads only the configured claims: a service token carrying "groups" or "tenant" gains nothing from them', () => {
    const payload = { tenant_id: 'acme', tenant: 'other', groups: ['admin'], realm_access: { roles: ['admin'] } };
    expect(tenantAndGroupsOf(BOTH, verified(payload), 'shared-secret')).toEqual({
      tenant: 'acme',
      groups: ['viewer', 'embeddable'],
    });
  });

  it('has no tenant and only groups when no tenant claim is configured', () => {
    const groupsOnly = authorizationOf({ serviceGroups: ['embeddable'] });
    expect(tenantAndGroupsOf(groupsOnly, verified({ tenant: 'forged', roles: ['a'] }), 'shared-secret')).toEqual({
      tenant: undefined,
      groups: ['a', 'embeddable'],
    });
  });

  it("reads each identity provider's own claims and adds its groups", () => {
    const several = authorizationOf({
      tenantClaim: 'org',
      providers: [
        { issuer: A, jwksUri: `${A}jwks`, groupsClaim: '/https:~1~1a.example~1roles', groups: ['workforce'] },
        { issuer: B, jwksUri: `${B}jwks`, tenantClaim: '/customer/id' },
      ],
    });
    expect(
      tenantAndGroupsOf(several, verified({ org: 'acme', 'https://a.example/roles': ['hr'] }, 0), 'key-set'),
    ).toEqual({ tenant: 'acme', groups: ['hr', 'workforce'] });
    expect(
      tenantAndGroupsOf(
        several,
        verified({ org: 'ignored', customer: { id: 'c-1' }, groups: ['buyer'] }, 1),
        'key-set',
      ),
    ).toEqual({ tenant: 'c-1', groups: ['buyer'] });
  });
});

describe('tenantAndGroupsOf refuses, 403 with a stable code naming the claim, never a query over every tenant', () => {
  it('without the tenant claim', () => {
    expect(refusal(BOTH, { roles: ['analyst'], tenant: 'acme' }, 'shared-secret')).toMatchObject({
      status: 403,
      code: 'ERR_TENANT_MISSING',
      path: 'shared-secret',
      message: 'The token has no tenant claim "tenant_id"',
      detail:
        'The token has no tenant claim "tenant_id" (option "tenantClaim"), so the request cannot be given a tenant',
    });
  });

  it.each<[unknown, string]>([
    [42, 'a number'],
    ['', 'an empty string'],
    ['  ', 'an empty string'],
    [null, 'null'],
    [['acme'], 'a list'],
    [{ id: 'acme' }, 'an object'],
    [true, 'a boolean'],
  ])('with a tenant of %j', (tenant, kind) => {
    expect(refusal(BOTH, { tenant_id: tenant }, 'key-set')).toMatchObject({
      status: 403,
      code: 'ERR_TENANT_INVALID',
      path: 'key-set',
      message: `The token's tenant claim "tenant_id" must be a non-empty string, not ${kind}`,
    });
  });

  it.each<[unknown, string]>([
    [42, 'must be a group name or a list of group names, not a number'],
    [null, 'must be a group name or a list of group names, not null'],
    [{ admin: true }, 'must be a group name or a list of group names, not an object'],
    [['analyst', 7], 'must list non-empty group names only, not a number'],
    [['analyst', ''], 'must list non-empty group names only, not an empty string'],
    [['analyst', ['admin']], 'must list non-empty group names only, not a list'],
  ])('with groups of %j', (roles, why) => {
    expect(refusal(BOTH, { tenant_id: 'acme', roles }, 'shared-secret')).toMatchObject({
      status: 403,
      code: 'ERR_GROUPS_INVALID',
      message: `The token's groups claim "roles" ${why}`,
      detail: `The token's groups claim "roles" ${why} (option "serviceGroupsClaim")`,
    });
  });

  it("when a token's own groups name one that configuration gives: no token passes for the service", () => {
    const error = refusal(BOTH, { tenant_id: 'acme', realm_access: { roles: ['analyst', 'embeddable'] } }, 'key-set');
    expect(error).toMatchObject({
      code: 'ERR_GROUPS_INVALID',
      message:
        'The token\'s groups claim "/realm_access/roles" names "embeddable", which this deployment gives by configuration only',
    });
  });
});

describe('withTenantAndGroups', () => {
  it("puts the hook's tenant and groups in place of the context's own, leaving the input alone", () => {
    const context = JSON.parse(
      '{"tenant": "forged", "groups": ["admin"], "region": "eu", "__proto__": {"x": 1}}',
    ) as Record<string, unknown>;
    const result = withTenantAndGroups(context, { tenant: 'acme', groups: ['analyst'] });
    expect(result).toEqual({ tenant: 'acme', groups: ['analyst'], region: 'eu', ['__proto__']: { x: 1 } });
    expect(Object.getPrototypeOf(result)).toBe(Object.prototype);
    expect(context.tenant).toBe('forged');
  });

  it('leaves no tenant at all when the path has no tenant claim', () => {
    expect(withTenantAndGroups({ tenant: 'forged', a: 1 }, { tenant: undefined, groups: [] })).toEqual({
      a: 1,
      groups: [],
    });
  });
});
