/**
 * Every endpoint path of the service, in one place. Path parameters are percent-encoded here.
 *
 * The data-provider list, read and delete paths are ASSUMED: the interface says those operations exist
 * but does not show their methods or paths (part 4.6). They follow the REST convention of the paths it
 * does show (`POST /api/v1/data-providers`, `PUT /api/v1/data-providers/{name}`). Correct them here if
 * the service differs.
 */

const API = '/api/v1';
const segment = encodeURIComponent;

/** An endpoint: HTTP method, path, and whether the path comes from the interface or is assumed. */
export interface Endpoint {
  readonly method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  readonly path: string;
  /** `true` when the interface does not show this path and the client assumes it. */
  readonly assumed: boolean;
}

const shown = (method: Endpoint['method'], path: string): Endpoint => ({ method, path, assumed: false });
const assumed = (method: Endpoint['method'], path: string): Endpoint => ({ method, path, assumed: true });

/** Builders for each endpoint. */
export const endpoints = {
  /** Part 4.1. */
  listSavedVersions: (embeddableId: string) => shown('GET', `${API}/embeddables/${segment(embeddableId)}/saved-versions`),
  /** Part 4.3. */
  getVersionDefinition: (embeddableId: string, version: string) =>
    shown('GET', `${API}/embeddables/${segment(embeddableId)}/saved-versions/${segment(version)}/metadata`),
  /** Part 4.2. */
  publishVersion: (embeddableId: string, version: string) =>
    shown('POST', `${API}/embeddables/${segment(embeddableId)}/saved-versions/${segment(version)}/publish`),
  /** Part 4.4. */
  createDataProvider: () => shown('POST', `${API}/data-providers`),
  /** Part 4.5. */
  updateDataProvider: (name: string) => shown('PUT', `${API}/data-providers/${segment(name)}`),
  /** Assumed (part 4.6 does not show it). */
  listDataProviders: () => assumed('GET', `${API}/data-providers`),
  /** Assumed (part 4.6 does not show it). */
  getDataProvider: (name: string) => assumed('GET', `${API}/data-providers/${segment(name)}`),
  /** Assumed (part 4.6 does not show it). */
  deleteDataProvider: (name: string) => assumed('DELETE', `${API}/data-providers/${segment(name)}`),
  /** Part 4.7 (given relative in the reference; sent to the same base URL as the rest). */
  createSecurityToken: () => shown('POST', `${API}/security-token`),
} as const;
