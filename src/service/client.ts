/** The service client: one method per operation of the interface, each validating its input first. */
import { inspect } from 'node:util';
import { CUBE_DATA_PROVIDER_TYPE } from './constants';
import { endpoints } from './endpoints';
import { EmbeddableResponseError } from './errors';
import { resolveClientSettings, type EmbeddableClientOptions } from './options';
import * as read from './responses';
import { createSender } from './transport';
import type {
  CreateDataProviderInput,
  DashboardDefinition,
  DataProviderRecord,
  SavedVersionList,
  SecurityTokenRequest,
  SecurityTokenResponse,
  TagMap,
  UpdateDataProviderInput,
} from './types';
import * as check from './validate';

/**
 * A client of the service's API for one workspace. Every method checks its input before sending
 * anything and throws an {@link EmbeddableError} subclass on failure:
 * {@link EmbeddableValidationError} (nothing was sent), {@link EmbeddableNetworkError},
 * {@link EmbeddableApiError} or {@link EmbeddableResponseError}.
 */
export interface EmbeddableClient {
  /** The base URL requests go to (the API key is not shown anywhere on the client). */
  readonly baseUrl: string;

  /** The dashboard's tag map and its last 30 saved versions, newest first (part 4.1). Retried when safe. */
  listSavedVersions(embeddableId: string): Promise<SavedVersionList>;

  /** The dashboard definition as it was at a saved version `v<N>` (part 4.3). Retried when safe. */
  getVersionDefinition(embeddableId: string, version: string): Promise<DashboardDefinition>;

  /**
   * Points each of `tags` at the saved version `version` and returns the dashboard's updated tag map
   * (part 4.2). Other tags are left as they are. `version` must be a label `v<N>`: a tag name is
   * refused before sending (BUILDER-172), as are an empty `tags` (BUILDER-996) and unknown tags
   * (BUILDER-117). Publish is idempotent, so it is retried after a network failure or timeout.
   */
  publishVersion(embeddableId: string, version: string, tags: readonly string[]): Promise<TagMap>;

  /**
   * Registers a Cube deployment as a data provider of type {@link CUBE_DATA_PROVIDER_TYPE}
   * (part 4.4). `credentials.instanceUrl` is trimmed of `/cubejs-api/v1`. Never retried (not
   * idempotent). Resolves to the service's answer, which the interface does not show (`undefined`
   * when the body is empty).
   */
  createDataProvider(input: CreateDataProviderInput): Promise<DataProviderRecord | undefined>;

  /**
   * Updates a data provider by name (part 4.5): sends `type`, the required `version`, and the
   * credentials fields that are given. Never retried.
   */
  updateDataProvider(name: string, input: UpdateDataProviderInput): Promise<DataProviderRecord | undefined>;

  /** Lists the workspace's data providers. ASSUMED path `GET /api/v1/data-providers` (part 4.6). Retried when safe. */
  listDataProviders(): Promise<DataProviderRecord[]>;

  /** Reads one data provider. ASSUMED path `GET /api/v1/data-providers/{name}` (part 4.6). Retried when safe. */
  getDataProvider(name: string): Promise<DataProviderRecord>;

  /** Deletes a data provider. ASSUMED path `DELETE /api/v1/data-providers/{name}` (part 4.6). Never retried. */
  deleteDataProvider(name: string): Promise<void>;

  /**
   * Requests a security token for embedding a dashboard (part 4.7). Never retried.
   *
   * The dashboard field is sent as `embeddableId`. The interface's reference spells it `embbeddableId`
   * (double b) in that one place, while the path parameters and every other mention say
   * `embeddableId`; the double b is taken to be a typo. Should the service prove to want the other
   * spelling, send it through `extraFields: { embbeddableId: id }`.
   */
  createSecurityToken(request: SecurityTokenRequest): Promise<SecurityTokenResponse>;
}

const PROVIDER_400 = 'the data-provider request is malformed; the service answers this when version is missing or not vMAJOR.MINOR.PATCH';

function credentialsForUpdate(input: UpdateDataProviderInput, operation: string): Record<string, string> | undefined {
  if (input.credentials === undefined) return undefined;
  const { secretKey, instanceUrl } = check.object('credentials', input.credentials, operation);
  const result: Record<string, string> = {};
  if (secretKey !== undefined) result.secretKey = check.secret('credentials.secretKey', secretKey, operation);
  if (instanceUrl !== undefined) result.instanceUrl = check.instanceUrl(instanceUrl, operation);
  return result;
}

/**
 * Creates a client. The options are checked here, so a missing key or a bad region fails at start-up
 * with an {@link EmbeddableValidationError} naming the option, not at the first request.
 *
 * @example
 * const client = createEmbeddableClient({ apiKey: process.env.EMBEDDABLE_API_KEY!, region: 'us' });
 * await client.publishVersion(dashboardId, 'v7', ['production']);
 */
export function createEmbeddableClient(options: EmbeddableClientOptions): EmbeddableClient {
  const settings = resolveClientSettings(options);
  const send = createSender(settings);
  const description = `EmbeddableClient { baseUrl: ${JSON.stringify(settings.baseUrl)} }`;

  const client: EmbeddableClient = {
    baseUrl: settings.baseUrl,

    async listSavedVersions(embeddableId) {
      const operation = 'listSavedVersions';
      const id = check.embeddableId(embeddableId, operation);
      return read.savedVersionList(operation, await send({ operation, endpoint: endpoints.listSavedVersions(id), retry: true }));
    },

    async getVersionDefinition(embeddableId, version) {
      const operation = 'getVersionDefinition';
      const id = check.embeddableId(embeddableId, operation);
      const label = check.versionLabel(version, operation);
      return read.definition(operation, await send({ operation, endpoint: endpoints.getVersionDefinition(id, label), retry: true }));
    },

    async publishVersion(embeddableId, version, tags) {
      const operation = 'publishVersion';
      const id = check.embeddableId(embeddableId, operation);
      const label = check.versionLabel(version, operation);
      const body = { tags: check.tags(tags, operation) };
      return read.publishedTags(operation, await send({ operation, endpoint: endpoints.publishVersion(id, label), body, retry: true }));
    },

    async createDataProvider(request) {
      const operation = 'createDataProvider';
      const { name, version, credentials } = check.object('input', request, operation);
      const { secretKey, instanceUrl } = check.object('credentials', credentials, operation);
      const body = {
        name: check.text('name', name, operation),
        type: CUBE_DATA_PROVIDER_TYPE,
        version: check.providerVersion(version, operation),
        credentials: { secretKey: check.secret('credentials.secretKey', secretKey, operation), instanceUrl: check.instanceUrl(instanceUrl, operation) },
      };
      const answer = await send({
        operation,
        endpoint: endpoints.createDataProvider(),
        body,
        retry: false,
        secrets: [body.credentials.secretKey],
        hints: { 400: PROVIDER_400 },
      });
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
      const endpoint = endpoints.updateDataProvider(providerName);
      const answer = await send({ operation, endpoint, body, retry: false, secrets, hints: { 400: PROVIDER_400 } });
      return read.optionalRecord(operation, answer);
    },

    async listDataProviders() {
      const operation = 'listDataProviders';
      return read.providerList(operation, await send({ operation, endpoint: endpoints.listDataProviders(), retry: true }));
    },

    async getDataProvider(name) {
      const operation = 'getDataProvider';
      const endpoint = endpoints.getDataProvider(check.text('name', name, operation));
      const answer = await send({ operation, endpoint, retry: true });
      const record = read.optionalRecord(operation, answer);
      if (!record) throw new EmbeddableResponseError(operation, answer.status, 'the body is empty');
      return record;
    },

    async deleteDataProvider(name) {
      const operation = 'deleteDataProvider';
      await send({ operation, endpoint: endpoints.deleteDataProvider(check.text('name', name, operation)), retry: false });
    },

    async createSecurityToken(request) {
      const operation = 'createSecurityToken';
      const fields = check.object('request', request, operation);
      const body = {
        ...(fields.extraFields !== undefined && check.object('extraFields', fields.extraFields, operation)),
        embeddableId: check.embeddableId(fields.embeddableId, operation),
        securityContext: check.securityContext(fields.securityContext, operation),
        dataProvider: check.text('dataProvider', fields.dataProvider, operation),
        ...(fields.savedVersion !== undefined && { savedVersion: check.savedVersion(fields.savedVersion, operation) }),
        ...(fields.expiryInSeconds !== undefined && { expiryInSeconds: check.positiveInteger('expiryInSeconds', fields.expiryInSeconds, operation) }),
      };
      return read.securityToken(operation, await send({ operation, endpoint: endpoints.createSecurityToken(), body, retry: false }));
    },
  };

  // Printing or inspecting the client shows the base URL and nothing else; the key lives in `send` only.
  Object.defineProperties(client, {
    toString: { value: () => description },
    [inspect.custom]: { value: () => description },
  });
  return Object.freeze(client);
}
