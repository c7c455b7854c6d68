import { describe, expect, it } from 'vitest';
import {
  EmbeddableApiError,
  EmbeddableError,
  EmbeddableNetworkError,
  EmbeddableResponseError,
  EmbeddableStateError,
  EmbeddableValidationError,
} from '../../src/service';

describe("the service client's errors", () => {
  it('are each an EmbeddableError named after its class, with the operation that failed', () => {
    const errors = [
      new EmbeddableValidationError('tags', 'must not be empty', 'publishVersion'),
      new EmbeddableNetworkError(
        'ERR_TIMEOUT',
        'no answer within 200 ms',
        'listSavedVersions',
        3,
        new Error('aborted'),
      ),
      new EmbeddableApiError({
        operation: 'publishVersion',
        status: 404,
        code: 'BUILDER-120',
        explanation: 'the saved version does not exist',
        serviceMessage: undefined,
        attempts: 1,
      }),
      new EmbeddableStateError('ERR_TAG_ABSENT', 'staging is not set', 'promoteVersion'),
      new EmbeddableResponseError('listDataProviders', 200, 'not a list'),
    ];
    for (const error of errors) {
      expect(error).toBeInstanceOf(EmbeddableError);
      expect(error.name).toBe(error.constructor.name);
    }
    expect(errors.map((error) => error.operation)).toEqual([
      'publishVersion',
      'listSavedVersions',
      'publishVersion',
      'promoteVersion',
      'listDataProviders',
    ]);
  });

  it('validation: names the field, and the code the service would have answered with', () => {
    expect(new EmbeddableValidationError('version', 'is a tag name', 'publishVersion', 'BUILDER-172')).toMatchObject({
      field: 'version',
      code: 'BUILDER-172',
      message: 'version: is a tag name (the service refuses this with BUILDER-172)',
    });
    expect(new EmbeddableValidationError('apiKey', 'is required')).toMatchObject({
      code: undefined,
      operation: undefined,
      message: 'apiKey: is required',
    });
  });

  it("API: the status, the code, what they mean and the service's own message", () => {
    const init = {
      operation: 'publishVersion',
      status: 404,
      code: 'BUILDER-120',
      explanation: 'the saved version does not exist',
      attempts: 1,
    };
    expect(new EmbeddableApiError({ ...init, serviceMessage: 'no v99' }).message).toBe(
      'publishVersion refused: HTTP 404 BUILDER-120: the saved version does not exist (service said: no v99)',
    );
    expect(new EmbeddableApiError({ ...init, code: undefined, serviceMessage: undefined }).message).toBe(
      'publishVersion refused: HTTP 404: the saved version does not exist',
    );
  });

  it('network: the failure, the attempts made and the cause', () => {
    const cause = new Error('socket hang up');
    expect(new EmbeddableNetworkError('ERR_NETWORK', 'connection reset', 'listSavedVersions', 3, cause)).toMatchObject({
      code: 'ERR_NETWORK',
      attempts: 3,
      cause,
      message: 'connection reset',
    });
  });

  it('state and response: the refusal, and the answer that was not as described', () => {
    expect(new EmbeddableStateError('ERR_NO_OLDER_VERSION', 'nothing to roll back to', 'rollbackTag').message).toBe(
      'rollbackTag refused: nothing to roll back to',
    );
    expect(new EmbeddableResponseError('listSavedVersions', 200, '`tags` is not an object')).toMatchObject({
      status: 200,
      code: undefined,
      message: 'listSavedVersions: the service answered HTTP 200 with an unexpected body: `tags` is not an object',
    });
    expect(new EmbeddableResponseError('listSavedVersions', 200, 'too large', 'ERR_TOO_LARGE').code).toBe(
      'ERR_TOO_LARGE',
    );
  });
});
