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

/**
 * A client of the service's API for one workspace. Every method checks its input before sending anything and throws
 * an {@link EmbeddableError} subclass on failure (docs/service-client.md#library-reference; codes: docs/errors.md).
 * Reads and publish are retried when safe; create, update, delete and token requests never are.
 */
export interface EmbeddableClient {
  /** The base URL requests go to (the API key is not shown anywhere on the client). */
  readonly baseUrl: string;

  /** The tag map and the last 30 saved versions, newest first (docs/service-client.md#list-saved-versions). */
  listSavedVersions(embeddableId: string): Promise<SavedVersionList>;

  /** The dashboard definition at a saved version `v<N>` (docs/service-client.md#get-version-metadata). */
  getVersionDefinition(embeddableId: string, version: string): Promise<DashboardDefinition>;

  /**
   * Points each of `tags` at the saved version `version`, a label `v<N>`, and returns the updated tag map
   * (docs/service-client.md#publish-a-version). Refused before sending as the service would refuse it (BUILDER-172,
   * BUILDER-996, BUILDER-117).
   */
  publishVersion(embeddableId: string, version: string, tags: readonly string[]): Promise<TagMap>;

  /**
   * Publishes the version that the tag `from` points to onto the tags `to`, so that a team promotes what staging runs
   * without knowing its label (docs/ci-cd.md#promote-staging-to-production-versions-promote). `ERR_TAG_ABSENT` when
   * `from` is not set.
   */
  promoteVersion(embeddableId: string, from: string, to: readonly string[]): Promise<Promotion>;

  /**
   * Moves `tag` back: to `to`, or to the newest saved version older by `saved-at` than the one it points to
   * (docs/ci-cd.md#roll-back-versions-rollback). `ERR_TAG_ABSENT` or `ERR_NO_OLDER_VERSION` when it cannot; without
   * `to` it is not idempotent: run twice, it moves the tag back twice.
   */
  rollbackTag(embeddableId: string, tag: string, to?: string): Promise<Rollback>;

  /** What changed from `versionA` to `versionB`, section by section (see {@link diffDefinitions}). */
  diffVersions(embeddableId: string, versionA: string, versionB: string): Promise<DefinitionDiff>;

  /**
   * Registers a Cube deployment as a data provider (docs/service-client.md#create-a-data-provider); `undefined` when
   * the service's answer is empty.
   */
  createDataProvider(input: CreateDataProviderInput): Promise<DataProviderRecord | undefined>;

  /** Updates a data provider by name, sending the credentials given (docs/service-client.md#update-a-data-provider). */
  updateDataProvider(name: string, input: UpdateDataProviderInput): Promise<DataProviderRecord | undefined>;

  /**
   * Updates the data provider `input.name`, or creates it when the update answers 404, for deployments that CI creates
   * (docs/ci-cd.md#preview-deployments-per-pull-request-provider-upsert; the 404 is assumed).
   */
  upsertDataProvider(input: CreateDataProviderInput): Promise<DataProviderUpsert>;

  /** Lists the workspace's data providers (path assumed: docs/service-client.md#what-is-assumed). */
  listDataProviders(): Promise<DataProviderRecord[]>;

  /** Reads one data provider (path assumed: docs/service-client.md#what-is-assumed). */
  getDataProvider(name: string): Promise<DataProviderRecord>;

  /** Deletes a data provider (path assumed: docs/service-client.md#what-is-assumed). */
  deleteDataProvider(name: string): Promise<void>;

  /**
   * Requests a security token for embedding a dashboard (docs/service-client.md#security-token-request). The
   * dashboard is sent as `embeddableId`; send the interface's `embbeddableId` through `extraFields` if need be.
   */
  createSecurityToken(request: SecurityTokenRequest): Promise<SecurityTokenResponse>;
}
