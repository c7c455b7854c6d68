import { CUBE_DATA_PROVIDER_TYPE } from './constants';
import type { EmbeddableClient } from './embeddable-client';
import { endpoints, type Endpoint } from './endpoints';
import { EmbeddableApiError, EmbeddableResponseError } from './errors';
import * as read from './responses';
import type { Send, ServiceAnswer } from './transport';
import type { CreateDataProviderInput, DataProviderUpsert, UpdateDataProviderInput } from './types';
import * as check from './validate';

type DataProviderOperations = Pick<
  EmbeddableClient,
  | 'createDataProvider'
  | 'updateDataProvider'
  | 'upsertDataProvider'
  | 'listDataProviders'
  | 'getDataProvider'
  | 'deleteDataProvider'
>;

/** What the service's 400 means for these requests (docs/service-client.md#service-errors). */
const PROVIDER_HINTS = {
  400: 'the data-provider request is malformed; the service answers this when version is missing or not vMAJOR.MINOR.PATCH',
};

/** The create body (docs/service-client.md#create-a-data-provider), checked: what create and upsert send. */
function providerBody(request: CreateDataProviderInput, operation: string) {
  const { name, version, credentials } = check.object('input', request, operation);
  const { secretKey, instanceUrl } = check.object('credentials', credentials, operation);
  return {
    name: check.text('name', name, operation),
    type: CUBE_DATA_PROVIDER_TYPE,
    version: check.providerVersion(version, operation),
    credentials: {
      secretKey: check.secret('credentials.secretKey', secretKey, operation),
      instanceUrl: check.instanceUrl(instanceUrl, operation),
    },
  };
}

function credentialsForUpdate(input: UpdateDataProviderInput, operation: string): Record<string, string> | undefined {
  if (input.credentials === undefined) return undefined;
  const { secretKey, instanceUrl } = check.object('credentials', input.credentials, operation);
  const result: Record<string, string> = {};
  if (secretKey !== undefined) result.secretKey = check.secret('credentials.secretKey', secretKey, operation);
  if (instanceUrl !== undefined) result.instanceUrl = check.instanceUrl(instanceUrl, operation);
  return result;
}

/** A write of a data provider: never retried (not idempotent), the secret kept out of every message. */
function write(
  send: Send,
  operation: string,
  endpoint: Endpoint,
  body: unknown,
  secrets: readonly string[],
): Promise<ServiceAnswer> {
  return send({ operation, endpoint, body, retry: false, secrets, hints: PROVIDER_HINTS });
}

/** The update, then the create when the update answers 404 (docs/service-client.md#what-is-assumed). */
async function upsert(send: Send, request: CreateDataProviderInput): Promise<DataProviderUpsert> {
  const operation = 'upsertDataProvider';
  const { name, ...fields } = providerBody(request, operation);
  const secrets = [fields.credentials.secretKey];
  const update = endpoints.updateDataProvider(name, operation);
  try {
    const answer = await write(send, operation, update, fields, secrets);
    return { action: 'updated', record: read.optionalRecord(operation, answer) };
  } catch (error) {
    if (!(error instanceof EmbeddableApiError && error.status === 404)) throw error;
  }
  const answer = await write(send, operation, endpoints.createDataProvider(), { name, ...fields }, secrets);
  return { action: 'created', record: read.optionalRecord(operation, answer) };
}

/** The client's operations on data providers (docs/service-client.md#library-reference). */
export function dataProviderOperations(send: Send): DataProviderOperations {
  return {
    async createDataProvider(request) {
      const operation = 'createDataProvider';
      const body = providerBody(request, operation);
      const answer = await write(send, operation, endpoints.createDataProvider(), body, [body.credentials.secretKey]);
      return read.optionalRecord(operation, answer);
    },

    async updateDataProvider(name, request) {
      const operation = 'updateDataProvider';
      const providerName = check.text('name', name, operation);
      const fields = check.object('input', request, operation);
      const version = check.providerVersion(fields.version, operation);
      const credentials = credentialsForUpdate(fields, operation);
      const body = { type: CUBE_DATA_PROVIDER_TYPE, version, ...(credentials && { credentials }) };
      const secrets = credentials?.secretKey === undefined ? [] : [credentials.secretKey];
      const endpoint = endpoints.updateDataProvider(providerName, operation);
      return read.optionalRecord(operation, await write(send, operation, endpoint, body, secrets));
    },

    upsertDataProvider: (request) => upsert(send, request),

    async listDataProviders() {
      const operation = 'listDataProviders';
      return read.dataProviderList(
        operation,
        await send({ operation, endpoint: endpoints.listDataProviders(), retry: true }),
      );
    },

    async getDataProvider(name) {
      const operation = 'getDataProvider';
      const endpoint = endpoints.getDataProvider(check.text('name', name, operation), operation);
      const answer = await send({ operation, endpoint, retry: true });
      const record = read.optionalRecord(operation, answer);
      if (!record) throw new EmbeddableResponseError(operation, answer.status, 'the body is empty');
      return record;
    },

    async deleteDataProvider(name) {
      const operation = 'deleteDataProvider';
      const endpoint = endpoints.deleteDataProvider(check.text('name', name, operation), operation);
      await send({ operation, endpoint, retry: false });
    },
  };
}
