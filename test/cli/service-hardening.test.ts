/**
 * The service commands given input that must not change what is requested (path parameters), and
 * answers whose tag maps carry a `__proto__` member. Run in-process against the contract server.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import { runCli, type CliResult } from '../support/cli';
import { startContractServer, type ContractServer } from '../support/contract-server';

const API_KEY = 'emb_cli_hardening_7d2e4b91c0a5f638';

let server: ContractServer;

beforeAll(async () => {
  server = await startContractServer({ apiKey: API_KEY });
});
afterAll(() => server.close());
beforeEach(() => {
  server.requests.length = 0;
  server.faults.length = 0;
  server.dataProviders.clear();
});

async function cli(args: readonly string[]): Promise<CliResult> {
  const result = await runCli(args, { env: { EMBEDDABLE_API_KEY: API_KEY, EMBEDDABLE_BASE_URL: server.baseUrl } });
  expect(result.stdout + result.stderr).not.toContain(API_KEY);
  return result;
}

describe('provider: a name that URL handling would turn into another path', () => {
  test.each([
    ['delete', '.', ['--yes']],
    ['delete', '..', ['--yes']],
    ['show', '..', []],
    ['show', '.', []],
    ['update', '.', ['--provider-version', 'v1.0.0']],
  ])('provider %s --name %j is refused before any request, exit 1', async (action, name, rest) => {
    const result = await cli(['provider', action, '--name', name, ...rest]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`name: must not be empty, "." or ".." (it is a path parameter, and URL handling would turn it into another path), got "${name}"`);
    expect(result.stdout).toBe('');
    expect(server.requests).toEqual([]);
  });
});
