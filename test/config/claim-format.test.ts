import { describe, expect, it } from 'vitest';
import { optionsFromEnv } from '../../src/config/env';
import {
  claimFormat,
  decodeClaim,
  decodeTenant,
  MAX_CLAIM_TEXT_CHARS,
  type ClaimFormat,
} from '../../src/config/claim-format';
import { ENV_NAMES } from '../../src/config/option-table';
import type { DualAuthOptions } from '../../src/config/option-types';
import { resolveOptions } from '../../src/config/resolve-options';
import { randomSecret } from '../support/claims';
import { configError } from '../support/config';

const SECRET = randomSecret();
const A = 'https://a.idp.example/';
const B = 'https://b.idp.example/';
const fail = (problem: string): never => {
  throw new Error(problem);
};

describe('decodeClaim: each format reads its own shape, and says what anything else is', () => {
  it.each<[ClaimFormat, unknown, unknown]>([
    ['array', ['analyst', 'admin'], ['analyst', 'admin']],
    ['array', 'analyst', 'analyst'],
    ['array', '["analyst"]', '["analyst"]'],
    ['array', 'openid analyst', 'openid analyst'],
    ['array', 42, 42],
    ['json', '["analyst","admin"]', ['analyst', 'admin']],
    ['json', ' [ "analyst" ] ', ['analyst']],
    ['json', '"analyst"', 'analyst'],
    ['json', '[]', []],
    ['json', '[1, ""]', [1, '']],
    ['space', 'openid analyst  admin', ['openid', 'analyst', 'admin']],
    ['space', ' analyst\tadmin\n', ['analyst', 'admin']],
    ['space', 'analyst', ['analyst']],
    ['space', '', []],
    ['space', '   ', []],
    ['space', '["analyst"]', ['["analyst"]']],
  ])('%s reads %j as %j', (format, value, expected) => {
    expect(decodeClaim(value, format)).toEqual({ value: expected });
  });

  it.each<[ClaimFormat, unknown, string]>([
    ['json', ['analyst'], 'a list, not a string'],
    ['json', 42, 'not a string'],
    ['json', null, 'not a string'],
    ['json', { a: 1 }, 'not a string'],
    ['json', 'analyst', 'not JSON'],
    ['json', '["analyst"', 'not JSON'],
    ['json', '', 'not JSON'],
    ['json', '{"groups":["analyst"]}', 'JSON that is neither a list nor a string'],
    ['json', '42', 'JSON that is neither a list nor a string'],
    ['json', 'null', 'JSON that is neither a list nor a string'],
    ['space', ['analyst', 'admin'], 'a list, not a string'],
    ['space', true, 'not a string'],
  ])('%s refuses %j: it is %s', (format, value, problem) => {
    expect(decodeClaim(value, format)).toEqual({ problem });
  });

  it('refuses a text longer than the bound before reading it, in both string formats', () => {
    const long = `[${'"g",'.repeat(MAX_CLAIM_TEXT_CHARS / 4)}"g"]`;
    expect(long.length).toBeGreaterThan(MAX_CLAIM_TEXT_CHARS);
    for (const format of ['json', 'space'] as const)
      expect(decodeClaim(long, format)).toEqual({ problem: `longer than ${MAX_CLAIM_TEXT_CHARS} characters` });
    const longest = `"${'g'.repeat(MAX_CLAIM_TEXT_CHARS - 2)}"`;
    expect(decodeClaim(longest, 'json')).toEqual({ value: 'g'.repeat(MAX_CLAIM_TEXT_CHARS - 2) });
  });

  it.each<[ClaimFormat, unknown, unknown]>([
    ['array', 'acme', { value: 'acme' }],
    ['array', ['acme'], { value: ['acme'] }],
    ['json', '"acme"', { value: 'acme' }],
    ['json', '["acme"]', { value: 'acme' }],
    ['json', '["acme","globex"]', { value: ['acme', 'globex'] }],
    ['space', ' acme ', { value: 'acme' }],
    ['space', 'acme globex', { value: ['acme', 'globex'] }],
    ['space', '', { value: [] }],
    ['json', 'acme', { problem: 'not JSON' }],
  ])('decodeTenant in %s reads %j as one tenant where the format makes one name', (format, value, expected) => {
    expect(decodeTenant(value, format)).toEqual(expected);
  });

  it('takes a configured format in any case, and nothing else', () => {
    expect(claimFormat(' JSON ', fail)).toBe('json');
    expect(claimFormat('Space', fail)).toBe('space');
    expect(() => claimFormat('stringified_json', fail)).toThrow('must be one of array, json, space');
    expect(() => claimFormat(['json'], fail)).toThrow('must be one of array, json, space');
  });
});

const authorization = (options: DualAuthOptions) =>
  resolveOptions({ apiSecret: SECRET, jwksUri: 'https://idp.example/jwks', ...options }).authorization;

describe('the claim formats in the options', () => {
  it('are array unless set, and do not turn authorization on by their default', () => {
    expect(resolveOptions({ apiSecret: SECRET })).toMatchObject({
      tenantClaimFormat: 'array',
      groupsClaimFormat: 'array',
      authorization: undefined,
    });
  });

  it('are read from their variables, apply to both paths, and turn authorization on', () => {
    const options = optionsFromEnv({
      CUBE_DUAL_AUTH_GROUPS_CLAIM_FORMAT: 'json',
      CUBE_DUAL_AUTH_TENANT_CLAIM_FORMAT: 'Space',
      CUBE_DUAL_AUTH_TENANT_CLAIM: 'org',
    });
    expect(options).toEqual({ groupsClaimFormat: 'json', tenantClaimFormat: 'Space', tenantClaim: 'org' });
    const resolved = resolveOptions({ apiSecret: SECRET, jwksUri: 'https://idp.example/jwks', ...options }, ENV_NAMES);
    const both = {
      tenantFormat: 'space',
      groupsFormat: 'json',
      tenantFormatOption: 'CUBE_DUAL_AUTH_TENANT_CLAIM_FORMAT',
      groupsFormatOption: 'CUBE_DUAL_AUTH_GROUPS_CLAIM_FORMAT',
    };
    expect(resolved.authorization).toMatchObject({ sharedSecret: both, keySet: [both] });
    expect(authorization({ groupsClaimFormat: 'array' })).toBeDefined();
  });

  it("are overridden by a provider's own fields for its tokens only, which turn authorization on too", () => {
    const resolved = resolveOptions({
      apiSecret: SECRET,
      tenantClaim: 'org',
      groupsClaimFormat: 'space',
      providers: [
        { issuer: A, jwksUri: `${A}jwks`, groupsClaimFormat: 'json', tenantClaimFormat: 'json' },
        { issuer: B, jwksUri: `${B}jwks` },
      ],
    }).authorization;
    expect(resolved?.sharedSecret).toMatchObject({ groupsFormat: 'space', tenantFormat: 'array' });
    expect(resolved?.keySet).toMatchObject([
      {
        groupsFormat: 'json',
        tenantFormat: 'json',
        groupsFormatOption: 'option "providers" (issuer "https://a.idp.example/") field "groupsClaimFormat"',
      },
      { groupsFormat: 'space', tenantFormat: 'array', groupsFormatOption: 'option "groupsClaimFormat"' },
    ]);
    expect(
      resolveOptions({ apiSecret: SECRET, providers: [{ issuer: A, jwksUri: `${A}jwks`, groupsClaimFormat: 'json' }] })
        .authorization,
    ).toBeDefined();
  });

  it.each<[DualAuthOptions, string]>([
    [{ groupsClaimFormat: 'csv' as ClaimFormat }, 'option "groupsClaimFormat" must be one of array, json, space'],
    [{ tenantClaimFormat: 'json' }, 'option "tenantClaimFormat" is set, but no token carries a tenant claim'],
    [
      { providers: [{ issuer: A, jwksUri: `${A}jwks`, groupsClaimFormat: 'scope' as ClaimFormat }] },
      'option "providers" entry 1 (issuer "https://a.idp.example/") field "groupsClaimFormat" must be one of array, json, space',
    ],
    [
      { serviceTenantClaim: 'tenant', providers: [{ issuer: A, jwksUri: `${A}jwks`, tenantClaimFormat: 'json' }] },
      `option "providers" (issuer "https://a.idp.example/") field "tenantClaimFormat" is set, but this provider's tokens carry no tenant claim`,
    ],
  ])('stop the start when they cannot work: %j', (options, message) => {
    expect(configError({ apiSecret: SECRET, ...options }).message).toContain(message);
  });
});
