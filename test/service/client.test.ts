import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { CUBE_DATA_PROVIDER_TYPE, MAX_LISTED_VERSIONS, type EmbeddableClient } from '../../src/service';
import { createClock, type FakeClock } from '../support/clock';
import type { ContractServer } from '../support/contract-server';
import { API_KEY, clientFor, SECRET, serverWithDashboard } from '../support/service-client';

let server: ContractServer;
let id: string;
let client: EmbeddableClient;
/** The service's clock: the times it writes move only when a test moves it. */
let clock: FakeClock;

beforeEach(async () => {
  clock = createClock(Date.parse('2024-03-02T09:00:00.000Z'));
  ({ server, id } = await serverWithDashboard(35, { clock: clock.now }));
  client = clientFor(server);
});
afterEach(() => server.close());

describe('saved versions', () => {
  test('list returns the last 30 versions newest first, with unknown fields kept', async () => {
    const list = await client.listSavedVersions(id);
    expect(list.savedVersions).toHaveLength(MAX_LISTED_VERSIONS);
    expect(list.savedVersions.map((v) => v.version).slice(0, 3)).toEqual(['v35', 'v34', 'v33']);
    expect(list.savedVersions.at(-1)?.version).toBe('v6');
    const times = list.savedVersions.map((v) => v['saved-at'] as string);
    expect([...times].sort().reverse()).toEqual(times);
    expect(list.savedVersions[0]).toMatchObject({
      'saved-by': 'author2@example.com',
      description: 'Change number 35',
      'cube-version': '1.2.3',
    });
    expect(list.tags).toEqual({});
  });

  test('every request carries the JSON headers and the bearer key', async () => {
    await client.listSavedVersions(id);
    const [request] = server.requests;
    expect(request?.headers).toMatchObject({
      authorization: `Bearer ${API_KEY}`,
      accept: 'application/json',
      'content-type': 'application/json',
    });
    expect(request?.path).toBe(`/api/v1/embeddables/${id}/saved-versions`);
  });

  test('the definition is returned whole, unknown fields included', async () => {
    const definition = await client.getVersionDefinition(id, 'v7');
    expect(definition.title).toBe('Sales overview (v7)');
    expect(definition.widgets[0]?.inputs[0]?.value).toBe('orders.count');
    expect(definition.layoutHints).toEqual({ columns: 12 });
    expect(server.requests[0]?.path).toBe(`/api/v1/embeddables/${id}/saved-versions/v7/metadata`);
  });

  test('publish sends the tags, returns the tag map and moves only the named tags', async () => {
    const first = await client.publishVersion(id, 'v3', ['production', 'staging', 'production']);
    expect(server.requests[0]).toMatchObject({
      method: 'POST',
      path: `/api/v1/embeddables/${id}/saved-versions/v3/publish`,
      body: { tags: ['production', 'staging'] },
    });
    expect(first.production?.version).toBe('v3');
    expect(first.staging?.version).toBe('v3');

    const moved = await client.publishVersion(id, 'v4', ['production']);
    expect(moved.production?.version).toBe('v4');
    expect(moved.staging).toEqual(first.staging);
    expect(moved.development).toBeUndefined();
  });

  test('the tag map has one field name, updatedAt, in both the list and the publish answer', async () => {
    const published = await client.publishVersion(id, 'v2', ['development']);
    const listed = await client.listSavedVersions(id);
    expect(listed.tags).toEqual(published);
    expect(listed.tags.development).toEqual({
      version: 'v2',
      updatedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT.*Z$/),
    });
    expect(Object.keys(listed.tags.development ?? {})).not.toContain('updated-at');
  });

  test('publishing again is idempotent: the tag and its time stay the same', async () => {
    const once = await client.publishVersion(id, 'v5', ['production']);
    clock.advance(5);
    const twice = await client.publishVersion(id, 'v5', ['production']);
    expect(twice).toEqual(once);
  });
});

describe('data providers', () => {
  test.each([
    ['https://cube.example.com/cubejs-api/v1', 'https://cube.example.com'],
    ['https://cube.example.com/cubejs-api/v1/', 'https://cube.example.com'],
    ['https://cube.example.com/', 'https://cube.example.com'],
    ['https://preview--main.cubecloudapp.dev/tenant/cubejs-api/v1', 'https://preview--main.cubecloudapp.dev/tenant'],
    ['http://localhost:4000/cubejs-api/v1', 'http://localhost:4000'],
  ])('create sends instanceUrl %s as %s, with the Cube type', async (given, sent) => {
    await client.createDataProvider({
      name: 'main',
      version: 'v1.0.0',
      credentials: { secretKey: SECRET, instanceUrl: given },
    });
    expect(server.requests[0]).toMatchObject({ method: 'POST', path: '/api/v1/data-providers' });
    expect(server.requests[0]?.body).toEqual({
      name: 'main',
      type: CUBE_DATA_PROVIDER_TYPE,
      version: 'v1.0.0',
      credentials: { secretKey: SECRET, instanceUrl: sent },
    });
    expect(CUBE_DATA_PROVIDER_TYPE).toBe('cube');
  });

  test('update sends type, version and only the credentials given', async () => {
    await client.createDataProvider({
      name: 'preview',
      version: 'v1.0.0',
      credentials: { secretKey: SECRET, instanceUrl: 'https://a.example.com' },
    });
    const record = await client.updateDataProvider('preview', { version: 'v1.1.0' });
    expect(server.requests[1]).toMatchObject({
      method: 'PUT',
      path: '/api/v1/data-providers/preview',
      body: { type: 'cube', version: 'v1.1.0' },
    });
    expect(record).toMatchObject({ name: 'preview', version: 'v1.1.0' });
    await client.updateDataProvider('preview', {
      version: 'v1.2.0',
      credentials: { instanceUrl: 'https://b.example.com/cubejs-api/v1' },
    });
    expect(server.requests[2]?.body).toEqual({
      type: 'cube',
      version: 'v1.2.0',
      credentials: { instanceUrl: 'https://b.example.com' },
    });
  });

  test('list, read and delete use the assumed REST paths, names percent-encoded', async () => {
    await client.createDataProvider({
      name: 'preview/feature x',
      version: 'v1.0.0',
      credentials: { secretKey: SECRET, instanceUrl: 'https://a.example.com' },
    });
    expect(await client.listDataProviders()).toEqual([
      expect.objectContaining({ name: 'preview/feature x', type: 'cube' }),
    ]);
    expect(await client.getDataProvider('preview/feature x')).toMatchObject({ version: 'v1.0.0' });
    await expect(client.deleteDataProvider('preview/feature x')).resolves.toBeUndefined();
    expect(server.requests.slice(1).map((r) => `${r.method} ${r.path}`)).toEqual([
      'GET /api/v1/data-providers',
      'GET /api/v1/data-providers/preview%2Ffeature%20x',
      'DELETE /api/v1/data-providers/preview%2Ffeature%20x',
    ]);
    expect(server.dataProviders.size).toBe(0);
  });

  test('a list wrapped in an object is accepted', async () => {
    server.fail({
      path: '/data-providers',
      times: 1,
      action: { status: 200, body: JSON.stringify({ dataProviders: [{ name: 'main' }] }) },
    });
    expect(await client.listDataProviders()).toEqual([{ name: 'main' }]);
  });
});

describe('upsertDataProvider', () => {
  const preview = {
    name: 'preview-42',
    version: 'v1.0.0',
    credentials: { secretKey: SECRET, instanceUrl: 'https://preview-42.example.com/cubejs-api/v1' },
  };
  const sentBody = {
    type: 'cube',
    version: 'v1.0.0',
    credentials: { secretKey: SECRET, instanceUrl: 'https://preview-42.example.com' },
  };

  test('an unknown name: the update is answered 404, then the create is sent (two requests)', async () => {
    const result = await client.upsertDataProvider(preview);
    expect(result).toMatchObject({ action: 'created', record: { name: 'preview-42', version: 'v1.0.0' } });
    expect(server.requests.map((r) => `${r.method} ${r.path}`)).toEqual([
      'PUT /api/v1/data-providers/preview-42',
      'POST /api/v1/data-providers',
    ]);
    expect(server.requests[0]?.body).toEqual(sentBody);
    expect(server.requests[1]?.body).toEqual({ name: 'preview-42', ...sentBody });
  });

  test('an existing name: one update with the whole record', async () => {
    await client.upsertDataProvider(preview);
    const before = server.requests.length;
    const result = await client.upsertDataProvider({
      ...preview,
      version: 'v1.1.0',
      credentials: { secretKey: `${SECRET}-2`, instanceUrl: 'https://preview-42b.example.com' },
    });
    expect(result).toMatchObject({ action: 'updated', record: { version: 'v1.1.0' } });
    expect(server.requests.slice(before).map((r) => `${r.method} ${r.path}`)).toEqual([
      'PUT /api/v1/data-providers/preview-42',
    ]);
    expect(server.dataProviders.get('preview-42')).toMatchObject({
      version: 'v1.1.0',
      credentials: { secretKey: `${SECRET}-2`, instanceUrl: 'https://preview-42b.example.com' },
    });
  });

  test('another refusal of the update is thrown as is: no create', async () => {
    server.fail({ method: 'PUT', times: 1, action: { status: 500, body: `{"errorMessage":"boom ${SECRET}"}` } });
    const error = await client.upsertDataProvider(preview).catch((e: unknown) => e);
    expect(error).toMatchObject({
      name: 'EmbeddableApiError',
      operation: 'upsertDataProvider',
      status: 500,
      attempts: 1,
    });
    expect(String(error)).not.toContain(SECRET);
    expect(server.requests.map((r) => r.method)).toEqual(['PUT']);
  });

  test('a create refused after the 404 (a concurrent job created it) is reported, not retried', async () => {
    server.fail({ method: 'POST', times: 1, action: { status: 409, body: '{"errorMessage":"exists"}' } });
    const error = await client.upsertDataProvider(preview).catch((e: unknown) => e);
    expect(error).toMatchObject({ operation: 'upsertDataProvider', status: 409 });
    expect(server.requests.map((r) => r.method)).toEqual(['PUT', 'POST']);
  });

  test.each([
    [{ ...preview, version: '1.0.0' }, 'version'],
    [{ ...preview, name: '' }, 'name'],
    [{ ...preview, credentials: { ...preview.credentials, secretKey: ' x' } }, 'credentials.secretKey'],
    [{ ...preview, credentials: { ...preview.credentials, instanceUrl: 'ftp://x' } }, 'credentials.instanceUrl'],
  ])('is validated as create is: %j refused before sending', async (input, field) => {
    const error = await client.upsertDataProvider(input).catch((e: unknown) => e);
    expect(error).toMatchObject({ name: 'EmbeddableValidationError', field, operation: 'upsertDataProvider' });
    expect(server.requests).toHaveLength(0);
  });
});

describe('security token', () => {
  beforeEach(() =>
    client.createDataProvider({
      name: 'main',
      version: 'v1.0.0',
      credentials: { secretKey: SECRET, instanceUrl: 'https://a.example.com' },
    }),
  );

  test('sends embeddableId (one b), the context, the provider and the saved version; returns the token', async () => {
    const answer = await client.createSecurityToken({
      embeddableId: id,
      securityContext: { tenantId: 't-1', roles: ['viewer'] },
      dataProvider: 'main',
      savedVersion: 'production',
      expiryInSeconds: 3600,
    });
    expect(answer.token).toMatch(/^tok_/);
    const request = server.requestsTo('POST', '/security-token')[0];
    expect(request?.path).toBe('/api/v1/security-token');
    expect(request?.body).toEqual({
      embeddableId: id,
      securityContext: { tenantId: 't-1', roles: ['viewer'] },
      dataProvider: 'main',
      savedVersion: 'production',
      expiryInSeconds: 3600,
    });
  });

  test('optional fields are left out; extra fields are sent as given', async () => {
    await client.createSecurityToken({
      embeddableId: id,
      securityContext: {},
      dataProvider: 'main',
      savedVersion: 'v3',
      extraFields: { user: 'a@example.com', embbeddableId: id },
    });
    expect(server.requestsTo('POST', '/security-token')[0]?.body).toEqual({
      user: 'a@example.com',
      embbeddableId: id,
      embeddableId: id,
      securityContext: {},
      dataProvider: 'main',
      savedVersion: 'v3',
    });
  });
});
