import { describe, expect, it } from 'vitest';
import { ENV_NAMES } from '../../src/config/option-table';
import type { DualAuthOptions } from '../../src/config/option-types';
import { resolveOptions } from '../../src/config/resolve-options';
import { optionsFromEnv } from '../../src/config/env';
import { randomSecret } from '../support/claims';
import { configError } from '../support/config';

const SECRET = randomSecret();
const A = 'https://a.idp.example/';
const B = 'https://b.idp.example/';

const authorization = (options: DualAuthOptions) =>
  resolveOptions({ apiSecret: SECRET, jwksUri: 'https://idp.example/jwks', ...options }).authorization;

describe('authorization: configured when one of its options is set', () => {
  it('is off without any: the claims defaults alone turn nothing on', () => {
    expect(authorization({})).toBeUndefined();
    expect(resolveOptions({ apiSecret: SECRET })).toMatchObject({
      groupsClaim: 'groups',
      serviceGroupsClaim: 'roles',
      authorization: undefined,
    });
  });

  it.each<[string, DualAuthOptions]>([
    ['tenantClaim', { tenantClaim: 'org_id' }],
    ['serviceTenantClaim', { serviceTenantClaim: 'tenant' }],
    ['groupsClaim', { groupsClaim: 'groups' }],
    ['serviceGroupsClaim', { serviceGroupsClaim: 'roles' }],
    ['defaultGroups', { defaultGroups: [] }],
    ['serviceGroups', { serviceGroups: 'embeddable' }],
  ])('is on with %s, even set to its default or to no group', (_, options) => {
    expect(authorization(options)).toBeDefined();
  });

  it.each(['tenantClaim', 'groupsClaim', 'groups'])("is on with a provider's %s", (field) => {
    const value = field === 'groups' ? ['workforce'] : 'x';
    expect(
      resolveOptions({ apiSecret: SECRET, providers: [{ issuer: A, jwksUri: `${A}jwks`, [field]: value }] })
        .authorization,
    ).toBeDefined();
  });

  it('reads every variable, and is on when one is set', () => {
    const options = optionsFromEnv({
      CUBE_DUAL_AUTH_TENANT_CLAIM: '/org/id',
      CUBE_DUAL_AUTH_GROUPS_CLAIM: '/realm_access/roles',
      CUBE_DUAL_AUTH_SERVICE_GROUPS_CLAIM: 'groups',
      CUBE_DUAL_AUTH_DEFAULT_GROUPS: 'viewer, guest',
      CUBE_DUAL_AUTH_SERVICE_GROUPS: 'embeddable',
    });
    expect(options).toEqual({
      tenantClaim: '/org/id',
      groupsClaim: '/realm_access/roles',
      serviceGroupsClaim: 'groups',
      defaultGroups: ['viewer', 'guest'],
      serviceGroups: ['embeddable'],
    });
    const resolved = authorization(options);
    expect(resolved).toMatchObject({
      sharedSecret: {
        tenantClaim: { path: ['org', 'id'] },
        groupsClaim: { path: ['groups'] },
        fixedGroups: ['embeddable'],
      },
      keySet: [
        { tenantClaim: { path: ['org', 'id'] }, groupsClaim: { path: ['realm_access', 'roles'] }, fixedGroups: [] },
      ],
      defaultGroups: ['viewer', 'guest'],
      tenant: true,
    });
    expect([...(resolved?.reserved ?? [])]).toEqual(['embeddable']);
  });
});

describe('authorization per identity provider', () => {
  it("takes a provider's own claims and groups, and the top-level claims where it has none", () => {
    const resolved = authorization({
      jwksUri: undefined,
      tenantClaim: 'org_id',
      serviceGroups: ['embeddable'],
      providers: [
        { issuer: A, jwksUri: `${A}jwks`, groupsClaim: '/realm_access/roles', groups: 'workforce' },
        { issuer: B, jwksUri: `${B}jwks`, tenantClaim: 'tid' },
      ],
    });
    expect(resolved?.keySet).toMatchObject([
      {
        tenantClaim: { text: 'org_id' },
        groupsClaim: { text: '/realm_access/roles' },
        fixedGroups: ['workforce'],
        groupsOption: 'option "providers" (issuer "https://a.idp.example/") field "groupsClaim"',
      },
      {
        tenantClaim: { text: 'tid' },
        groupsClaim: { text: 'groups' },
        fixedGroups: [],
        tenantOption: 'option "providers" (issuer "https://b.idp.example/") field "tenantClaim"',
      },
    ]);
    expect([...(resolved?.reserved ?? [])]).toEqual(['embeddable', 'workforce']);
    expect(resolved?.tenant).toBe(true);
  });

  it("reads a service token's tenant where serviceTenantClaim says, and the identity providers' where tenantClaim says", () => {
    const resolved = authorization({
      tenantClaim: '/https:~1~1cube.example~1claims/tenant',
      serviceTenantClaim: 'tenant',
    });
    expect(resolved?.sharedSecret).toMatchObject({
      tenantClaim: { path: ['tenant'] },
      tenantOption: 'option "serviceTenantClaim"',
    });
    expect(resolved?.keySet).toMatchObject([
      { tenantClaim: { path: ['https://cube.example/claims', 'tenant'] }, tenantOption: 'option "tenantClaim"' },
    ]);
    const fromEnv = resolveOptions(
      {
        apiSecret: SECRET,
        ...optionsFromEnv({
          CUBEJS_JWK_URL: 'https://idp.example/jwks',
          CUBE_DUAL_AUTH_SERVICE_TENANT_CLAIM: 'tenant',
        }),
      },
      ENV_NAMES,
    ).authorization;
    expect(fromEnv?.sharedSecret).toMatchObject({
      tenantClaim: { text: 'tenant' },
      tenantOption: 'CUBE_DUAL_AUTH_SERVICE_TENANT_CLAIM',
    });
    expect(fromEnv?.keySet).toMatchObject([{ tenantClaim: undefined }]);
    expect(fromEnv?.tenant).toBe(true);
  });

  it('has no tenant anywhere when no tenant claim is set', () => {
    expect(authorization({ serviceGroups: ['embeddable'] })?.tenant).toBe(false);
  });
});

describe('authorization options that cannot work stop the start, naming the option', () => {
  it.each<[DualAuthOptions, string]>([
    [
      { tenantClaim: '/org~2id' },
      'cube-dual-auth: option "tenantClaim" is not a JSON Pointer (RFC 6901): "/org~2id" has a "~" that is not "~0" or "~1"',
    ],
    [{ groupsClaim: '' }, 'cube-dual-auth: option "groupsClaim" must be a claim name or a JSON Pointer'],
    [{ serviceGroupsClaim: '/a~' }, 'cube-dual-auth: option "serviceGroupsClaim" is not a JSON Pointer'],
    [{ serviceTenantClaim: '' }, 'cube-dual-auth: option "serviceTenantClaim" must be a claim name or a JSON Pointer'],
    [{ defaultGroups: [''] }, 'cube-dual-auth: option "defaultGroups" must list non-empty group names only'],
    [
      { serviceGroups: 7 as unknown as string },
      'cube-dual-auth: option "serviceGroups" must be a group name or a list of group names',
    ],
    [
      { serviceGroups: ['embeddable'], defaultGroups: ['viewer', 'embeddable'] },
      'cube-dual-auth: option "defaultGroups" holds "embeddable", a group configuration gives to one caller only',
    ],
    [
      { providers: [{ issuer: A, jwksUri: `${A}jwks`, tenantClaim: '/~' }] },
      'cube-dual-auth: option "providers" entry 1 (issuer "https://a.idp.example/") field "tenantClaim" is not a JSON Pointer',
    ],
    [
      { providers: [{ issuer: A, jwksUri: `${A}jwks`, groups: [3 as unknown as string] }] },
      'field "groups" must list non-empty group names only',
    ],
    [
      { providers: [{ issuer: A, jwksUri: `${A}jwks`, groups: ['workforce'] }], defaultGroups: 'workforce' },
      'option "defaultGroups" holds "workforce"',
    ],
  ])('%j', (options, message) => {
    expect(configError({ apiSecret: SECRET, ...options }).message).toContain(message);
  });

  it('names the variable when the options came from the environment', () => {
    const options = optionsFromEnv({ CUBE_DUAL_AUTH_TENANT_CLAIM: '/~x' });
    expect(configError({ apiSecret: SECRET, ...options }, ENV_NAMES).message).toMatch(
      /^cube-dual-auth: CUBE_DUAL_AUTH_TENANT_CLAIM is not a JSON Pointer/,
    );
  });
});
