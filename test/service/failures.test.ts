import { describe, expect, test } from 'vitest';
import {
  BUILDER_CODE_EXPLANATIONS,
  createEmbeddableClient,
  EmbeddableApiError,
  EmbeddableNetworkError,
  EmbeddableResponseError,
  type EmbeddableClient,
} from '../../src/service';
import type { ContractServer } from '../support/contract-server';
import { API_KEY, clientFor, expectNoSecrets, SECRET, withDashboard } from '../support/service-client';
import { rejectionOf } from '../support/requests';
import { watchLateness } from '../support/lateness';
import { freePort } from '../../scripts/lib/ports.mjs';

let server: ContractServer;
let id: string;
let client: EmbeddableClient;

withDashboard((made) => ({ server, id, client } = made), { versions: 5 });

const provider = {
  name: 'main',
  version: 'v1.0.0',
  credentials: { secretKey: SECRET, instanceUrl: 'https://cube.example.com' },
};

async function apiError(promise: Promise<unknown>): Promise<EmbeddableApiError> {
  const error = await rejectionOf(promise, Error);
  expect(error).toBeInstanceOf(EmbeddableApiError);
  expectNoSecrets(error);
  return error as EmbeddableApiError;
}

async function networkError(promise: Promise<unknown>): Promise<EmbeddableNetworkError> {
  const error = await rejectionOf(promise, Error);
  expect(error).toBeInstanceOf(EmbeddableNetworkError);
  expectNoSecrets(error);
  return error as EmbeddableNetworkError;
}

describe('the contract server follows the part 7 table (raw requests)', () => {
  async function publishRaw(version: string, body: unknown, key = API_KEY) {
    const response = await fetch(`${server.baseUrl}/api/v1/embeddables/${id}/saved-versions/${version}/publish`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${key}` },
      body: JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json()) as { errorCode?: string } };
  }

  test.each([
    ['a tag as version', 'production', { tags: ['production'] }, 400, 'BUILDER-172'],
    ['empty tags', 'v1', { tags: [] }, 400, 'BUILDER-996'],
    ['missing tags', 'v1', {}, 400, 'BUILDER-996'],
    ['an invalid tag', 'v1', { tags: ['qa'] }, 404, 'BUILDER-117'],
    ['an unknown version', 'v99', { tags: ['production'] }, 404, 'BUILDER-120'],
  ])('%s', async (_name, version, body, status, code) => {
    expect(await publishRaw(version, body)).toMatchObject({ status, body: { errorCode: code } });
  });

  test('a wrong key gives 401 BUILDER-998', async () => {
    expect(await publishRaw('v1', { tags: ['production'] }, 'wrong')).toMatchObject({
      status: 401,
      body: { errorCode: 'BUILDER-998' },
    });
  });

  test.each([[{}], [{ version: '1.0.0' }]])('a data provider with version %j gives 400', async (change) => {
    const rest = { name: provider.name, credentials: provider.credentials };
    const response = await fetch(`${server.baseUrl}/api/v1/data-providers`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${API_KEY}` },
      body: JSON.stringify({ ...rest, type: 'cube', ...change }),
    });
    expect(response.status).toBe(400);
  });
});

describe('service refusals become EmbeddableApiError', () => {
  test('an invalid key: 401 BUILDER-998, not retried, key not in the message', async () => {
    const error = await apiError(clientFor(server, { apiKey: `${API_KEY}x` }).publishVersion(id, 'v1', ['production']));
    expect(error).toMatchObject({ status: 401, code: 'BUILDER-998', operation: 'publishVersion', attempts: 1 });
    expect(error.message).toContain('publishVersion refused: HTTP 401 BUILDER-998: the API key is missing or invalid');
    expect(server.requests).toHaveLength(1);
  });

  test('an unknown saved version: 404 BUILDER-120 with its explanation', async () => {
    const error = await apiError(client.publishVersion(id, 'v42', ['staging']));
    expect(error).toMatchObject({
      status: 404,
      code: 'BUILDER-120',
      explanation: BUILDER_CODE_EXPLANATIONS['BUILDER-120'],
      serviceMessage: 'saved version not found',
    });
  });

  // The error body's shape is not shown (part 7): the code is found wherever it is.
  test.each([
    ['BUILDER-172', 400, JSON.stringify({ errorCode: 'BUILDER-172', errorMessage: 'tag given' }), 'tag given'],
    ['BUILDER-996', 400, JSON.stringify({ error: { code: 'BUILDER-996', message: 'tags empty' } }), 'tags empty'],
    ['BUILDER-117', 404, JSON.stringify({ message: 'BUILDER-117: invalid tag' }), 'BUILDER-117: invalid tag'],
    ['BUILDER-120', 404, 'BUILDER-120 saved version not found', 'BUILDER-120 saved version not found'],
  ])('%s in any body shape gets the part 7 explanation', async (code, status, body, said) => {
    server.fail({ path: '/publish', times: 1, action: { status, body } });
    const error = await apiError(client.publishVersion(id, 'v1', ['production']));
    expect(error).toMatchObject({ status, code, explanation: BUILDER_CODE_EXPLANATIONS[code], serviceMessage: said });
    expect(error.message).toContain(`HTTP ${status} ${code}`);
  });

  test('a 400 on create without a code explains the version rule; create is not retried', async () => {
    server.fail({ path: '/data-providers', times: 1, action: { status: 400, body: '' } });
    const error = await apiError(client.createDataProvider(provider));
    expect(error).toMatchObject({ status: 400, code: undefined, serviceMessage: undefined });
    expect(error.explanation).toContain('vMAJOR.MINOR.PATCH');
    expect(server.requests).toHaveLength(1);
  });

  test('a duplicate name on create: 409, not retried', async () => {
    await client.createDataProvider(provider);
    const error = await apiError(client.createDataProvider(provider));
    expect(error.status).toBe(409);
    expect(server.requestsTo('POST', '/data-providers')).toHaveLength(2);
  });

  test('an unknown provider on update: 404', async () => {
    expect((await apiError(client.updateDataProvider('nope', { version: 'v1.0.0' }))).status).toBe(404);
  });

  test('a 404 on an assumed path says that the path is assumed', async () => {
    const error = await apiError(client.getDataProvider('missing'));
    expect(error.status).toBe(404);
    expect(error.explanation).toContain('assumes the path GET /api/v1/data-providers/missing');
    const shown = await apiError(client.getVersionDefinition(id, 'v9'));
    expect(shown.explanation).not.toContain('assumes');
  });

  test('an unknown data provider in a token request is refused by the service', async () => {
    const error = await apiError(
      client.createSecurityToken({ embeddableId: id, securityContext: {}, dataProvider: 'nope' }),
    );
    expect(error.status).toBe(400);
  });

  test('a redirect is reported, not followed', async () => {
    server.fail({ times: 1, action: { status: 301, headers: { location: 'https://elsewhere.example.com/' } } });
    const error = await apiError(client.listSavedVersions(id));
    expect(error.status).toBe(301);
    expect(error.explanation).toContain('redirect to https://elsewhere.example.com/');
    expect(server.requests).toHaveLength(1);
  });

  test('secrets echoed by the service are removed from the message; HTML bodies are not quoted', async () => {
    server.fail({
      times: 1,
      action: { status: 400, body: JSON.stringify({ message: `bad key ${API_KEY} and secret ${SECRET}` }) },
    });
    const error = await apiError(client.createDataProvider(provider));
    expect(error.serviceMessage).toBe('bad key [redacted] and secret [redacted]');
    server.fail({ times: 1, action: { status: 500, body: '<html><body>oops</body></html>' } });
    const html = await apiError(client.deleteDataProvider('main'));
    expect(html).toMatchObject({ status: 500, serviceMessage: undefined });
    expect(html.explanation).toContain('the service failed');
  });
});

describe('retries', () => {
  test('a GET is retried after 503 and succeeds', async () => {
    server.fail({ method: 'GET', times: 2, action: { status: 503 } });
    await expect(client.listSavedVersions(id)).resolves.toMatchObject({ savedVersions: expect.any(Array) });
    expect(server.requests).toHaveLength(3);
  });

  test('after the retries run out the last answer is reported with the attempt count', async () => {
    server.fail({ method: 'GET', times: 5, action: { status: 429, headers: { 'retry-after': '0' } } });
    const error = await apiError(clientFor(server, { retries: 3 }).listSavedVersions(id));
    expect(error).toMatchObject({ status: 429, attempts: 4 });
    expect(server.requests).toHaveLength(4);
  });

  test('publish is retried after a dropped connection (idempotent) and the tag is set once', async () => {
    server.fail({ path: '/publish', times: 1, action: 'destroy' });
    expect((await client.publishVersion(id, 'v2', ['production'])).production?.version).toBe('v2');
    expect(server.requestsTo('POST', '/publish')).toHaveLength(2);
  });

  test.each([
    ['createDataProvider', () => client.createDataProvider(provider)],
    ['updateDataProvider', () => client.updateDataProvider('main', { version: 'v1.0.1' })],
    ['deleteDataProvider', () => client.deleteDataProvider('main')],
    [
      'createSecurityToken',
      () => client.createSecurityToken({ embeddableId: id, securityContext: {}, dataProvider: 'main' }),
    ],
  ])('%s is never retried', async (_name, call) => {
    server.fail({ times: 3, action: { status: 503 } });
    expect((await apiError(call())).attempts).toBe(1);
    expect(server.requests).toHaveLength(1);
    server.faults.length = 0;
    server.fail({ times: 3, action: 'destroy' });
    expect((await networkError(call())).attempts).toBe(1);
    expect(server.requests).toHaveLength(2);
  });

  test('a 400 is not retried even for a GET', async () => {
    server.fail({ times: 3, action: { status: 400 } });
    await apiError(client.listSavedVersions(id));
    expect(server.requests).toHaveLength(1);
  });

  test('retries: 0 turns retrying off', async () => {
    server.fail({ times: 3, action: { status: 503 } });
    await apiError(clientFor(server, { retries: 0 }).publishVersion(id, 'v1', ['production']));
    expect(server.requests).toHaveLength(1);
  });
});

describe('network failures and timeouts', () => {
  test('a closed port is a network error after the retries, naming the cause', async () => {
    const dead = createEmbeddableClient({
      apiKey: API_KEY,
      baseUrl: `http://127.0.0.1:${await freePort()}`,
      retryDelayMs: 1,
    });
    const error = await networkError(dead.listSavedVersions(id));
    expect(error).toMatchObject({ code: 'ERR_NETWORK', attempts: 3, operation: 'listSavedVersions' });
    expect(error.message).toMatch(
      /could not reach GET http:\/\/127\.0\.0\.1:\d+\/api\/v1\/embeddables\/.*ECONNREFUSED \(3 attempts\)/,
    );
    const create = await networkError(dead.createDataProvider(provider));
    expect(create.attempts).toBe(1);
  });

  test('an https base URL whose server speaks plain http: the TLS handshake failed, not a bare EPROTO', async () => {
    const https = createEmbeddableClient({
      apiKey: API_KEY,
      baseUrl: server.baseUrl.replace(/^http:/, 'https:'),
      retries: 0,
    });
    const error = await networkError(https.listSavedVersions(id));
    expect(error.message).toMatch(/: TLS handshake failed: does the server speak https\? \((EPROTO|ERR_SSL_\w+)\)$/);
  });

  test('a server that never answers times out, and the GET is retried', async () => {
    server.fail({ times: 2, action: 'hang' });
    const watch = watchLateness();
    const started = performance.now();
    const error = await networkError(clientFor(server, { timeoutMs: 150, retries: 1 }).listSavedVersions(id));
    expect(error).toMatchObject({ code: 'ERR_TIMEOUT', attempts: 2 });
    expect(error.message).toContain('no answer within 150 ms');
    expect(performance.now() - started).toBeLessThan(5_000 + watch.stop());
    expect(server.requests).toHaveLength(2);
  });

  test('a body that stalls after the headers times out too', async () => {
    server.fail({ times: 1, action: 'stall-body' });
    const error = await networkError(
      clientFor(server, { timeoutMs: 150, retries: 0 }).publishVersion(id, 'v1', ['production']),
    );
    expect(error.code).toBe('ERR_TIMEOUT');
  });

  test('a token request that hangs times out once, without a retry', async () => {
    server.fail({ times: 2, action: 'hang' });
    const error = await networkError(
      clientFor(server, { timeoutMs: 100 }).createSecurityToken({
        embeddableId: id,
        securityContext: {},
        dataProvider: 'main',
      }),
    );
    expect(error).toMatchObject({ code: 'ERR_TIMEOUT', attempts: 1 });
  });
});

describe('unexpected successful answers', () => {
  test.each([
    ['a body that is not JSON', 'not json', 'not JSON'],
    [
      'a body nested 100,000 deep',
      `{"saved-versions":${'['.repeat(100_000)}${']'.repeat(100_000)}}`,
      'the body is refused: it nests deeper than 64 levels (the limit)',
    ],
    ['a list without saved-versions', JSON.stringify({ tags: {} }), '`saved-versions` is not an array'],
    ['a version without a label', JSON.stringify({ 'saved-versions': [{}] }), 'no `version` label'],
    ['a tag map that is an array', JSON.stringify({ tags: [], 'saved-versions': [] }), '`tags` is not an object'],
    [
      'a tag without a version',
      JSON.stringify({ tags: { production: {} }, 'saved-versions': [] }),
      'tag "production" has no version label',
    ],
    ['an empty body', '', 'expected the saved-versions list'],
  ])('%s is an EmbeddableResponseError', async (_name, body, problem) => {
    server.fail({ times: 1, action: { status: 200, body } });
    const error = await rejectionOf(client.listSavedVersions(id), Error);
    expect(error).toBeInstanceOf(EmbeddableResponseError);
    expect(error.message).toContain(problem);
  });

  test.each([
    ['getDataProvider', () => client.getDataProvider('main'), '', 'the body is empty'],
    [
      'listDataProviders',
      () => client.listDataProviders(),
      JSON.stringify({ a: [], b: [] }),
      'expected a list of data providers',
    ],
    [
      'createSecurityToken',
      () => client.createSecurityToken({ embeddableId: id, securityContext: {}, dataProvider: 'main' }),
      JSON.stringify({ token: 5 }),
      '`token` is not a string',
    ],
    ['getVersionDefinition', () => client.getVersionDefinition(id, 'v1'), '[]', 'expected the dashboard definition'],
  ])('%s with an unreadable answer is an EmbeddableResponseError', async (_name, call, body, problem) => {
    server.fail({ times: 1, action: { status: 200, body } });
    const error = await rejectionOf(call(), Error);
    expect(error).toBeInstanceOf(EmbeddableResponseError);
    expect(error.message).toContain(problem);
  });
});
