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

describe('tenantAndGroupsOf reads the claims in their declared formats', () => {
  // Cognito writes custom attributes as strings (a JSON list in one); Okta's access tokens list scopes in "scp" or,
  // as OAuth's "scope", one space-separated string.
  const FORMATS = authorizationOf({
    tenantClaim: 'custom:tenant',
    tenantClaimFormat: 'json',
    groupsClaimFormat: 'json',
    serviceGroups: ['embeddable'],
    providers: [
      { issuer: A, jwksUri: `${A}jwks`, groupsClaim: 'custom:groups' },
      {
        issuer: B,
        jwksUri: `${B}jwks`,
        groupsClaim: 'scope',
        groupsClaimFormat: 'space',
        tenantClaim: 'org',
        tenantClaimFormat: 'space',
      },
    ],
  });

  it.each<[string, Record<string, unknown>, number | undefined, AuthPath, { tenant: string; groups: string[] }]>([
    [
      'a Cognito token: JSON in strings',
      { 'custom:tenant': '"acme"', 'custom:groups': '["analyst","admin"]' },
      0,
      'key-set',
      { tenant: 'acme', groups: ['analyst', 'admin'] },
    ],
    [
      'a Cognito token with one group as a JSON string',
      { 'custom:tenant': '["acme"]', 'custom:groups': '"analyst"' },
      0,
      'key-set',
      { tenant: 'acme', groups: ['analyst'] },
    ],
    [
      'an Okta token: scopes space-separated, its own tenant format',
      { org: 'acme', scope: 'openid profile analyst', 'custom:groups': '["admin"]' },
      1,
      'key-set',
      { tenant: 'acme', groups: ['openid', 'profile', 'analyst'] },
    ],
    [
      'a service token, read by the top-level formats',
      { 'custom:tenant': '"acme"', roles: '["analyst"]' },
      undefined,
      'shared-secret',
      { tenant: 'acme', groups: ['analyst', 'embeddable'] },
    ],
    [
      'a JSON empty list: no groups of its own',
      { 'custom:tenant': '"acme"', 'custom:groups': '[]' },
      0,
      'key-set',
      { tenant: 'acme', groups: [] },
    ],
    ['an empty scope: no groups of its own', { org: 'acme', scope: ' ' }, 1, 'key-set', { tenant: 'acme', groups: [] }],
  ])('%s', (_, payload, index, path, expected) => {
    expect(tenantAndGroupsOf(FORMATS, verified(payload, index), path)).toEqual(expected);
  });

  it.each<[string, Record<string, unknown>, number | undefined, AuthPath, string, string]>([
    [
      'a list where json wants a string',
      { 'custom:tenant': '"acme"', 'custom:groups': ['analyst'] },
      0,
      'key-set',
      'The token\'s groups claim "custom:groups" is not in its declared format json: it is a list, not a string',
      'option "groupsClaimFormat"',
    ],
    [
      'a group name that is not JSON, never one odd group',
      { 'custom:tenant': '"acme"', 'custom:groups': 'analyst' },
      0,
      'key-set',
      'The token\'s groups claim "custom:groups" is not in its declared format json: it is not JSON',
      'option "groupsClaimFormat"',
    ],
    [
      'a JSON object',
      { 'custom:tenant': '"acme"', 'custom:groups': '{"analyst":true}' },
      0,
      'key-set',
      'The token\'s groups claim "custom:groups" is not in its declared format json: it is JSON that is neither a list nor a string',
      'option "groupsClaimFormat"',
    ],
    [
      'a tenant that is not JSON',
      { 'custom:tenant': 'acme', roles: ['analyst'] },
      undefined,
      'shared-secret',
      'The token\'s tenant claim "custom:tenant" is not in its declared format json: it is not JSON',
      'option "tenantClaimFormat"',
    ],
    [
      'a list where space wants a string',
      { org: 'acme', scope: ['openid', 'analyst'] },
      1,
      'key-set',
      'The token\'s groups claim "scope" is not in its declared format space: it is a list, not a string',
      'option "providers" (issuer "https://b.idp.example/") field "groupsClaimFormat"',
    ],
  ])(
    'refuses %s, ERR_CLAIM_FORMAT naming the claim and the setting, never the value',
    (_, payload, index, path, message, option) => {
      const error = refusal(FORMATS, payload, path, index);
      expect(error).toMatchObject({
        status: 403,
        code: 'ERR_CLAIM_FORMAT',
        path,
        message,
        detail: `${message} (${option})`,
      });
    },
  );

  it('refuses a text over the bound before parsing it', () => {
    const payload = { 'custom:tenant': '"acme"', 'custom:groups': JSON.stringify(Array(3000).fill('analyst')) };
    expect(refusal(FORMATS, payload, 'key-set', 0)).toMatchObject({
      code: 'ERR_CLAIM_FORMAT',
      message:
        'The token\'s groups claim "custom:groups" is not in its declared format json: it is longer than 8192 characters',
    });
  });

  it('checks what a format yields as any groups and tenant: names only, none reserved, one tenant', () => {
    expect(
      refusal(FORMATS, { 'custom:tenant': '"acme"', 'custom:groups': '["analyst", 7]' }, 'key-set', 0),
    ).toMatchObject({
      code: 'ERR_GROUPS_INVALID',
      message: 'The token\'s groups claim "custom:groups" must list non-empty group names only, not a number',
    });
    expect(refusal(FORMATS, { org: 'acme', scope: 'openid embeddable' }, 'key-set', 1)).toMatchObject({
      code: 'ERR_GROUPS_INVALID',
      message:
        'The token\'s groups claim "scope" names "embeddable", which this deployment gives by configuration only',
    });
    expect(refusal(FORMATS, { org: 'acme globex', scope: 'openid' }, 'key-set', 1)).toMatchObject({
      code: 'ERR_TENANT_INVALID',
      message: 'The token\'s tenant claim "org" must be a non-empty string, not a list',
    });
    expect(refusal(FORMATS, { 'custom:tenant': '""' }, 'shared-secret')).toMatchObject({ code: 'ERR_TENANT_INVALID' });
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
