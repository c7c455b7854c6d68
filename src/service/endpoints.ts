/** Every endpoint path of the service; the assumed ones are said in docs/service-client.md#what-is-assumed. */
import { EmbeddableValidationError } from './errors';
import { quote } from './validate';

const API = '/api/v1';

// Lone UTF-16 surrogates: encodeURIComponent throws on them, and they are no characters a name can hold.
const LONE_SURROGATE = /\p{Surrogate}/u;

/**
 * A path parameter as exactly one path segment: URL handling would turn `.`, `..` or an empty one into another path,
 * so those are refused and every other value is percent-encoded whole (docs/service-client.md#library-reference).
 */
function pathSegment(field: string, value: string, operation?: string): string {
  if (typeof value !== 'string')
    throw new EmbeddableValidationError(field, `must be a string, got ${quote(value)}`, operation);
  if (value === '' || value === '.' || value === '..') {
    const got = value === '' ? 'an empty string' : quote(value);
    throw new EmbeddableValidationError(
      field,
      `must not be empty, "." or ".." (it is a path parameter, and URL handling would turn it into another path), got ${got}`,
      operation,
    );
  }
  if (LONE_SURROGATE.test(value))
    throw new EmbeddableValidationError(
      field,
      'must be well-formed Unicode (it holds a lone UTF-16 surrogate)',
      operation,
    );
  return encodeURIComponent(value);
}

/** An endpoint: HTTP method, path, and whether the client assumes the path (the interface does not show it). */
export interface Endpoint {
  readonly method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  readonly path: string;
  readonly assumed: boolean;
}

const documented = (method: Endpoint['method'], path: string): Endpoint => ({ method, path, assumed: false });
const assumed = (method: Endpoint['method'], path: string): Endpoint => ({ method, path, assumed: true });

const dashboardPath = (embeddableId: string, operation: string | undefined) =>
  `${API}/embeddables/${pathSegment('embeddableId', embeddableId, operation)}`;
const savedVersionPath = (embeddableId: string, version: string, operation: string | undefined) =>
  `${dashboardPath(embeddableId, operation)}/saved-versions/${pathSegment('version', version, operation)}`;
const dataProviderPath = (name: string, operation: string | undefined) =>
  `${API}/data-providers/${pathSegment('name', name, operation)}`;

/** Builders for each endpoint; `operation` is the client method named when {@link pathSegment} refuses a parameter. */
export const endpoints = {
  /** See docs/service-client.md#list-saved-versions. */
  listSavedVersions: (embeddableId: string, operation?: string) =>
    documented('GET', `${dashboardPath(embeddableId, operation)}/saved-versions`),
  /** See docs/service-client.md#get-version-metadata. */
  getVersionDefinition: (embeddableId: string, version: string, operation?: string) =>
    documented('GET', `${savedVersionPath(embeddableId, version, operation)}/metadata`),
  /** See docs/service-client.md#publish-a-version. */
  publishVersion: (embeddableId: string, version: string, operation?: string) =>
    documented('POST', `${savedVersionPath(embeddableId, version, operation)}/publish`),
  /** See docs/service-client.md#create-a-data-provider. */
  createDataProvider: () => documented('POST', `${API}/data-providers`),
  /** See docs/service-client.md#update-a-data-provider. */
  updateDataProvider: (name: string, operation?: string) => documented('PUT', dataProviderPath(name, operation)),
  /** The next three are assumed (docs/service-client.md#other-data-provider-operations does not show them). */
  listDataProviders: () => assumed('GET', `${API}/data-providers`),
  getDataProvider: (name: string, operation?: string) => assumed('GET', dataProviderPath(name, operation)),
  deleteDataProvider: (name: string, operation?: string) => assumed('DELETE', dataProviderPath(name, operation)),
  /** See docs/service-client.md#security-token-request (given relative; sent to the same base URL). */
  createSecurityToken: () => documented('POST', `${API}/security-token`),
} as const;
