/** The customer side of the service's API: typed client, errors, constants and endpoints. */
export {
  /**
   * Creates a client of the service's API for one workspace. The options are checked here: a missing key or a bad
   * region throws an `EmbeddableValidationError` naming the option at start-up, not at the first request
   * (docs/service-client.md#library-reference).
   * @example
   * ```ts
   * // release.mts: a CI step that ships what staging shows to production
   * import { createEmbeddableClient } from 'cube-dual-auth/service';
   *
   * const client = createEmbeddableClient({ apiKey: process.env.EMBEDDABLE_API_KEY ?? '', region: 'us' });
   * const { version } = await client.promoteVersion('0b9c7f2e-4a1d-4c3b-9e8f-2d6a5b7c8e90', 'staging', ['production']);
   * console.log(`production now shows ${version}`);
   * ```
   */
  createEmbeddableClient,
  type EmbeddableClient,
} from './client';
export {
  /**
   * Cube's REST API path, which a data provider's `instanceUrl` leaves out (the client trims it).
   * @example
   * ```ts
   * import { CUBE_API_SUFFIX } from 'cube-dual-auth/service';
   *
   * // The deployment as the data provider names it, and the URL a Cube client of the same deployment is given.
   * const instanceUrl = 'https://cube.example.com';
   * const apiUrl = `${instanceUrl}${CUBE_API_SUFFIX}`; // https://cube.example.com/cubejs-api/v1
   * ```
   */
  CUBE_API_SUFFIX,
  /**
   * The data-provider `type` of a Cube deployment: the one the client creates.
   * @example
   * ```ts
   * // providers.mts
   * import { createEmbeddableClient, CUBE_DATA_PROVIDER_TYPE } from 'cube-dual-auth/service';
   *
   * const client = createEmbeddableClient({ apiKey: process.env.EMBEDDABLE_API_KEY ?? '', region: 'eu' });
   * const cubes = (await client.listDataProviders()).filter(({ type }) => type === CUBE_DATA_PROVIDER_TYPE);
   * console.log(cubes.map(({ name, version }) => `${name} ${version}`).join('\n'));
   * ```
   */
  CUBE_DATA_PROVIDER_TYPE,
  /**
   * The largest answer the client reads unless told otherwise (option `maxResponseBytes`): 8 MiB.
   * @example
   * ```ts
   * import { createEmbeddableClient, DEFAULT_MAX_RESPONSE_BYTES } from 'cube-dual-auth/service';
   *
   * // A workspace with very large dashboard definitions.
   * export const client = createEmbeddableClient({
   *   apiKey: process.env.EMBEDDABLE_API_KEY ?? '',
   *   region: 'us',
   *   maxResponseBytes: 4 * DEFAULT_MAX_RESPONSE_BYTES,
   * });
   * ```
   */
  DEFAULT_MAX_RESPONSE_BYTES,
  /**
   * The service's domain: with option `region`, the base URL is `https://api.<region>.embeddable.com`.
   * @example
   * ```ts
   * import { EMBEDDABLE_SERVICE_DOMAIN } from 'cube-dual-auth/service';
   *
   * // What a proxy of your own must let through for the client of region `eu`.
   * const allowedHost = `api.eu.${EMBEDDABLE_SERVICE_DOMAIN}`;
   * ```
   */
  EMBEDDABLE_SERVICE_DOMAIN,
  /**
   * The environment tags a saved version can be published to: `development`, `staging`, `production`.
   * @example
   * ```ts
   * // tags.mts
   * import { createEmbeddableClient, ENVIRONMENT_TAGS } from 'cube-dual-auth/service';
   *
   * const client = createEmbeddableClient({ apiKey: process.env.EMBEDDABLE_API_KEY ?? '', region: 'us' });
   * const { tags } = await client.listSavedVersions('0b9c7f2e-4a1d-4c3b-9e8f-2d6a5b7c8e90');
   * for (const tag of ENVIRONMENT_TAGS) console.log(tag, tags[tag]?.version ?? '(not published)');
   * ```
   */
  ENVIRONMENT_TAGS,
  /**
   * How many saved versions the service lists at most: 30, the newest.
   * @example
   * ```ts
   * // versions.mts
   * import { createEmbeddableClient, MAX_LISTED_VERSIONS } from 'cube-dual-auth/service';
   *
   * const client = createEmbeddableClient({ apiKey: process.env.EMBEDDABLE_API_KEY ?? '', region: 'us' });
   * const { savedVersions } = await client.listSavedVersions('0b9c7f2e-4a1d-4c3b-9e8f-2d6a5b7c8e90');
   * if (savedVersions.length === MAX_LISTED_VERSIONS) console.log('older saved versions exist, but are not listed');
   * ```
   */
  MAX_LISTED_VERSIONS,
  /**
   * The highest `maxResponseBytes` a client accepts: 256 MiB.
   * @example
   * ```ts
   * import { createEmbeddableClient, MAX_MAX_RESPONSE_BYTES } from 'cube-dual-auth/service';
   *
   * // A limit from your own configuration, kept to what the client accepts.
   * const wanted = Number(process.env.SERVICE_MAX_RESPONSE_BYTES ?? 16 * 1024 * 1024);
   * export const client = createEmbeddableClient({
   *   apiKey: process.env.EMBEDDABLE_API_KEY ?? '',
   *   region: 'us',
   *   maxResponseBytes: Math.min(wanted, MAX_MAX_RESPONSE_BYTES),
   * });
   * ```
   */
  MAX_MAX_RESPONSE_BYTES,
  type EnvironmentTag,
} from './constants';
export {
  /**
   * What each of the service's BUILDER codes means, by code (docs/service-client.md#service-errors).
   * @example
   * ```ts
   * import { BUILDER_CODE_EXPLANATIONS } from 'cube-dual-auth/service';
   *
   * // A code from the service's answer, logged by your own tooling.
   * const code = 'BUILDER-172';
   * console.log(`${code}: ${BUILDER_CODE_EXPLANATIONS[code] ?? 'not a code the client knows'}`);
   * ```
   */
  BUILDER_CODE_EXPLANATIONS,
  /**
   * The service answered with an error status: `status`, the BUILDER `code` when there is one, the `explanation` in
   * words and the service's own message (`serviceMessage`).
   * @example
   * ```ts
   * // publish.mts
   * import { createEmbeddableClient, EmbeddableApiError } from 'cube-dual-auth/service';
   *
   * const client = createEmbeddableClient({ apiKey: process.env.EMBEDDABLE_API_KEY ?? '', region: 'us' });
   * try {
   *   await client.publishVersion('0b9c7f2e-4a1d-4c3b-9e8f-2d6a5b7c8e90', 'v7', ['staging']);
   * } catch (error) {
   *   if (error instanceof EmbeddableApiError && error.code === 'BUILDER-120') console.error('v7 was never saved');
   *   else throw error;
   * }
   * ```
   */
  EmbeddableApiError,
  /**
   * The base class of every failure of the client; `operation` names the method that failed.
   * @example
   * ```ts
   * // rollback.mts
   * import { createEmbeddableClient, EmbeddableError } from 'cube-dual-auth/service';
   *
   * const client = createEmbeddableClient({ apiKey: process.env.EMBEDDABLE_API_KEY ?? '', region: 'us' });
   * await client.rollbackTag('0b9c7f2e-4a1d-4c3b-9e8f-2d6a5b7c8e90', 'production').catch((error: unknown) => {
   *   if (!(error instanceof EmbeddableError)) throw error;
   *   console.error(`${error.operation}: ${error.message}`); // never holds the API key
   *   process.exitCode = 1;
   * });
   * ```
   */
  EmbeddableError,
  /**
   * No answer: the connection failed (`code` `ERR_NETWORK`) or an attempt timed out (`ERR_TIMEOUT`), after `attempts`
   * attempts.
   * @example
   * ```ts
   * // versions.mts
   * import { createEmbeddableClient, EmbeddableNetworkError } from 'cube-dual-auth/service';
   *
   * const apiKey = process.env.EMBEDDABLE_API_KEY ?? '';
   * const client = createEmbeddableClient({ apiKey, region: 'us', timeoutMs: 5000, retries: 1 });
   * try {
   *   console.log(await client.listSavedVersions('0b9c7f2e-4a1d-4c3b-9e8f-2d6a5b7c8e90'));
   * } catch (error) {
   *   if (!(error instanceof EmbeddableNetworkError)) throw error;
   *   console.error(`the service did not answer (${error.code}, ${error.attempts} attempts); try again later`);
   * }
   * ```
   */
  EmbeddableNetworkError,
  /**
   * A success status with a body that is not what the interface describes, or an answer larger than
   * `maxResponseBytes` (`code` `ERR_TOO_LARGE`), not read to its end.
   * @example
   * ```ts
   * // definition.mts
   * import { createEmbeddableClient, EmbeddableResponseError } from 'cube-dual-auth/service';
   *
   * const client = createEmbeddableClient({ apiKey: process.env.EMBEDDABLE_API_KEY ?? '', region: 'us' });
   * const definition = await client
   *   .getVersionDefinition('0b9c7f2e-4a1d-4c3b-9e8f-2d6a5b7c8e90', 'v7')
   *   .catch((error: unknown) => {
   *     if (error instanceof EmbeddableResponseError && error.code === 'ERR_TOO_LARGE') return undefined;
   *     throw error;
   *   });
   * console.log(definition?.title ?? 'the definition is larger than maxResponseBytes');
   * ```
   */
  EmbeddableResponseError,
  /**
   * A promotion or rollback the dashboard's own tags do not allow: the tag is not set (`ERR_TAG_ABSENT`) or no saved
   * version is older (`ERR_NO_OLDER_VERSION`). Nothing was published.
   * @example
   * ```ts
   * // release.mts
   * import { createEmbeddableClient, EmbeddableStateError } from 'cube-dual-auth/service';
   *
   * const client = createEmbeddableClient({ apiKey: process.env.EMBEDDABLE_API_KEY ?? '', region: 'us' });
   * try {
   *   await client.promoteVersion('0b9c7f2e-4a1d-4c3b-9e8f-2d6a5b7c8e90', 'staging', ['production']);
   * } catch (error) {
   *   if (!(error instanceof EmbeddableStateError && error.code === 'ERR_TAG_ABSENT')) throw error;
   *   console.log('nothing is published to staging yet: nothing to promote');
   * }
   * ```
   */
  EmbeddableStateError,
  /**
   * The client's own checks refused an option or an input, naming it in `field` (and in `code` the BUILDER code the
   * service would have answered with); nothing was sent.
   * @example
   * ```ts
   * // publish.mts
   * import { createEmbeddableClient, EmbeddableValidationError } from 'cube-dual-auth/service';
   *
   * const client = createEmbeddableClient({ apiKey: process.env.EMBEDDABLE_API_KEY ?? '', region: 'us' });
   * try {
   *   await client.publishVersion('0b9c7f2e-4a1d-4c3b-9e8f-2d6a5b7c8e90', 'production', ['production']);
   * } catch (error) {
   *   if (!(error instanceof EmbeddableValidationError)) throw error;
   *   console.error(error.field, error.code); // version BUILDER-172: a tag name, where a label such as v7 belongs
   * }
   * ```
   */
  EmbeddableValidationError,
  type NetworkFailure,
  type ResponseProblem,
  type StateProblem,
} from './errors';
export {
  /**
   * The sections of a dashboard definition that `diffDefinitions` compares item by item: `variables`, `datasets`,
   * `widgets`.
   * @example
   * ```ts
   * import { DEFINITION_SECTIONS, type DefinitionChanges } from 'cube-dual-auth/service';
   *
   * export function summary(changes: DefinitionChanges): string {
   *   return DEFINITION_SECTIONS.map((section) => {
   *     const { added, removed, changed } = changes[section];
   *     return `${section}: +${added.length} -${removed.length} ~${changed.length}`;
   *   }).join(', ');
   * }
   * ```
   */
  DEFINITION_SECTIONS,
  /**
   * What changed between two dashboard definitions: the dashboard's own fields, then the added, removed and changed
   * items of each section, each change a field with its value before and after.
   * @example
   * ```ts
   * // review.mts: what a promotion would change, before it is made
   * import { createEmbeddableClient, diffDefinitions } from 'cube-dual-auth/service';
   *
   * const client = createEmbeddableClient({ apiKey: process.env.EMBEDDABLE_API_KEY ?? '', region: 'us' });
   * const dashboard = '0b9c7f2e-4a1d-4c3b-9e8f-2d6a5b7c8e90';
   * const changes = diffDefinitions(
   *   await client.getVersionDefinition(dashboard, 'v6'),
   *   await client.getVersionDefinition(dashboard, 'v7'),
   * );
   * for (const { key, changes: fields } of changes.widgets.changed) {
   *   for (const { field, before, after } of fields) console.log(`${key}: ${field} ${before} -> ${after}`);
   * }
   * ```
   */
  diffDefinitions,
} from './definition-diff';
export type { EmbeddableClientOptions } from './options';
export {
  /**
   * The method and path of each operation the client sends, with `assumed` true for a path the interface does not
   * show; a path parameter is refused or percent-encoded as the client does it.
   * @example
   * ```ts
   * import { embeddableEndpoints } from 'cube-dual-auth/service';
   *
   * // For a proxy's allow-list: POST /api/v1/embeddables/0b9c7f2e-…/saved-versions/v7/publish
   * const { method, path } = embeddableEndpoints.publishVersion('0b9c7f2e-4a1d-4c3b-9e8f-2d6a5b7c8e90', 'v7');
   * console.log(method, path);
   * ```
   */
  endpoints as embeddableEndpoints,
  type Endpoint as EmbeddableEndpoint,
} from './endpoints';
export type {
  CreateDataProviderInput,
  DashboardDataset,
  DashboardDefinition,
  DashboardVariable,
  DashboardWidget,
  DataProviderCredentials,
  DataProviderRecord,
  DataProviderUpsert,
  DatasetFilter,
  DefinitionChanges,
  DefinitionDiff,
  DefinitionItem,
  FieldChange,
  ItemChange,
  Promotion,
  Rollback,
  SavedVersion,
  SavedVersionList,
  SecurityTokenRequest,
  SecurityTokenResponse,
  SectionDiff,
  TagAssignment,
  TagMap,
  UpdateDataProviderInput,
  WidgetInput,
} from './types';
