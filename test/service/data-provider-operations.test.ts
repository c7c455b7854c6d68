import { describe, expect, test } from 'vitest';
import { CUBE_DATA_PROVIDER_TYPE, type EmbeddableClient } from '../../src/service';
import type { ContractServer } from '../support/contract-server';
import { SECRET, withDashboard } from '../support/service-client';

let server: ContractServer;
let client: EmbeddableClient;

withDashboard((made) => ({ server, client } = made));

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
