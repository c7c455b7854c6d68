/** The service client: one method per operation of the interface, each validating its input first. */
import { inspect } from 'node:util';
import { CUBE_DATA_PROVIDER_TYPE, type EnvironmentTag } from './constants';
import { diffDefinitions } from './definition-diff';
import { endpoints } from './endpoints';
import { EmbeddableApiError, EmbeddableResponseError, EmbeddableValidationError } from './errors';
import { resolveClientSettings, type EmbeddableClientOptions } from './options';
import { previousVersion, tagAssignment, taggedVersion } from './promotion';
import * as read from './responses';
import { createSender, type Send } from './transport';
import type {
  CreateDataProviderInput,
  DashboardDefinition,
  DataProviderRecord,
  DataProviderUpsert,
  DefinitionDiff,
  Promotion,
  Rollback,
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

  /**
   * The dashboard's tag map and its last 30 saved versions, newest first (docs/service-client.md#list-saved-versions).
   * Retried when safe.
   */
  listSavedVersions(embeddableId: string): Promise<SavedVersionList>;

  /**
   * The dashboard definition as it was at a saved version `v<N>` (docs/service-client.md#get-version-metadata). Retried
   * when safe.
   */
  getVersionDefinition(embeddableId: string, version: string): Promise<DashboardDefinition>;

  /**
   * Points each of `tags` at the saved version `version` and returns the dashboard's updated tag map
   * (docs/service-client.md#publish-a-version). Other tags are left as they are. `version` must be a label `v<N>`: a
   * tag name is refused before sending (BUILDER-172), as are an empty `tags` (BUILDER-996) and unknown tags
   * (BUILDER-117). Publish is idempotent, so it is retried after a network failure or timeout.
   */
  publishVersion(embeddableId: string, version: string, tags: readonly string[]): Promise<TagMap>;

  /**
   * Publishes the version that the tag `from` points to onto the tags `to` (docs/service-client.md#publish-a-version),
   * so that a team promotes what staging runs without knowing its label. Reads the tag map first
   * (docs/service-client.md#list-saved-versions); refuses with an {@link EmbeddableStateError} `ERR_TAG_ABSENT`,
   * publishing nothing, when `from` is not set. `to` is checked as publish checks its tags (BUILDER-996, BUILDER-117)
   * and must not hold `from`. Two requests; both retried when safe (the list is a GET, publish is idempotent).
   */
  promoteVersion(embeddableId: string, from: string, to: readonly string[]): Promise<Promotion>;

  /**
   * Moves `tag` back: to the saved version `to` when given, otherwise to the newest saved version older, by `saved-at`,
   * than the one the tag points to now (docs/service-client.md#saved-version). Reads the list first
   * (docs/service-client.md#list-saved-versions); refuses with an {@link EmbeddableStateError} when the tag is not set
   * (`ERR_TAG_ABSENT`) or when no listed version is older (`ERR_NO_OLDER_VERSION`), publishing nothing. Unlike publish,
   * a rollback without `to` is not idempotent: run twice, it moves the tag back twice.
   */
  rollbackTag(embeddableId: string, tag: string, to?: string): Promise<Rollback>;

  /**
   * Fetches the definitions at two saved versions (docs/service-client.md#get-version-metadata) and returns what
   * changed from `versionA` to `versionB`: the dashboard's own fields, and the added, removed and changed items of
   * variables, datasets and widgets (see {@link diffDefinitions}). Two requests, retried when safe.
   */
  diffVersions(embeddableId: string, versionA: string, versionB: string): Promise<DefinitionDiff>;

  /**
   * Registers a Cube deployment as a data provider of type {@link CUBE_DATA_PROVIDER_TYPE}
   * (docs/service-client.md#create-a-data-provider). `credentials.instanceUrl` is trimmed of `/cubejs-api/v1`. Never
   * retried (not idempotent). Resolves to the service's answer, which the interface does not show (`undefined` when the
   * body is empty).
   */
  createDataProvider(input: CreateDataProviderInput): Promise<DataProviderRecord | undefined>;

  /**
   * Updates a data provider by name (docs/service-client.md#update-a-data-provider): sends `type`, the required
   * `version`, and the credentials fields that are given. Never retried.
   */
  updateDataProvider(name: string, input: UpdateDataProviderInput): Promise<DataProviderRecord | undefined>;

  /**
   * Updates the data provider `input.name` when it exists and creates it otherwise, for deployments that CI creates (a
   * preview branch per pull request). Sends the update (docs/service-client.md#update-a-data-provider, with the whole
   * credentials) and, when the service answers 404, the create (docs/service-client.md#create-a-data-provider): one
   * request when the provider exists, two when it does not. That an update of an unknown name is answered 404 is
   * ASSUMED (the interface does not show it). Validated as create is. Never retried.
   */
  upsertDataProvider(input: CreateDataProviderInput): Promise<DataProviderUpsert>;

  /**
   * Lists the workspace's data providers. ASSUMED path `GET /api/v1/data-providers`
   * (docs/service-client.md#other-data-provider-operations). Retried when safe.
   */
  listDataProviders(): Promise<DataProviderRecord[]>;

  /**
   * Reads one data provider. ASSUMED path `GET /api/v1/data-providers/{name}`
   * (docs/service-client.md#other-data-provider-operations). Retried when safe.
   */
  getDataProvider(name: string): Promise<DataProviderRecord>;

  /**
   * Deletes a data provider. ASSUMED path `DELETE /api/v1/data-providers/{name}`
   * (docs/service-client.md#other-data-provider-operations). Never retried.
   */
  deleteDataProvider(name: string): Promise<void>;

  /**
   * Requests a security token for embedding a dashboard (docs/service-client.md#security-token-request). Never
   * retried. The dashboard field is sent as `embeddableId` (the interface's one `embbeddableId` is taken for a typo;
   * send that spelling through `extraFields` if the service wants it).
   */
  createSecurityToken(request: SecurityTokenRequest): Promise<SecurityTokenResponse>;
}

/** The fields of a token request that are checked, and so may not come through `extraFields`. */
const TOKEN_FIELDS = [
  'embeddableId',
  'securityContext',
  'dataProvider',
  'savedVersion',
  'expiryInSeconds',
] as const satisfies ReadonlyArray<keyof SecurityTokenRequest>;

const PROVIDER_400 =
  'the data-provider request is malformed; the service answers this when version is missing or not vMAJOR.MINOR.PATCH';

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

/** The saved-versions list, read under the name of the operation that needs it. */
async function listFor(send: Send, operation: string, id: string): Promise<{ list: SavedVersionList; status: number }> {
  const answer = await send({ operation, endpoint: endpoints.listSavedVersions(id, operation), retry: true });
  return { list: read.savedVersionList(operation, answer), status: answer.status };
}

/** Publishes `version` to `tags` under the name of the operation that does it. */
async function publishFor(
  send: Send,
  operation: string,
  id: string,
  version: string,
  tags: readonly string[],
): Promise<TagMap> {
  return read.publishedTags(
    operation,
    await send({ operation, endpoint: endpoints.publishVersion(id, version, operation), body: { tags }, retry: true }),
  );
}

function credentialsForUpdate(input: UpdateDataProviderInput, operation: string): Record<string, string> | undefined {
  if (input.credentials === undefined) return undefined;
  const { secretKey, instanceUrl } = check.object('credentials', input.credentials, operation);
  const result: Record<string, string> = {};
  if (secretKey !== undefined) result.secretKey = check.secret('credentials.secretKey', secretKey, operation);
  if (instanceUrl !== undefined) result.instanceUrl = check.instanceUrl(instanceUrl, operation);
  return result;
}

/** The client's operations on a dashboard's saved versions and tags. */
function versionOperations(
  send: Send,
): Pick<
  EmbeddableClient,
  'listSavedVersions' | 'getVersionDefinition' | 'publishVersion' | 'promoteVersion' | 'rollbackTag' | 'diffVersions'
> {
  return {
    async listSavedVersions(embeddableId) {
      const operation = 'listSavedVersions';
      const id = check.embeddableId(embeddableId, operation);
      return read.savedVersionList(
        operation,
        await send({ operation, endpoint: endpoints.listSavedVersions(id, operation), retry: true }),
      );
    },

    async getVersionDefinition(embeddableId, version) {
      const operation = 'getVersionDefinition';
      const id = check.embeddableId(embeddableId, operation);
      const label = check.versionLabel(version, operation);
      return read.definition(
        operation,
        await send({ operation, endpoint: endpoints.getVersionDefinition(id, label, operation), retry: true }),
      );
    },

    async publishVersion(embeddableId, version, tags) {
      const operation = 'publishVersion';
      const id = check.embeddableId(embeddableId, operation);
      const label = check.versionLabel(version, operation);
      return publishFor(send, operation, id, label, check.tags(tags, operation));
    },

    async promoteVersion(embeddableId, from, to) {
      const operation = 'promoteVersion';
      const id = check.embeddableId(embeddableId, operation);
      const source = check.environmentTag('from', from, operation);
      const targets = check.tags(to, operation, 'to');
      if (targets.includes(source))
        throw new EmbeddableValidationError('to', `must not include the tag promoted from (${source})`, operation);
      const { list } = await listFor(send, operation, id);
      const version = taggedVersion(list, source, operation, 'promote');
      const previous = Object.fromEntries(targets.map((tag) => [tag, tagAssignment(list.tags, tag)?.version ?? null]));
      const tags = await publishFor(send, operation, id, version, targets);
      return { version, from: source, to: targets, previous, tags };
    },

    async rollbackTag(embeddableId, tag, to) {
      const operation = 'rollbackTag';
      const id = check.embeddableId(embeddableId, operation);
      // Checked as the tags of a publish are, since it is sent as one (BUILDER-117).
      const [moved] = check.tags([tag], operation, 'tag') as [EnvironmentTag];
      const target = to === undefined ? undefined : check.versionLabel(to, operation, 'to');
      const { list, status } = await listFor(send, operation, id);
      const current = taggedVersion(list, moved, operation, 'roll back');
      const version = target ?? previousVersion(list, moved, current, operation, status);
      const tags = await publishFor(send, operation, id, version, [moved]);
      return { tag: moved, from: current, to: version, tags };
    },

    async diffVersions(embeddableId, versionA, versionB) {
      const operation = 'diffVersions';
      const id = check.embeddableId(embeddableId, operation);
      const from = check.versionLabel(versionA, operation, 'versionA');
      const to = check.versionLabel(versionB, operation, 'versionB');
      const definitionAt = async (label: string) =>
        read.comparableDefinition(
          operation,
          await send({ operation, endpoint: endpoints.getVersionDefinition(id, label, operation), retry: true }),
        );
      const before = await definitionAt(from);
      const after = await definitionAt(to);
      return { from, to, ...diffDefinitions(before, after) };
    },
  };
}

/** The client's operations on data providers. */
function dataProviderOperations(
  send: Send,
): Pick<
  EmbeddableClient,
  | 'createDataProvider'
  | 'updateDataProvider'
  | 'upsertDataProvider'
  | 'listDataProviders'
  | 'getDataProvider'
  | 'deleteDataProvider'
> {
  return {
    async createDataProvider(request) {
      const operation = 'createDataProvider';
      const body = providerBody(request, operation);
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
      const endpoint = endpoints.updateDataProvider(providerName, operation);
      const answer = await send({ operation, endpoint, body, retry: false, secrets, hints: { 400: PROVIDER_400 } });
      return read.optionalRecord(operation, answer);
    },

    async upsertDataProvider(request) {
      const operation = 'upsertDataProvider';
      const { name, ...fields } = providerBody(request, operation);
      const secrets = [fields.credentials.secretKey];
      const hints = { 400: PROVIDER_400 };
      const update = endpoints.updateDataProvider(name, operation);
      try {
        const answer = await send({ operation, endpoint: update, body: fields, retry: false, secrets, hints });
        return { action: 'updated', record: read.optionalRecord(operation, answer) };
      } catch (error) {
        if (!(error instanceof EmbeddableApiError && error.status === 404)) throw error;
      }
      const answer = await send({
        operation,
        endpoint: endpoints.createDataProvider(),
        body: { name, ...fields },
        retry: false,
        secrets,
        hints,
      });
      return { action: 'created', record: read.optionalRecord(operation, answer) };
    },

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
      await send({
        operation,
        endpoint: endpoints.deleteDataProvider(check.text('name', name, operation), operation),
        retry: false,
      });
    },
  };
}

/** The client's security-token request. */
function securityTokenOperation(send: Send): Pick<EmbeddableClient, 'createSecurityToken'> {
  return {
    async createSecurityToken(request) {
      const operation = 'createSecurityToken';
      const fields = check.object('request', request, operation);
      const body = {
        ...(fields.extraFields !== undefined && check.extraFields(fields.extraFields, TOKEN_FIELDS, operation)),
        embeddableId: check.embeddableId(fields.embeddableId, operation),
        securityContext: check.securityContext(fields.securityContext, operation),
        dataProvider: check.text('dataProvider', fields.dataProvider, operation),
        ...(fields.savedVersion !== undefined && { savedVersion: check.savedVersion(fields.savedVersion, operation) }),
        ...(fields.expiryInSeconds !== undefined && {
          expiryInSeconds: check.positiveInteger('expiryInSeconds', fields.expiryInSeconds, operation),
        }),
      };
      return read.securityToken(
        operation,
        await send({ operation, endpoint: endpoints.createSecurityToken(), body, retry: false }),
      );
    },
  };
}

/**
 * Creates a client. The options are checked here, so a missing key or a bad region fails at start-up with an
 * {@link EmbeddableValidationError} naming the option, not at the first request.
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
    ...versionOperations(send),
    ...dataProviderOperations(send),
    ...securityTokenOperation(send),
  };

  // Printing or inspecting the client shows the base URL and nothing else; the key lives in `send` only.
  Object.defineProperties(client, {
    toString: { value: () => description },
    [inspect.custom]: { value: () => description },
  });
  return Object.freeze(client);
}
