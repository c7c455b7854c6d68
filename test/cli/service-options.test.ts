/**
 * What the service commands share (service-options.ts): the Environment section of their help, and the connection
 * to the service (API key, base URL or region, failures to reach it). In-process against the contract server.
 */
import { describe, expect, test } from 'vitest';
import { jsonOf } from '../support/cli';
import type { ContractServer } from '../support/contract-server';
import { serviceCommandsBed } from '../support/service-commands';

let server: ContractServer;
let id: string;
const { cli, env, without } = serviceCommandsBed((bed) => ({ server, id } = bed));

describe('help', () => {
  test('the overview lists the service commands', async () => {
    const result = await cli(['--help']);
    expect(result.code).toBe(0);
    for (const name of ['provider', 'versions', 'security-token']) expect(result.stdout).toContain(name);
  });

  test.each([['provider'], ['versions'], ['security-token']])(
    '%s --help exits 0 and documents the environment',
    async (name) => {
      const result = await cli([name, '--help']);
      expect(result.code).toBe(0);
      expect(result.stdout).toContain('EMBEDDABLE_API_KEY');
    },
  );
});

describe('connection', () => {
  test('without EMBEDDABLE_API_KEY: usage error', async () => {
    const rest = without('EMBEDDABLE_API_KEY');
    const result = await cli(['versions', 'list', id], rest);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('EMBEDDABLE_API_KEY is not set');
  });

  test('without a base URL or region: usage error', async () => {
    const rest = without('EMBEDDABLE_BASE_URL');
    const result = await cli(['versions', 'list', id], rest);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('give --region');
  });

  test('--base-url wins over EMBEDDABLE_BASE_URL; --base-url with --region is a usage error', async () => {
    const result = await cli(
      ['versions', 'list', id, '--base-url', server.baseUrl],
      env({ EMBEDDABLE_BASE_URL: 'http://127.0.0.1:9/' }),
    );
    expect(result.code).toBe(0);
    expect((await cli(['versions', 'list', id, '--base-url', server.baseUrl, '--region', 'us'])).code).toBe(2);
  });

  test('a bad region is a validation error naming it', async () => {
    const rest = without('EMBEDDABLE_BASE_URL');
    const result = await cli(['versions', 'list', id, '--region', 'us/east'], rest);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('region: must be a region name');
  });

  test('an unreachable service: exit 1, reported as a network failure', async () => {
    server.fail({ times: 10, action: 'destroy' });
    const result = await cli(['versions', 'list', id, '--json']);
    expect(result.code).toBe(1);
    expect(jsonOf(result)).toMatchObject({
      error: { type: 'EmbeddableNetworkError', code: 'ERR_NETWORK', attempts: 3 },
    });
  });

  test('a silent service: exit 1 after --timeout-ms', async () => {
    server.fail({ times: 10, action: 'hang' });
    const result = await cli(['versions', 'publish', id, 'v1', '--tags', 'production', '--timeout-ms', '200']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('no answer within 200 ms');
  });
});
