/**
 * `provider rotate-secret` when the service never answers the update: its own exit status (4) and the advice to look
 * before trying again, against the contract server whose PUT hangs or drops the connection, within a bounded time.
 */
import { beforeEach, describe, expect, test } from 'vitest';
import { EXIT_UNKNOWN } from '../../../src/cli/io';
import { mayHaveArrived } from '../../../src/cli/rotate-secret/unanswered-update';
import { EmbeddableApiError, EmbeddableNetworkError } from '../../../src/service';
import { jsonOf } from '../../support/cli';
import type { Deployment } from '../../support/deployment';
import { PROVIDER as NAME, rotateSecretBed } from '../../support/rotate-secret';

const bed = rotateSecretBed('unanswered-update-');

let cube: Deployment;
beforeEach(async () => {
  cube = await bed.cube([bed.oldSecret, bed.newSecret]);
});

const TIMEOUT_MS = 400;
const rotate = (...extra: string[]) => bed.rotate(cube.url, '--timeout-ms', `${TIMEOUT_MS}`, ...extra);

const ADVICE =
  'The Cube accepts the new secret, and the update got no answer: the service may hold the new secret: check with ' +
  `\`provider show --name ${NAME}\`, or run this command again (sending the same secret twice is harmless). Keep ` +
  'both secrets in api-secrets in CUBE_DUAL_AUTH_SECRETS_DIR (or CUBEJS_API_SECRETS) until then.';

describe('provider rotate-secret, the update unanswered', () => {
  test('a PUT that never answers: exit 4 after the timeout, told the service may hold the new secret', async () => {
    bed.server.fail({ method: 'PUT', path: `/data-providers/${NAME}`, times: 1, action: 'hang' });
    const result = await rotate();
    expect(result.code).toBe(EXIT_UNKNOWN);
    expect(result.code).toBe(4);
    expect(result.stdout).toBe('');
    expect(result.stderr.split('\n')).toEqual([
      `cube-dual-auth provider rotate-secret: updateDataProvider failed: no answer within ${TIMEOUT_MS} ms from PUT ` +
        `${bed.server.baseUrl}/api/v1/data-providers/${NAME}`,
      ADVICE,
      '',
    ]);
    // Sent once, never again: an update is not retried.
    expect(bed.server.requestsTo('PUT', '/data-providers/')).toHaveLength(1);
    // Bounded: the Cube's two questions and the read, then one timeout.
    expect(result.ms).toBeLessThan(TIMEOUT_MS + 2_000 + result.lateMs);
  });

  test('--json: the error with its code, exit 4', async () => {
    bed.server.fail({ method: 'PUT', path: `/data-providers/${NAME}`, times: 1, action: 'hang' });
    const result = await rotate('--json');
    expect(result.code).toBe(4);
    expect(jsonOf(result)).toEqual({
      error: expect.objectContaining({
        type: 'EmbeddableNetworkError',
        operation: 'updateDataProvider',
        code: 'ERR_TIMEOUT',
      }),
    });
    expect(result.stderr.split('\n')[1]).toBe(ADVICE);
  });

  test('a connection dropped after the PUT was sent: exit 4 too', async () => {
    bed.server.fail({ method: 'PUT', path: `/data-providers/${NAME}`, times: 1, action: 'destroy' });
    const result = await rotate();
    expect(result.code).toBe(4);
    expect(result.stderr.split('\n')[1]).toBe(ADVICE);
  });

  test("an answer, even a refusal, is no unknown outcome: exit 1, the old secret still the service's", async () => {
    bed.server.fail({ method: 'PUT', path: `/data-providers/${NAME}`, times: 1, action: { status: 500, body: '{}' } });
    const result = await rotate();
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('the service still signs with the old one');
  });
});

describe('mayHaveArrived', () => {
  const network = (code: 'ERR_NETWORK' | 'ERR_TIMEOUT', cause: unknown) =>
    new EmbeddableNetworkError(code, 'failed', 'updateDataProvider', 1, cause);

  test('a refused connection or an unknown host never reached the service; a reset or a timeout may have', () => {
    const fetchFailure = (code: string) => Object.assign(new TypeError('fetch failed'), { cause: { code } });
    expect(mayHaveArrived(network('ERR_NETWORK', fetchFailure('ECONNREFUSED')))).toBe(false);
    expect(mayHaveArrived(network('ERR_NETWORK', fetchFailure('ENOTFOUND')))).toBe(false);
    expect(mayHaveArrived(network('ERR_NETWORK', fetchFailure('ECONNRESET')))).toBe(true);
    expect(mayHaveArrived(network('ERR_NETWORK', fetchFailure('UND_ERR_SOCKET')))).toBe(true);
    expect(mayHaveArrived(network('ERR_TIMEOUT', new DOMException('timed out', 'TimeoutError')))).toBe(true);
    const refusal = new EmbeddableApiError({
      operation: 'updateDataProvider',
      status: 409,
      code: undefined,
      explanation: 'conflict',
      serviceMessage: undefined,
      attempts: 1,
    });
    expect(mayHaveArrived(refusal)).toBe(false);
  });
});
