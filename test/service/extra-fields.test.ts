/**
 * `extraFields` of a token request never carries a checked field: a field named like one of the
 * request's own is refused, naming it, and nothing is sent, whether or not the request gives that
 * field itself. Before, `{ expiryInSeconds: -5 }` or `{ savedVersion: '../x' }` reached the service
 * whenever the checked field was left out.
 */
import { beforeAll, beforeEach, describe, expect, test } from 'vitest';
import { EmbeddableValidationError, type EmbeddableClient, type SecurityTokenRequest } from '../../src/service';
import type { ContractServer } from '../support/contract-server';
import { expectNoSecrets, SECRET, withDashboard } from '../support/service-client';
import { rejectionOf } from '../support/requests';

let server: ContractServer;
let id: string;
let client: EmbeddableClient;

withDashboard((made) => ({ server, id, client } = made), { once: true });
beforeAll(async () => {
  await client.createDataProvider({
    name: 'main',
    version: 'v1.0.0',
    credentials: { secretKey: SECRET, instanceUrl: 'https://cube.example.com' },
  });
});
beforeEach(() => {
  server.requests.length = 0;
});

const request = (change: Partial<SecurityTokenRequest>): SecurityTokenRequest => ({
  embeddableId: id,
  securityContext: { tenant: 'a' },
  dataProvider: 'main',
  ...change,
});

/** The call is refused naming `field`, and no request reached the service. */
async function refused(change: Partial<SecurityTokenRequest>, field: string): Promise<string> {
  const error = await rejectionOf(client.createSecurityToken(request(change)), Error);
  expect(error).toBeInstanceOf(EmbeddableValidationError);
  expect(error).toMatchObject({ field, operation: 'createSecurityToken' });
  expect(server.requests).toEqual([]);
  expectNoSecrets(error);
  return error.message;
}

describe('createSecurityToken: extraFields', () => {
  test.each([
    ['expiryInSeconds', -5],
    ['savedVersion', '../x'],
    ['user', ''],
  ])('extraFields.%s = %j, with the checked field left out, is refused and never sent', async (name, value) => {
    const message = await refused({ extraFields: { [name]: value } }, `extraFields.${name}`);
    expect(message).toBe(
      `extraFields.${name}: is a field of the request itself, where it is checked: give it as ${name}, not in extraFields`,
    );
  });

  test.each([
    ['embeddableId', '3f2a0c1e-8b9d-4e5f-a6b7-c8d9e0f1a2b3'],
    ['securityContext', { tenant: 'b' }],
    ['dataProvider', 'other'],
    ['savedVersion', 'v2'],
    ['expiryInSeconds', 60],
    ['user', 'b@example.com'],
  ])('extraFields.%s is refused even when valid and when the request gives the field too', async (name, value) => {
    await refused(
      {
        savedVersion: 'v1',
        expiryInSeconds: 30,
        user: 'a@example.com',
        extraFields: { customCanvasState: 'user-1-dashboard-7', [name]: value },
      },
      `extraFields.${name}`,
    );
  });

  test("extraFields.embbeddableId (the reference's other spelling) must be a dashboard UUID", async () => {
    const message = await refused({ extraFields: { embbeddableId: '../x' } }, 'extraFields.embbeddableId');
    expect(message).toBe('extraFields.embbeddableId: must be the dashboard\'s UUID, got "../x"');
  });

  test('extraFields that cannot be sent as JSON are refused naming extraFields, not reported as a network failure', async () => {
    const message = await refused({ extraFields: { count: 1n } }, 'extraFields');
    expect(message).toContain('extraFields: cannot be sent as JSON');
  });
});
