/**
 * The service commands' limit on the size of an answer: `--max-response-bytes`, or
 * EMBEDDABLE_MAX_RESPONSE_BYTES, or 8 MiB. Run in-process against the contract server streaming an
 * answer far larger than the limit: exit 1 with a message naming the limit and how to raise it, and the
 * server sees the connection closed long before it has sent everything.
 */
import { beforeEach, describe, expect, test } from 'vitest';
import { jsonOf, runCli, type CliResult } from '../support/cli';
import type { ContractServer, StreamOutcome } from '../support/contract-server';
import { contractServerPerFile } from '../support/service-commands';

const API_KEY = 'emb_cli_limits_5b8c1e0d7a2f9364';
const MiB = 1024 * 1024;
const HUGE = 64 * MiB;
/** Bytes the server may have handed to the socket buffers when the client stops reading (see test/service/response-limit.test.ts). */
const IN_FLIGHT = 8 * MiB;

let server: ContractServer;
let id: string;
contractServerPerFile({ apiKey: API_KEY }, (started) => (server = started));
beforeEach(() => {
  id = server.addDashboard(3);
});

async function cli(args: readonly string[], extraEnv: Record<string, string> = {}): Promise<CliResult> {
  return runCli(args, {
    env: { EMBEDDABLE_API_KEY: API_KEY, EMBEDDABLE_BASE_URL: server.baseUrl, ...extraEnv },
    secrets: [API_KEY],
  });
}

/** The next answer to `method` on `path` is a 64 MiB stream. */
function huge(method: string, path: string): void {
  server.fail({ method, path, times: 1, action: { stream: { bytes: HUGE } } });
}

async function stoppedNear(limit: number): Promise<void> {
  expect(server.streamed).toHaveLength(1);
  const outcome = (await server.streamed[0]) as StreamOutcome;
  expect(outcome.complete).toBe(false);
  expect(outcome.sent).toBeLessThan(limit + IN_FLIGHT);
}

const tooLarge = (limit: number) =>
  `it is larger than the limit of ${limit} bytes (maxResponseBytes); reading stopped there; raise the limit if answers this large are expected: the client's maxResponseBytes option, the CLI's --max-response-bytes or EMBEDDABLE_MAX_RESPONSE_BYTES\n`;

describe('--max-response-bytes', () => {
  const commands: ReadonlyArray<readonly [string, string, string, () => string[]]> = [
    ['provider list', 'GET', '/data-providers', () => ['provider', 'list']],
    ['versions list', 'GET', '/saved-versions', () => ['versions', 'list', id]],
    [
      'security-token',
      'POST',
      '/security-token',
      () => ['security-token', id, '--data-provider', 'main', '--security-context', '{}'],
    ],
  ];

  test.each(commands)(
    '%s: an answer over the limit exits 1 naming the limit; reading stopped near it',
    async (name, method, path, args) => {
      huge(method, path);
      const result = await cli([...args(), '--max-response-bytes', String(MiB)]);
      expect(result.code).toBe(1);
      expect(result.stdout).toBe('');
      expect(result.stderr).toMatch(
        new RegExp(`^cube-dual-auth ${name}: \\w+: the service answered HTTP 200 with an unexpected body: `),
      );
      expect(result.stderr.endsWith(tooLarge(MiB))).toBe(true);
      await stoppedNear(MiB);
    },
  );

  test('with --json, the error document says EmbeddableResponseError ERR_TOO_LARGE', async () => {
    huge('GET', '/data-providers');
    const result = await cli(['provider', 'list', '--json', '--max-response-bytes', String(MiB)]);
    expect(result.code).toBe(1);
    expect(jsonOf(result)).toMatchObject({
      error: { type: 'EmbeddableResponseError', operation: 'listDataProviders', status: 200, code: 'ERR_TOO_LARGE' },
    });
    await stoppedNear(MiB);
  });

  test('without it, the limit is EMBEDDABLE_MAX_RESPONSE_BYTES; the flag wins over the variable', async () => {
    huge('GET', '/data-providers');
    const fromEnv = await cli(['provider', 'list'], { EMBEDDABLE_MAX_RESPONSE_BYTES: String(MiB) });
    expect(fromEnv.code).toBe(1);
    expect(fromEnv.stderr.endsWith(tooLarge(MiB))).toBe(true);
    await stoppedNear(MiB);

    server.streamed.length = 0;
    huge('GET', '/data-providers');
    const fromFlag = await cli(['provider', 'list', '--max-response-bytes', String(2 * MiB)], {
      EMBEDDABLE_MAX_RESPONSE_BYTES: '1',
    });
    expect(fromFlag.code).toBe(1);
    expect(fromFlag.stderr.endsWith(tooLarge(2 * MiB))).toBe(true);
    await stoppedNear(2 * MiB);
  });

  test('without either, the limit is 8 MiB', async () => {
    huge('GET', '/data-providers');
    const result = await cli(['provider', 'list']);
    expect(result.code).toBe(1);
    expect(result.stderr.endsWith(tooLarge(8 * MiB))).toBe(true);
    await stoppedNear(8 * MiB);
  });

  test.each(['0', '-1', '1.5', '1e6', 'lots', '', String(256 * MiB + 1)])(
    '--max-response-bytes %j is a usage error naming the flag; nothing is sent',
    async (value) => {
      const result = await cli(['provider', 'list', `--max-response-bytes=${value}`]);
      expect(result.code).toBe(2);
      expect(result.stderr).toContain(
        `--max-response-bytes must be a whole number of bytes from 1 to ${256 * MiB}, got ${JSON.stringify(value)}`,
      );
      expect(server.requests).toEqual([]);
    },
  );

  test('a bad EMBEDDABLE_MAX_RESPONSE_BYTES is a usage error naming the variable; nothing is sent', async () => {
    const result = await cli(['versions', 'list', id], { EMBEDDABLE_MAX_RESPONSE_BYTES: '8MiB' });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      `EMBEDDABLE_MAX_RESPONSE_BYTES must be a whole number of bytes from 1 to ${256 * MiB}, got "8MiB"`,
    );
    expect(server.requests).toEqual([]);
  });

  test.each(['provider', 'versions', 'security-token'])(
    '%s --help documents the flag and the variable',
    async (name) => {
      const result = await cli([name, '--help']);
      expect(result.stdout).toContain('--max-response-bytes <n>');
      expect(result.stdout).toContain('largest answer accepted, in bytes (default 8388608: 8 MiB)');
      expect(result.stdout).toContain('EMBEDDABLE_MAX_RESPONSE_BYTES');
    },
  );
});
