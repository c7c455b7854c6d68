/** The customer side of the service's API: typed client, errors, constants and endpoints. */
export { createEmbeddableClient, type EmbeddableClient } from './client';
export {
  CUBE_API_SUFFIX,
  CUBE_DATA_PROVIDER_TYPE,
  DEFAULT_MAX_RESPONSE_BYTES,
  EMBEDDABLE_SERVICE_DOMAIN,
  ENVIRONMENT_TAGS,
  MAX_LISTED_VERSIONS,
  MAX_MAX_RESPONSE_BYTES,
  type EnvironmentTag,
} from './constants';
export {
  BUILDER_CODE_EXPLANATIONS,
  EmbeddableApiError,
  EmbeddableError,
  EmbeddableNetworkError,
  EmbeddableResponseError,
  EmbeddableStateError,
  EmbeddableValidationError,
  type NetworkFailure,
  type ResponseProblem,
  type StateProblem,
} from './errors';
export { DEFINITION_SECTIONS, diffDefinitions } from './definition-diff';
export type { EmbeddableClientOptions } from './options';
export { endpoints as embeddableEndpoints, type Endpoint as EmbeddableEndpoint } from './endpoints';
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
