/** `cube-dual-auth security-token`, in-process against the contract server; no run prints the API key or a secret. */
import { beforeEach, describe, expect, test } from 'vitest';
import { jsonOf } from '../../support/cli';
import type { ContractServer } from '../../support/contract-server';
import { CREATE_MAIN, serviceCommandsBed } from '../../support/service-commands';

let server: ContractServer;
let id: string;
const { cli, env } = serviceCommandsBed((bed) => ({ server, id } = bed));

describe('security-token', () => {
  beforeEach(() => cli(CREATE_MAIN));

  test('prints the token alone, and sends embeddableId with the context, provider and user', async () => {
    const result = await cli([
      'security-token',
      id,
      '--data-provider',
      'cube-main',
      '--security-context',
      '{"tenantId":"acme"}',
      '--saved-version',
      'production',
      '--expiry-seconds',
      '600',
      '--user',
      'ana@acme.example',
    ]);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^tok_[0-9a-f]+\n$/);
    expect(server.requestsTo('POST', '/security-token')[0]?.body).toEqual({
      embeddableId: id,
      securityContext: { tenantId: 'acme' },
      dataProvider: 'cube-main',
      savedVersion: 'production',
      expiryInSeconds: 600,
      user: 'ana@acme.example',
    });
  });

  test('reads the security context from stdin with -, and prints the whole answer with --json', async () => {
    const result = await cli(
      ['security-token', id, '--data-provider', 'cube-main', '--security-context', '-', '--json'],
      env(),
      '{"tenantId":"beta"}\n',
    );
    expect(result.code).toBe(0);
    expect(jsonOf(result)).toEqual({ token: expect.stringMatching(/^tok_/) });
    expect(server.issuedTokens.at(-1)?.securityContext).toEqual({ tenantId: 'beta' });
  });

  test.each([
    [['--security-context', '{bad'], 'not valid JSON'],
    [['--security-context', '[]'], 'securityContext: must be an object'],
    [['--security-context', '{}', '--saved-version', 'latest'], 'savedVersion: must be a tag'],
    [['--security-context', '{}', '--expiry-seconds', 'soon'], 'expiryInSeconds: must be a positive whole number'],
    [['--security-context', '{}', '--user', ''], 'user: must be a non-empty string'],
    [['--security-context', '{}', '--user', ' ana@acme.example'], 'user: must not start or end with whitespace'],
  ])('%j is a validation error (exit 1)', async (args, message) => {
    const before = server.requests.length;
    const result = await cli(['security-token', id, '--data-provider', 'cube-main', ...args]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(message);
    expect(server.requests).toHaveLength(before);
  });

  test('an unknown data provider is refused by the service (exit 1)', async () => {
    const result = await cli(['security-token', id, '--data-provider', 'nope', '--security-context', '{}']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('HTTP 400');
  });

  test('missing --data-provider is a usage error', async () => {
    expect((await cli(['security-token', id, '--security-context', '{}'])).code).toBe(2);
  });
});

describe('security-token: the deployment tenant claim', () => {
  beforeEach(() => cli(CREATE_MAIN));
  const request = (context: string, extra: Record<string, string>, json = false) =>
    cli(
      [
        'security-token',
        id,
        '--data-provider',
        'cube-main',
        '--security-context',
        context,
        ...(json ? ['--json'] : []),
      ],
      env(extra),
    );

  test('warns on stderr when the context lacks the claim CUBE_DUAL_AUTH_TENANT_CLAIM names; the token is still printed, exit 0', async () => {
    const result = await request('{"tenantId":"acme"}', { CUBE_DUAL_AUTH_TENANT_CLAIM: 'tenant_id' });
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^tok_[0-9a-f]+\n$/);
    expect(result.stderr).toBe(
      'cube-dual-auth security-token: warning: the security context has no tenant claim "tenant_id" (CUBE_DUAL_AUTH_TENANT_CLAIM): the deployment will refuse the dashboard\'s queries with ERR_TENANT_MISSING\n',
    );
  });

  test('reads the claim in the context as the hook reads the service token: a JSON Pointer follows nested members', async () => {
    expect((await request('{"org":{"id":"acme"}}', { CUBE_DUAL_AUTH_TENANT_CLAIM: '/org/id' })).stderr).toBe('');
    expect(
      (await request('{"org":{"id":"acme"}}', { CUBE_DUAL_AUTH_TENANT_CLAIM: '/org/name' }, true)).stderr,
    ).toContain('no tenant claim "/org/name"');
  });

  test('a tenant that is not a non-empty string is ERR_TENANT_INVALID; without the variable, or with the claim, nothing is said', async () => {
    const invalid = await request('{"tenant_id":42}', { CUBE_DUAL_AUTH_TENANT_CLAIM: 'tenant_id' });
    expect(invalid.code).toBe(0);
    expect(invalid.stderr).toContain(
      "is not a non-empty string: the deployment will refuse the dashboard's queries with ERR_TENANT_INVALID",
    );
    expect(invalid.stderr).not.toContain('42');
    expect((await request('{"tenant_id":"acme"}', { CUBE_DUAL_AUTH_TENANT_CLAIM: 'tenant_id' })).stderr).toBe('');
    expect((await request('{"tenantId":"acme"}', {})).stderr).toBe('');
  });

  test('reads the tenant in the format CUBE_DUAL_AUTH_TENANT_CLAIM_FORMAT declares, as the hook does', async () => {
    const json = { CUBE_DUAL_AUTH_TENANT_CLAIM: 'tenant_id', CUBE_DUAL_AUTH_TENANT_CLAIM_FORMAT: 'json' };
    expect((await request('{"tenant_id":"\\"acme\\""}', json)).stderr).toBe('');
    const plain = await request('{"tenant_id":"acme"}', json);
    expect(plain.code).toBe(0);
    expect(plain.stderr).toBe(
      'cube-dual-auth security-token: warning: the security context\'s tenant claim "tenant_id" (CUBE_DUAL_AUTH_TENANT_CLAIM) is not written as json (CUBE_DUAL_AUTH_TENANT_CLAIM_FORMAT): the deployment will refuse the dashboard\'s queries with ERR_CLAIM_FORMAT\n',
    );
    const space = { CUBE_DUAL_AUTH_TENANT_CLAIM: 'tenant_id', CUBE_DUAL_AUTH_TENANT_CLAIM_FORMAT: 'space' };
    expect((await request('{"tenant_id":"acme"}', space)).stderr).toBe('');
    expect((await request('{"tenant_id":"acme globex"}', space)).stderr).toContain('ERR_TENANT_INVALID');
  });

  test("reads CUBE_DUAL_AUTH_SERVICE_TENANT_CLAIM before CUBE_DUAL_AUTH_TENANT_CLAIM, as the hook reads a service token's tenant", async () => {
    const nested = {
      CUBE_DUAL_AUTH_TENANT_CLAIM: '/https:~1~1cube.example~1claims/tenant',
      CUBE_DUAL_AUTH_SERVICE_TENANT_CLAIM: 'tenant',
    };
    expect((await request('{"tenant":"acme"}', nested)).stderr).toBe('');
    expect((await request('{"tenantId":"acme"}', nested)).stderr).toContain(
      'no tenant claim "tenant" (CUBE_DUAL_AUTH_SERVICE_TENANT_CLAIM)',
    );
  });

  test("a refused request gets no warning; the exit status stays the service's", async () => {
    const result = await cli(
      ['security-token', id, '--data-provider', 'nope', '--security-context', '{}'],
      env({ CUBE_DUAL_AUTH_TENANT_CLAIM: 'tenant_id' }),
    );
    expect(result.code).toBe(1);
    expect(result.stderr).not.toContain('warning');
  });

  test('escapes the claim it names', async () => {
    const result = await request('{}', { CUBE_DUAL_AUTH_TENANT_CLAIM: 'ten\u001bant' });
    expect(result.stderr).toContain('"ten\\u001bant"');
    expect(result.stderr).not.toContain('\u001b');
  });
});
