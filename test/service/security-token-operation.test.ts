import { beforeEach, describe, expect, test } from 'vitest';
import type { EmbeddableClient } from '../../src/service';
import type { ContractServer } from '../support/contract-server';
import { SECRET, withDashboard } from '../support/service-client';

let server: ContractServer;
let id: string;
let client: EmbeddableClient;

withDashboard((made) => ({ server, id, client } = made));

describe('security token', () => {
  beforeEach(() =>
    client.createDataProvider({
      name: 'main',
      version: 'v1.0.0',
      credentials: { secretKey: SECRET, instanceUrl: 'https://a.example.com' },
    }),
  );

  test('sends embeddableId (one b), the context, the provider, the saved version and the user; returns the token', async () => {
    const answer = await client.createSecurityToken({
      embeddableId: id,
      securityContext: { tenantId: 't-1', roles: ['viewer'] },
      dataProvider: 'main',
      savedVersion: 'production',
      expiryInSeconds: 3600,
      user: 'ana@acme.example',
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
      user: 'ana@acme.example',
    });
  });

  test('optional fields are left out; extra fields are sent as given', async () => {
    await client.createSecurityToken({
      embeddableId: id,
      securityContext: {},
      dataProvider: 'main',
      savedVersion: 'v3',
      extraFields: { customCanvasState: 'user-1-dashboard-7', embbeddableId: id },
    });
    expect(server.requestsTo('POST', '/security-token')[0]?.body).toEqual({
      customCanvasState: 'user-1-dashboard-7',
      embbeddableId: id,
      embeddableId: id,
      securityContext: {},
      dataProvider: 'main',
      savedVersion: 'v3',
    });
  });
});
