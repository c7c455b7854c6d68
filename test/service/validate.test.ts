import { describe, expect, test } from 'vitest';
import { EmbeddableValidationError, type EmbeddableClient } from '../../src/service';
import type { ContractServer } from '../support/contract-server';
import { expectNoSecrets, SECRET, withDashboard } from '../support/service-client';
import { rejectionOf } from '../support/requests';

let server: ContractServer;
let id: string;
let client: EmbeddableClient;

withDashboard((made) => ({ server, id, client } = made), { once: true });

/** Runs a call that must be refused by our own validation, and checks nothing was sent. */
async function refused(call: () => Promise<unknown>, field: string, code?: string): Promise<EmbeddableValidationError> {
  const before = server.requests.length;
  const error = await rejectionOf(call(), Error);
  expect(error).toBeInstanceOf(EmbeddableValidationError);
  const validation = error as EmbeddableValidationError;
  expect(validation.field).toBe(field);
  expect(validation.code).toBe(code);
  if (code) expect(validation.message).toContain(code);
  expect(server.requests.length).toBe(before);
  expectNoSecrets(error);
  return validation;
}

const credentials = { secretKey: SECRET, instanceUrl: 'https://cube.example.com/cubejs-api/v1' };

describe('saved versions', () => {
  test.each(['', 'not-a-uuid', '123e4567-e89b-12d3-a456-42661417400', undefined])(
    'embeddableId %j is refused',
    async (bad) => {
      await refused(() => client.listSavedVersions(bad as string), 'embeddableId');
      await refused(() => client.getVersionDefinition(bad as string, 'v1'), 'embeddableId');
      await refused(() => client.publishVersion(bad as string, 'v1', ['production']), 'embeddableId');
    },
  );

  test.each(['production', 'staging', 'development'])(
    'publishing the tag name %s as a version is refused with BUILDER-172',
    async (tag) => {
      const error = await refused(() => client.publishVersion(id, tag, ['production']), 'version', 'BUILDER-172');
      expect(error.message).toContain('is a tag name, not a version label');
    },
  );

  test.each(['3', 'V3', 'v0', 'v03', 'v3.1', 'latest', ''])('version label %j is refused', async (bad) => {
    await refused(() => client.publishVersion(id, bad, ['production']), 'version');
    await refused(() => client.getVersionDefinition(id, bad), 'version');
  });

  test('the definition of a tag is refused with BUILDER-172 too (labels only)', async () => {
    await refused(() => client.getVersionDefinition(id, 'production'), 'version', 'BUILDER-172');
  });

  test.each([[[]], [undefined], ['production']])('tags %j are refused with BUILDER-996', async (tags) => {
    await refused(() => client.publishVersion(id, 'v1', tags as string[]), 'tags', 'BUILDER-996');
  });

  test.each([[['prod']], [['production', 'qa']], [['Production']], [[1]]])(
    'tags %j are refused with BUILDER-117',
    async (tags) => {
      const error = await refused(() => client.publishVersion(id, 'v1', tags as string[]), 'tags', 'BUILDER-117');
      expect(error.message).toContain('allowed: development, staging, production');
    },
  );
});

describe('data providers', () => {
  test.each([
    ['missing name', { version: 'v1.0.0', credentials }, 'name'],
    ['empty name', { name: '', version: 'v1.0.0', credentials }, 'name'],
    ['name with spaces around', { name: ' main ', version: 'v1.0.0', credentials }, 'name'],
    ['missing version', { name: 'main', credentials }, 'version'],
    ['version without v', { name: 'main', version: '1.0.0', credentials }, 'version'],
    ['two-part version', { name: 'main', version: 'v1.0', credentials }, 'version'],
    ['pre-release version', { name: 'main', version: 'v1.0.0-beta', credentials }, 'version'],
    ['missing credentials', { name: 'main', version: 'v1.0.0' }, 'credentials'],
    [
      'missing secret',
      { name: 'main', version: 'v1.0.0', credentials: { instanceUrl: credentials.instanceUrl } },
      'credentials.secretKey',
    ],
    [
      'secret with a trailing newline',
      { name: 'main', version: 'v1.0.0', credentials: { ...credentials, secretKey: `${SECRET}\n` } },
      'credentials.secretKey',
    ],
    [
      'missing instanceUrl',
      { name: 'main', version: 'v1.0.0', credentials: { secretKey: SECRET } },
      'credentials.instanceUrl',
    ],
    [
      'relative instanceUrl',
      { name: 'main', version: 'v1.0.0', credentials: { ...credentials, instanceUrl: 'cube.example.com' } },
      'credentials.instanceUrl',
    ],
    [
      'ftp instanceUrl',
      { name: 'main', version: 'v1.0.0', credentials: { ...credentials, instanceUrl: 'ftp://cube.example.com' } },
      'credentials.instanceUrl',
    ],
    [
      'instanceUrl with a query',
      { name: 'main', version: 'v1.0.0', credentials: { ...credentials, instanceUrl: 'https://cube.example.com?a=1' } },
      'credentials.instanceUrl',
    ],
    [
      'instanceUrl with credentials',
      { name: 'main', version: 'v1.0.0', credentials: { ...credentials, instanceUrl: 'https://u:p@cube.example.com' } },
      'credentials.instanceUrl',
    ],
    [
      'instanceUrl of an endpoint',
      {
        name: 'main',
        version: 'v1.0.0',
        credentials: { ...credentials, instanceUrl: 'https://cube.example.com/cubejs-api/v1/load' },
      },
      'credentials.instanceUrl',
    ],
  ])('create: %s is refused', async (_name, input, field) => {
    await refused(() => client.createDataProvider(input as never), field);
  });

  test('create: a non-object input is refused', async () => {
    await refused(() => client.createDataProvider(null as never), 'input');
  });

  test.each([
    ['missing version', 'main', {}, 'version'],
    ['bad version', 'main', { version: 'latest' }, 'version'],
    ['empty name', '', { version: 'v1.0.0' }, 'name'],
    ['bad instanceUrl', 'main', { version: 'v1.0.0', credentials: { instanceUrl: 'nope' } }, 'credentials.instanceUrl'],
    ['empty secret', 'main', { version: 'v1.0.0', credentials: { secretKey: '' } }, 'credentials.secretKey'],
    ['credentials not an object', 'main', { version: 'v1.0.0', credentials: 'x' }, 'credentials'],
    ['input not an object', 'main', undefined, 'input'],
  ])('update: %s is refused', async (_name, name, input, field) => {
    await refused(() => client.updateDataProvider(name, input as never), field);
  });

  test.each([['getDataProvider'], ['deleteDataProvider']] as const)('%s: an empty name is refused', async (method) => {
    await refused(() => client[method](''), 'name');
  });

  test('the secret is never echoed in a validation message', async () => {
    const error = await refused(
      () =>
        client.createDataProvider({
          name: 'main',
          version: 'v1.0.0',
          credentials: { ...credentials, secretKey: ` ${SECRET}` },
        }),
      'credentials.secretKey',
    );
    expect(error.message).not.toContain(SECRET);
  });
});

describe('security token', () => {
  const good = () => ({ embeddableId: id, securityContext: { tenant: 'a' }, dataProvider: 'main' });

  test.each([
    ['bad embeddableId', { embeddableId: 'x' }, 'embeddableId'],
    ['array security context', { securityContext: [] }, 'securityContext'],
    ['null security context', { securityContext: null }, 'securityContext'],
    ['security context that is not JSON', { securityContext: { n: 1n } }, 'securityContext'],
    ['missing data provider', { dataProvider: undefined }, 'dataProvider'],
    ['unknown saved version', { savedVersion: 'latest' }, 'savedVersion'],
    ['zero expiry', { expiryInSeconds: 0 }, 'expiryInSeconds'],
    ['fractional expiry', { expiryInSeconds: 1.5 }, 'expiryInSeconds'],
    ['empty user', { user: '' }, 'user'],
    ['user that is not a string', { user: 42 }, 'user'],
    ['user with a trailing newline', { user: 'ana@acme.example\n' }, 'user'],
    ['user with a control character', { user: 'ana\u0000@acme.example' }, 'user'],
    ['extraFields not an object', { extraFields: 'x' }, 'extraFields'],
  ])('%s is refused', async (_name, change, field) => {
    await refused(() => client.createSecurityToken({ ...good(), ...change } as never), field);
  });

  test('a non-object request is refused', async () => {
    await refused(() => client.createSecurityToken(undefined as never), 'request');
  });
});
