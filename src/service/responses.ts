/**
 * Reads the service's successful answers into the client's types: only what the client relies on is checked,
 * unknown fields are kept. The one renaming: a tag's change time is always `updatedAt`.
 */
import { DEFINITION_SECTIONS } from './definition-diff';
import { EmbeddableResponseError } from './errors';
import type { ServiceAnswer } from './transport';
import {
  isJsonObject,
  type DashboardDefinition,
  type DataProviderRecord,
  type JsonObject,
  type SavedVersion,
  type SavedVersionList,
  type SecurityTokenResponse,
  type TagAssignment,
  type TagMap,
} from './types';

function object(operation: string, answer: ServiceAnswer, what: string): JsonObject {
  if (!isJsonObject(answer.body))
    throw new EmbeddableResponseError(operation, answer.status, `expected ${what} (a JSON object)`);
  return answer.body;
}

/**
 * Normalises a tag map (`updated-at` or `updatedAt`: docs/service-client.md#tag-map). It has no prototype: an ordinary
 * object would take a `"__proto__"` member of the answer as its prototype, and the tags inside it would look set.
 */
function tagMap(operation: string, answer: ServiceAnswer, raw: unknown): TagMap {
  const result = Object.create(null) as TagMap;
  if (raw === undefined) return result;
  if (!isJsonObject(raw)) throw new EmbeddableResponseError(operation, answer.status, '`tags` is not an object');
  for (const [tag, value] of Object.entries(raw)) {
    if (!isJsonObject(value) || typeof value.version !== 'string') {
      throw new EmbeddableResponseError(operation, answer.status, `tag ${JSON.stringify(tag)} has no version label`);
    }
    const { 'updated-at': kebab, updatedAt: camel, ...rest } = value;
    const when = camel ?? kebab;
    result[tag] = {
      ...rest,
      version: value.version,
      updatedAt: typeof when === 'string' ? when : undefined,
    } satisfies TagAssignment;
  }
  return result;
}

/** See docs/service-client.md#list-saved-versions: `{ tags, "saved-versions": [...] }`. */
export function savedVersionList(operation: string, answer: ServiceAnswer): SavedVersionList {
  const body = object(operation, answer, 'the saved-versions list');
  const versions = body['saved-versions'];
  if (!Array.isArray(versions))
    throw new EmbeddableResponseError(operation, answer.status, '`saved-versions` is not an array');
  for (const entry of versions) {
    if (!isJsonObject(entry) || typeof entry.version !== 'string') {
      throw new EmbeddableResponseError(operation, answer.status, 'a saved version has no `version` label');
    }
  }
  return { tags: tagMap(operation, answer, body.tags), savedVersions: versions as SavedVersion[] };
}

/** See docs/service-client.md#publish-a-version: `{ tags }`. */
export function publishedTags(operation: string, answer: ServiceAnswer): TagMap {
  return tagMap(operation, answer, object(operation, answer, 'the updated tag map').tags);
}

/** See docs/service-client.md#get-version-metadata: the definition, kept whole. */
export function definition(operation: string, answer: ServiceAnswer): DashboardDefinition {
  return object(operation, answer, 'the dashboard definition') as DashboardDefinition;
}

/**
 * The definition with each section an array of objects when present, so that a diff never reports a malformed
 * answer as "removed" (docs/service-client.md#get-version-metadata).
 */
export function comparableDefinition(operation: string, answer: ServiceAnswer): DashboardDefinition {
  const body = definition(operation, answer);
  for (const section of DEFINITION_SECTIONS) {
    const items: unknown = body[section];
    if (items !== undefined && !(Array.isArray(items) && items.every(isJsonObject))) {
      throw new EmbeddableResponseError(operation, answer.status, `\`${section}\` is not an array of objects`);
    }
  }
  return body;
}

/** Create, update, read: the record is not shown in the interface, so any object (or nothing) is accepted. */
export function optionalRecord(operation: string, answer: ServiceAnswer): DataProviderRecord | undefined {
  return answer.body === undefined ? undefined : object(operation, answer, 'a data-provider record');
}

/** An array of records, or an object holding exactly one (not shown: docs/service-client.md#what-is-assumed). */
export function dataProviderList(operation: string, answer: ServiceAnswer): DataProviderRecord[] {
  const body = answer.body;
  const arrays = Array.isArray(body) ? [body] : isJsonObject(body) ? Object.values(body).filter(Array.isArray) : [];
  const list = arrays.length === 1 ? arrays[0] : undefined;
  if (!list || !list.every(isJsonObject)) {
    throw new EmbeddableResponseError(
      operation,
      answer.status,
      'expected a list of data providers (an array of objects)',
    );
  }
  return list as DataProviderRecord[];
}

/** See docs/service-client.md#security-token-request: an object, with `token` a string when present. */
export function securityToken(operation: string, answer: ServiceAnswer): SecurityTokenResponse {
  const body = object(operation, answer, 'the token answer');
  if (body.token !== undefined && typeof body.token !== 'string') {
    throw new EmbeddableResponseError(operation, answer.status, '`token` is not a string');
  }
  return body as SecurityTokenResponse;
}
