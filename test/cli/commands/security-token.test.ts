/** `cube-dual-auth security-token`, in-process against the contract server; no run prints the API key or a secret. */
import { beforeEach, describe, expect, test } from 'vitest';
import { jsonOf } from '../../support/cli';
import type { ContractServer } from '../../support/contract-server';
import { CREATE_MAIN, serviceCommandsBed } from '../../support/service-commands';

const bed = serviceCommandsBed();
const { cli, env } = bed;
let server: ContractServer;
let id: string;

beforeEach(() => {
  ({ server, id } = bed);
});

describe('security-token', () => {
  beforeEach(() => cli(CREATE_MAIN));

  test('prints the token alone, and sends embeddableId with the context and provider', async () => {
    const result = await cli(['security-token', id, '--data-provider', 'cube-main', '--security-context', '{"tenantId":"acme"}', '--saved-version', 'production', '--expiry-seconds', '600']);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^tok_[0-9a-f]+\n$/);
    expect(server.requestsTo('POST', '/security-token')[0]?.body).toEqual({ embeddableId: id, securityContext: { tenantId: 'acme' }, dataProvider: 'cube-main', savedVersion: 'production', expiryInSeconds: 600 });
  });

  test('reads the security context from stdin with -, and prints the whole answer with --json', async () => {
    const result = await cli(['security-token', id, '--data-provider', 'cube-main', '--security-context', '-', '--json'], env(), '{"tenantId":"beta"}\n');
    expect(result.code).toBe(0);
    expect(jsonOf(result)).toEqual({ token: expect.stringMatching(/^tok_/) });
    expect(server.issuedTokens.at(-1)?.securityContext).toEqual({ tenantId: 'beta' });
  });

  test.each([
    [['--security-context', '{bad'], 'not valid JSON'],
    [['--security-context', '[]'], 'securityContext: must be an object'],
    [['--security-context', '{}', '--saved-version', 'latest'], 'savedVersion: must be a tag'],
    [['--security-context', '{}', '--expiry-seconds', 'soon'], 'expiryInSeconds: must be a positive whole number'],
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
