import { describe, expect, it } from 'vitest';
import { authorizationCheck, exampleTokenCheck } from '../../../src/doctor/checks/authorization';
import { configurationCheck } from '../../../src/doctor/checks/configuration';
import { randomSecret } from '../../support/claims';
import { generateKeyPair } from '../../support/keys';
import { signToken } from '../../support/tokens';

const SECRET = randomSecret();
const PAIR = generateKeyPair('RS256', { kid: 'k1' });
const NOT_VERIFIED = "(judged from its decoded payload by the hook's own rules; signature and times not checked)";
const PROVIDERS = JSON.stringify([
  { issuer: 'https://a.example/', jwksUri: 'https://a.example/jwks', tenantClaim: 'org', groups: ['g1'] },
  { issuer: 'https://b.example/', jwksUri: 'https://b.example/jwks' },
]);

/** The authorization line and an example token's, for the deployment `env` configures. */
function linesOf(env: NodeJS.ProcessEnv, token?: string) {
  const resolved = configurationCheck({ CUBEJS_API_SECRET: SECRET, ...env }).resolved!;
  const several = resolved.providers !== undefined;
  return {
    authorization: authorizationCheck(resolved.authorization, resolved.identityProviders, several),
    example:
      token === undefined
        ? undefined
        : exampleTokenCheck(token, resolved.authorization, resolved.identityProviders, several),
  };
}

describe('authorizationCheck', () => {
  it('says authorization is off when no variable sets it', () => {
    expect(linesOf({}).authorization).toEqual({
      id: 'authorization',
      status: 'ok',
      message:
        "off: none of CUBE_DUAL_AUTH_TENANT_CLAIM, CUBE_DUAL_AUTH_SERVICE_TENANT_CLAIM, CUBE_DUAL_AUTH_GROUPS_CLAIM, CUBE_DUAL_AUTH_SERVICE_GROUPS_CLAIM, CUBE_DUAL_AUTH_DEFAULT_GROUPS, CUBE_DUAL_AUTH_SERVICE_GROUPS, CUBE_DUAL_AUTH_TENANT_CLAIM_FORMAT, CUBE_DUAL_AUTH_GROUPS_CLAIM_FORMAT (nor a provider's tenantClaim, groupsClaim, groups, tenantClaimFormat, groupsClaimFormat) is set, so the security context carries no tenant or groups of the hook's",
    });
  });

  it('says the claims each path reads, per identity provider when there are several, and the groups given', () => {
    const env = { CUBE_DUAL_AUTH_PROVIDERS: PROVIDERS, CUBE_DUAL_AUTH_DEFAULT_GROUPS: 'viewer' };
    expect(linesOf(env).authorization).toEqual({
      id: 'authorization',
      status: 'ok',
      message:
        'service tokens: no tenant claim, groups claim "roles"; identity provider "https://a.example/": tenant claim "org", groups claim "groups", plus groups "g1"; identity provider "https://b.example/": no tenant claim, groups claim "groups"; default groups "viewer"',
    });
  });
});

describe('authorizationCheck on claim formats', () => {
  const env = {
    CUBE_DUAL_AUTH_TENANT_CLAIM: 'org',
    CUBE_DUAL_AUTH_TENANT_CLAIM_FORMAT: 'json',
    CUBE_DUAL_AUTH_PROVIDERS: JSON.stringify([
      {
        issuer: 'https://cognito.example/',
        jwksUri: 'https://cognito.example/jwks',
        groupsClaim: 'custom:groups',
        groupsClaimFormat: 'json',
      },
      {
        issuer: 'https://okta.example/',
        jwksUri: 'https://okta.example/jwks',
        groupsClaim: 'scope',
        groupsClaimFormat: 'space',
        tenantClaimFormat: 'array',
      },
    ]),
  };

  it("names each path's formats where they are not array, and the setting that says so", () => {
    expect(linesOf(env).authorization.message).toBe(
      'service tokens: tenant claim "org" written as json (CUBE_DUAL_AUTH_TENANT_CLAIM_FORMAT), groups claim "roles"; ' +
        'identity provider "https://cognito.example/": tenant claim "org" written as json (CUBE_DUAL_AUTH_TENANT_CLAIM_FORMAT), groups claim "custom:groups" written as json (CUBE_DUAL_AUTH_PROVIDERS (issuer "https://cognito.example/") field "groupsClaimFormat"); ' +
        'identity provider "https://okta.example/": tenant claim "org", groups claim "scope" written as space (CUBE_DUAL_AUTH_PROVIDERS (issuer "https://okta.example/") field "groupsClaimFormat"); no default groups',
    );
  });

  it('judges an example token by the formats, refusing one not in its format with ERR_CLAIM_FORMAT', () => {
    const good = signToken({ iss: 'https://okta.example/', org: 'acme', scope: 'openid analyst' }, { key: PAIR });
    expect(linesOf(env, good).example?.message).toBe(
      `an identity-provider token (key-set path) of identity provider "https://okta.example/" passes the authorization step: carries the tenant claim "org" (CUBE_DUAL_AUTH_TENANT_CLAIM); it gets 2 groups ${NOT_VERIFIED}`,
    );
    const bad = signToken(
      { iss: 'https://cognito.example/', org: '"acme"', 'custom:groups': 'analyst' },
      { key: PAIR },
    );
    expect(linesOf(env, bad).example).toEqual({
      id: 'example-token',
      status: 'fail',
      message: `an identity-provider token (key-set path) of identity provider "https://cognito.example/" is refused with ERR_CLAIM_FORMAT: The token's groups claim "custom:groups" is not in its declared format json: it is not JSON (CUBE_DUAL_AUTH_PROVIDERS (issuer "https://cognito.example/") field "groupsClaimFormat") ${NOT_VERIFIED}`,
    });
  });
});

describe('exampleTokenCheck', () => {
  it('fails what is no token, and a key-set token where no identity provider is configured', () => {
    expect(linesOf({}, 'nope').example).toEqual({
      id: 'example-token',
      status: 'fail',
      message:
        'the example token is not one: Malformed token: expected three dot-separated parts (header.payload.signature)',
    });
    expect(linesOf({}, signToken({}, { key: PAIR })).example).toEqual({
      id: 'example-token',
      status: 'fail',
      message:
        'an identity-provider token (key-set path) is refused with ERR_JWKS_NOT_CONFIGURED: no identity provider is configured (CUBEJS_JWK_URL, CUBE_DUAL_AUTH_PROVIDERS)',
    });
  });

  it('says that authorization is off, which reads no tenant or groups', () => {
    const token = signToken({ sub: 'u' }, { key: PAIR });
    expect(linesOf({ CUBEJS_JWK_URL: 'https://idp.example/jwks' }, token).example).toEqual({
      id: 'example-token',
      status: 'ok',
      message: `an identity-provider token (key-set path): authorization is off, so no tenant or groups are read ${NOT_VERIFIED}`,
    });
  });

  it('passes a token of a known issuer, naming the tenant claim and counting the groups, never their values', () => {
    const token = signToken({ iss: 'https://a.example/', org: 'acme-tenant', groups: ['x'] }, { key: PAIR });
    const { example } = linesOf({ CUBE_DUAL_AUTH_PROVIDERS: PROVIDERS }, token);
    expect(example).toEqual({
      id: 'example-token',
      status: 'ok',
      message: `an identity-provider token (key-set path) of identity provider "https://a.example/" passes the authorization step: carries the tenant claim "org" (CUBE_DUAL_AUTH_PROVIDERS (issuer "https://a.example/") field "tenantClaim"); it gets 2 groups, "g1" given by configuration ${NOT_VERIFIED}`,
    });
    expect(example?.message).not.toContain('acme-tenant');
  });

  it("refuses with the hook's code an issuer that names no provider, and a token without the tenant claim", () => {
    const stranger = signToken({ iss: 'https://z.example/' }, { key: PAIR });
    expect(linesOf({ CUBE_DUAL_AUTH_PROVIDERS: PROVIDERS }, stranger).example?.message).toMatch(
      /^an identity-provider token \(key-set path\) is refused with ERR_ISSUER_UNKNOWN: /,
    );
    const service = signToken({ groups: [] }, { alg: 'HS256', key: SECRET });
    expect(linesOf({ CUBE_DUAL_AUTH_TENANT_CLAIM: 'tenant' }, service).example).toMatchObject({
      status: 'fail',
      message: expect.stringMatching(
        /^a service token \(HS256, shared-secret path\) is refused with ERR_TENANT_MISSING: .*\(judged from its decoded payload/,
      ) as string,
    });
  });
});
