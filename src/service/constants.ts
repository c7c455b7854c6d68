/** The service's domain: the default base URL is `https://api.<region>.embeddable.com` (option `serviceDomain`). */
export const EMBEDDABLE_SERVICE_DOMAIN = 'embeddable.com';

/** The data-provider `type` of a Cube deployment (engine-branded in docs/service-client.md#data-provider); one edit. */
export const CUBE_DATA_PROVIDER_TYPE = 'cube';

/** The environment tags a saved version can be published to (docs/service-client.md#tag-map). */
export const ENVIRONMENT_TAGS = ['development', 'staging', 'production'] as const;

/** One of {@link ENVIRONMENT_TAGS}. */
export type EnvironmentTag = (typeof ENVIRONMENT_TAGS)[number];

/** Cube's REST API path suffix, left out of `instanceUrl` (docs/service-client.md#data-provider). */
export const CUBE_API_SUFFIX = '/cubejs-api/v1';

/** How many saved versions the list operation returns at most (docs/service-client.md#limits). */
export const MAX_LISTED_VERSIONS = 30;

/** The default limit on one answer: 8 MiB, far above any (docs/service-client.md#the-size-of-an-answer). */
export const DEFAULT_MAX_RESPONSE_BYTES = 8 * 1024 * 1024;

/** The highest `maxResponseBytes` accepted: 256 MiB, near the longest string V8 can hold from one answer. */
export const MAX_MAX_RESPONSE_BYTES = 256 * 1024 * 1024;
