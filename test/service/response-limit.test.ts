/**
 * Every answer of the service is read up to `maxResponseBytes` only. A larger one fails with an
 * EmbeddableResponseError `ERR_TOO_LARGE` naming the limit, and the client stops reading and closes the
 * connection: the contract server, streaming the answer as fast as the client takes it, sees the
 * connection closed long before it has sent everything. A Content-Length over the limit is refused
 * before any of the body is read.
 */
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { DEFAULT_MAX_RESPONSE_BYTES, EmbeddableResponseError, type EmbeddableClient } from '../../src/service';
import type { ContractServer, StreamOutcome } from '../support/contract-server';
import { clientFor, expectNoSecrets, serverWithDashboard } from '../support/service-client';
import { rejectionOf } from '../support/requests';

const MiB = 1024 * 1024;
/** What the server offers: far more than any limit below. */
const HUGE = 64 * MiB;
/**
 * What may be in flight when the client stops reading: the socket buffers of both ends, which the
 * server has handed its bytes to (about 4 MiB on loopback here). The client itself holds at most the limit.
 */
const IN_FLIGHT = 8 * MiB;

let server: ContractServer;
let id: string;

beforeEach(async () => {
  ({ server, id } = await serverWithDashboard());
});
afterEach(() => server.close());

async function tooLarge(promise: Promise<unknown>, limit: number): Promise<EmbeddableResponseError> {
  const error = await rejectionOf(promise, Error);
  expect(error).toBeInstanceOf(EmbeddableResponseError);
  expect(error).toMatchObject({ code: 'ERR_TOO_LARGE' });
  expect(error.message).toContain(`the limit of ${limit} bytes (maxResponseBytes)`);
  expect(error.message).toContain(
    "raise the limit if answers this large are expected: the client's maxResponseBytes option, the CLI's --max-response-bytes",
  );
  expectNoSecrets(error);
  return error as EmbeddableResponseError;
}

/** The one streamed answer's outcome, once its connection is done with. */
async function streamed(): Promise<StreamOutcome> {
  expect(server.streamed).toHaveLength(1);
  return (await server.streamed[0]) as StreamOutcome;
}

describe('the default limit', () => {
  test(`is ${DEFAULT_MAX_RESPONSE_BYTES} bytes (8 MiB): a larger list answer fails, read no further than that`, async () => {
    expect(DEFAULT_MAX_RESPONSE_BYTES).toBe(8 * MiB);
    server.fail({ method: 'GET', path: '/data-providers', times: 1, action: { stream: { bytes: HUGE } } });
    await tooLarge(clientFor(server).listDataProviders(), DEFAULT_MAX_RESPONSE_BYTES);
    const outcome = await streamed();
    expect(outcome.complete).toBe(false);
    expect(outcome.sent).toBeLessThan(DEFAULT_MAX_RESPONSE_BYTES + IN_FLIGHT);
    // A GET is retried after failures, but not after this one: the same answer would come back.
    expect(server.requestsTo('GET', '/data-providers')).toHaveLength(1);
  });
});

describe('maxResponseBytes', () => {
  const limit = MiB;

  const operations: ReadonlyArray<readonly [string, string, string, (client: EmbeddableClient) => Promise<unknown>]> = [
    ['listDataProviders', 'GET', '/data-providers', (client) => client.listDataProviders()],
    ['listSavedVersions', 'GET', '/saved-versions', (client) => client.listSavedVersions(id)],
    ['getVersionDefinition', 'GET', '/metadata', (client) => client.getVersionDefinition(id, 'v1')],
    ['publishVersion', 'POST', '/publish', (client) => client.publishVersion(id, 'v1', ['staging'])],
    [
      'createSecurityToken',
      'POST',
      '/security-token',
      (client) => client.createSecurityToken({ embeddableId: id, securityContext: {}, dataProvider: 'main' }),
    ],
  ];

  test.each(operations)(
    '%s: an answer of exactly the limit is read; one byte more fails, and reading stops near the limit',
    async (operation, method, path, call) => {
      const client = clientFor(server, { maxResponseBytes: limit });
      // `[`, white space, `]`: at exactly the limit it is read and parsed (the list is empty, the other answers are not objects).
      server.fail({ method, path, times: 1, action: { stream: { bytes: limit } } });
      const atLimit = await call(client).then(
        (value) => ({ value }),
        (error: unknown) => ({ error }),
      );
      expect(atLimit).not.toMatchObject({ error: { code: 'ERR_TOO_LARGE' } });
      expect(await server.streamed.pop()).toEqual({ sent: limit, complete: true });

      server.fail({ method, path, times: 1, action: { stream: { bytes: HUGE } } });
      const error = await tooLarge(call(client), limit);
      expect(error).toMatchObject({ operation, status: 200 });
      expect(error.message).toContain(
        'it is larger than the limit of 1048576 bytes (maxResponseBytes); reading stopped there',
      );
      const outcome = await streamed();
      expect(outcome.complete).toBe(false);
      expect(outcome.sent).toBeLessThan(limit + IN_FLIGHT);
    },
  );

  test('a Content-Length over the limit is refused before any of the body is read', async () => {
    // The server announces 64 MiB, sends 10 bytes and waits: only a client that believes the header is done at once.
    server.fail({
      method: 'GET',
      path: '/data-providers',
      times: 1,
      action: { stream: { bytes: 10, contentLength: HUGE } },
    });
    const error = await tooLarge(
      clientFor(server, { maxResponseBytes: limit, timeoutMs: 5000 }).listDataProviders(),
      limit,
    );
    expect(error.message).toContain(
      `its Content-Length, ${HUGE} bytes, is more than the limit of ${limit} bytes (maxResponseBytes); none of it was read`,
    );
    // The client closed the connection: the server's wait for it ended.
    expect(await streamed()).toEqual({ sent: 10, complete: true });
  });

  test('an error answer is bounded too: a large 503 fails as too large, with its status, and is not retried', async () => {
    server.fail({
      method: 'GET',
      path: '/data-providers',
      times: 3,
      action: { status: 503, body: ' '.repeat(2 * limit) },
    });
    const error = await tooLarge(clientFor(server, { maxResponseBytes: limit }).listDataProviders(), limit);
    expect(error).toMatchObject({ status: 503 });
    expect(server.requestsTo('GET', '/data-providers')).toHaveLength(1);
  });
});
