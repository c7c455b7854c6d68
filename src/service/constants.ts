/**
 * The service's own domain: the default base URL is `https://api.<region>.embeddable.com`
 * (docs/service-client.md#requests: `https://api.<region>.<service-domain>`). Override it with the client's
 * `serviceDomain` option, or pass a whole `baseUrl`.
 */
export const EMBEDDABLE_SERVICE_DOMAIN = 'embeddable.com';

/**
 * The data-provider `type` for a Cube deployment. The interface writes this engine-branded literal as
 * `<DATA_PROVIDER_TYPE>` (docs/service-client.md#data-provider); for Cube it is `"cube"`. Kept here, and only here, so
 * that a correction is one edit.
 */
export const CUBE_DATA_PROVIDER_TYPE = 'cube';

/** The environment tags a saved version can be published to (parts 1, 4.2 and 8). */
export const ENVIRONMENT_TAGS = ['development', 'staging', 'production'] as const;

/** One of {@link ENVIRONMENT_TAGS}. */
export type EnvironmentTag = (typeof ENVIRONMENT_TAGS)[number];

/**
 * Cube's REST API path suffix, which the service wants left out of `instanceUrl`
 * (docs/service-client.md#data-provider).
 */
export const CUBE_API_SUFFIX = '/cubejs-api/v1';

/** How many saved versions the list operation returns at most (docs/service-client.md#limits). */
export const MAX_LISTED_VERSIONS = 30;

/**
 * The default limit on one answer of the service, in bytes: 8 MiB (the client's `maxResponseBytes`).
 * The interface's answers are small: a tag map, at most 30 saved versions, one dashboard definition
 * (the largest, some kilobytes to a few hundred for a big dashboard), data-provider records of a few
 * hundred bytes each. 8 MiB is far above all of them, while what a larger answer could cost stays
 * bounded: the bytes, then the text and the parsed JSON, some tens of MB, instead of gigabytes.
 */
export const DEFAULT_MAX_RESPONSE_BYTES = 8 * 1024 * 1024;

/**
 * The highest `maxResponseBytes` accepted: 256 MiB. An answer much larger could not even be held as one
 * string (V8's limit is about 512 Mi characters), so a higher limit would fail later and less clearly.
 */
export const MAX_MAX_RESPONSE_BYTES = 256 * 1024 * 1024;
