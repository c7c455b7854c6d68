import type { EnvironmentTag } from './constants';

/** A JSON object whose fields this client does not interpret. */
export type JsonObject = { [field: string]: unknown };

/** Whether a parsed JSON value is an object (not null, not an array): the package's one test, named for here. */
export { isObject as isJsonObject } from '../http/json';

/** A saved version (docs/service-client.md#saved-version), with the service's own field names; unknown ones kept. */
export interface SavedVersion {
  /** Generated label `v<N>`, unique per dashboard. */
  version: string;
  /** E-mail address of the user who saved it. */
  'saved-by'?: string;
  description?: string;
  /** ISO 8601 UTC with fractional seconds; the list is ordered by it. */
  'saved-at'?: string;
  'components-version'?: string;
  'models-version'?: string;
  [field: string]: unknown;
}

/** Where a tag points (docs/service-client.md#tag-map), its time always as `updatedAt`. */
export interface TagAssignment {
  /** The saved-version label the tag points to. */
  version: string;
  /** When the tag last changed, ISO 8601 (`undefined` if the service left it out). */
  updatedAt: string | undefined;
  [field: string]: unknown;
}

/**
 * The tag map of a dashboard, holding the tags published to only. No prototype, so every key is the service's own
 * (`__proto__` too); test for a tag with `Object.hasOwn(tags, tag)` or `tags[tag]`.
 */
export type TagMap = { [tag in EnvironmentTag]?: TagAssignment } & { [tag: string]: TagAssignment | undefined };

/** The answer of {@link EmbeddableClient.listSavedVersions}. */
export interface SavedVersionList {
  tags: TagMap;
  /** The last saved versions (at most 30), newest first by `saved-at`. */
  savedVersions: SavedVersion[];
}

/** A dashboard variable (docs/service-client.md#dashboard-definition). */
export interface DashboardVariable {
  /** The name dataset filters refer to. */
  name: string;
  type: string;
  /** For a time range: `{ from, to }` date strings. */
  defaultValue?: JsonObject;
  [field: string]: unknown;
}

/** A filter of a dataset (docs/service-client.md#dashboard-definition). */
export interface DatasetFilter {
  /** `<model>.<field>`. */
  member: string;
  operator: string;
  /** Here the name of a variable. */
  value: string;
  valueType: string;
  [field: string]: unknown;
}

/** A dataset of the dashboard (docs/service-client.md#dashboard-definition). */
export interface DashboardDataset {
  name: string;
  /** The data model (cube) it reads. */
  model: string;
  filters: DatasetFilter[];
  [field: string]: unknown;
}

/** An input of a widget (docs/service-client.md#dashboard-definition). */
export interface WidgetInput {
  input: string;
  inputType: string;
  /** A `<model>.<member>` reference. */
  value: string;
  [field: string]: unknown;
}

/** A widget of the dashboard (docs/service-client.md#dashboard-definition). */
export interface DashboardWidget {
  component: string;
  /** Place on the dashboard grid. */
  position: { x: number; y: number; [field: string]: unknown };
  dimensions: { width: number; height: number; [field: string]: unknown };
  inputs: WidgetInput[];
  [field: string]: unknown;
}

/** A dashboard definition at a saved version (docs/service-client.md#dashboard-definition), every field kept. */
export interface DashboardDefinition {
  name: string;
  title: string;
  variables: DashboardVariable[];
  datasets: DashboardDataset[];
  widgets: DashboardWidget[];
  [field: string]: unknown;
}

/** The deployment's credentials (docs/service-client.md#data-provider). */
export interface DataProviderCredentials {
  /** The deployment's API secret (`CUBEJS_API_SECRET`); for a preview branch, that environment's secret. */
  secretKey: string;
  /** The deployment's REST API URL, with or without `/cubejs-api/v1`: the suffix and a trailing slash are trimmed. */
  instanceUrl: string;
}

/** Input of {@link EmbeddableClient.createDataProvider}; the `type` is always {@link CUBE_DATA_PROVIDER_TYPE}. */
export interface CreateDataProviderInput {
  /** Unique within the workspace; security contexts and token requests refer to the deployment by it. */
  name: string;
  /** `vMAJOR.MINOR.PATCH`. */
  version: string;
  credentials: DataProviderCredentials;
}

/** Input of {@link EmbeddableClient.updateDataProvider}: only the credentials given are sent. */
export interface UpdateDataProviderInput {
  /** `vMAJOR.MINOR.PATCH`. */
  version: string;
  credentials?: Partial<DataProviderCredentials>;
}

/** A data provider as the service returns it: the likely fields named, everything kept (the record is not shown). */
export interface DataProviderRecord {
  name?: string;
  type?: string;
  version?: string;
  [field: string]: unknown;
}

/** Input of {@link EmbeddableClient.createSecurityToken} (docs/service-client.md#security-token-request). */
export interface SecurityTokenRequest {
  /** UUID of the dashboard. */
  embeddableId: string;
  /** Passed to the deployment whole; anything the deployment needs must be inside it. */
  securityContext: JsonObject;
  /** Name of an existing data provider. */
  dataProvider: string;
  /** A tag, which the token follows when it moves, or a label `v<N>`, pinned. Not sent when omitted. */
  savedVersion?: string;
  /** Lifetime of the token in seconds (not shown in the interface); not sent when omitted. */
  expiryInSeconds?: number;
  /**
   * The user the dashboard is shown to, a unique key such as an e-mail address or a user id: the service keeps the
   * user's dashboard preferences under it. The handbook lists it among the required fields; not sent when omitted.
   */
  user?: string;
  /**
   * Further body fields, sent as given. One named like a field above is refused ({@link EmbeddableValidationError}
   * naming `extraFields.<field>`); `embbeddableId`, the interface's other spelling, must be a UUID. `roles`,
   * `filters` and `environment` are read by the service's managed Cube only (docs/service-client.md#which-fields-reach-your-cube).
   */
  extraFields?: JsonObject;
}

/** The answer to a token request. Its shape is not shown in the interface; `token` is named when present. */
export interface SecurityTokenResponse {
  /** The token to hand to the embedding page. */
  token?: string;
  [field: string]: unknown;
}

/** The answer of {@link EmbeddableClient.promoteVersion}. */
export interface Promotion {
  /** The label published: the one `from` pointed to. */
  version: string;
  from: EnvironmentTag;
  to: EnvironmentTag[];
  /** Where each tag of `to` pointed before: a label, or `null` when the tag was not set. */
  previous: { [tag in EnvironmentTag]?: string | null };
  /** The tag map after the publish. */
  tags: TagMap;
}

/** The answer of {@link EmbeddableClient.rollbackTag}. */
export interface Rollback {
  tag: EnvironmentTag;
  /** The label it pointed to before. */
  from: string;
  /** The label it points to now (equal to `from` when it already pointed there). */
  to: string;
  /** The tag map after the publish. */
  tags: TagMap;
}

/** One field that differs, by its path in the item (`defaultValue.from`, `inputs[0].value`). */
export interface FieldChange {
  field: string;
  /** The value in the first version; absent when the field was added. */
  before?: unknown;
  /** The value in the second version; absent when the field was removed. */
  after?: unknown;
}

/**
 * An item of a section, with the key it is matched by: a variable's or dataset's `name`; a widget's
 * `<component> at <x>,<y>` (a widget that moved with its component and inputs unchanged is matched by those).
 */
export interface DefinitionItem {
  key: string;
  value: JsonObject;
}

/** An item present in both versions, with what differs. */
export interface ItemChange {
  /** The key in the first version. */
  key: string;
  changes: FieldChange[];
}

/** What changed in one section of the definition (`variables`, `datasets` or `widgets`). */
export interface SectionDiff {
  added: DefinitionItem[];
  removed: DefinitionItem[];
  changed: ItemChange[];
}

/** What {@link diffDefinitions} finds between two dashboard definitions. */
export interface DefinitionChanges {
  identical: boolean;
  /** The dashboard's own fields (`name`, `title`, and any field outside the three sections). */
  dashboard: FieldChange[];
  variables: SectionDiff;
  datasets: SectionDiff;
  widgets: SectionDiff;
}

/** The answer of {@link EmbeddableClient.diffVersions}: the changes from version `from` to version `to`. */
export interface DefinitionDiff extends DefinitionChanges {
  from: string;
  to: string;
}

/** The answer of {@link EmbeddableClient.upsertDataProvider}. */
export interface DataProviderUpsert {
  /** `updated` when the provider existed, `created` when it did not. */
  action: 'created' | 'updated';
  /** The answer to the update or the create (`undefined` when its body is empty). */
  record: DataProviderRecord | undefined;
}
