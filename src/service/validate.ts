/**
 * Checks run before any request: bad input gets an error naming the field instead of a round trip, and the
 * service's BUILDER refusals are caught early with the same code.
 */
import { isObject } from '../http/json';
import { checkedUrl } from '../http/url';
import { CUBE_API_SUFFIX, ENVIRONMENT_TAGS, type EnvironmentTag } from './constants';
import { EmbeddableValidationError } from './errors';
import type { JsonObject } from './types';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const VERSION_LABEL = /^v[1-9][0-9]*$/;
const SEMVER_WITH_V = /^v(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)$/;
// eslint-disable-next-line no-control-regex -- control characters are exactly what is refused
const CONTROL = /[\u0000-\u001f\u007f]/;
const MAX_ECHO = 64;

/** Quotes a caller's value for a message: printable, shortened. Never used for secrets. */
export function quote(value: unknown): string {
  if (typeof value === 'string') {
    const printable = value.replace(/[^\x20-\x7e]/g, '?');
    return JSON.stringify(printable.length > MAX_ECHO ? `${printable.slice(0, MAX_ECHO)}...` : printable);
  }
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `${typeof value} ${String(value)}`;
}

function fail(field: string, message: string, operation: string | undefined, code?: string): never {
  throw new EmbeddableValidationError(field, message, operation, code);
}

function isTag(value: string): value is EnvironmentTag {
  return (ENVIRONMENT_TAGS as readonly string[]).includes(value);
}

/** A non-empty string without surrounding whitespace or control characters. */
export function text(field: string, value: unknown, operation?: string): string {
  if (typeof value !== 'string' || value === '')
    fail(field, `must be a non-empty string, got ${quote(value)}`, operation);
  if (value.trim() !== value) fail(field, `must not start or end with whitespace, got ${quote(value)}`, operation);
  if (CONTROL.test(value)) fail(field, 'must not contain control characters', operation);
  return value;
}

/** A secret: like {@link text}, but the value is never echoed. */
export function secret(field: string, value: unknown, operation?: string): string {
  if (typeof value !== 'string' || value === '') fail(field, 'must be a non-empty string', operation);
  if (value.trim() !== value)
    fail(field, 'must not start or end with whitespace (a stray newline from a secret store?)', operation);
  if (CONTROL.test(value)) fail(field, 'must not contain control characters', operation);
  return value;
}

/** A dashboard UUID (docs/service-client.md#requests). */
export function embeddableId(value: unknown, operation: string, field = 'embeddableId'): string {
  if (typeof value !== 'string' || !UUID.test(value))
    fail(field, `must be the dashboard's UUID, got ${quote(value)}`, operation);
  return value;
}

/** A saved-version label `v<N>`; a tag name is refused as the service would (BUILDER-172). */
export function versionLabel(value: unknown, operation: string, field = 'version'): string {
  if (typeof value === 'string' && isTag(value)) {
    fail(
      field,
      `${quote(value)} is a tag name, not a version label; give an explicit label such as v3`,
      operation,
      'BUILDER-172',
    );
  }
  if (typeof value !== 'string' || !VERSION_LABEL.test(value))
    fail(field, `must be a saved-version label v<N> such as v3, got ${quote(value)}`, operation);
  return value;
}

/**
 * Tags to publish to: non-empty (BUILDER-996), each an environment tag (BUILDER-117); duplicates dropped.
 * `field` names them in messages: `tags` for publish, `to` for promote, `tag` for rollback.
 */
export function tags(value: unknown, operation: string, field = 'tags'): EnvironmentTag[] {
  if (!Array.isArray(value) || value.length === 0) {
    fail(
      field,
      `must be a non-empty array of ${ENVIRONMENT_TAGS.join(', ')}, got ${Array.isArray(value) ? 'an empty array' : quote(value)}`,
      operation,
      'BUILDER-996',
    );
  }
  const bad = value.filter((tag) => typeof tag !== 'string' || !isTag(tag));
  if (bad.length > 0) {
    const verb = bad.length === 1 ? 'is not an environment tag' : 'are not environment tags';
    fail(
      field,
      `${bad.map(quote).join(', ')} ${verb}; allowed: ${ENVIRONMENT_TAGS.join(', ')}`,
      operation,
      'BUILDER-117',
    );
  }
  return [...new Set(value as EnvironmentTag[])];
}

/** A tag that is read, never sent (promote's source): an environment tag, without a service code. */
export function environmentTag(field: string, value: unknown, operation: string): EnvironmentTag {
  if (typeof value !== 'string' || !isTag(value))
    fail(field, `must be one of ${ENVIRONMENT_TAGS.join(', ')}, got ${quote(value)}`, operation);
  return value;
}

/** A tag name or a version label, for a token's `savedVersion`. */
export function savedVersion(value: unknown, operation: string): string {
  if (typeof value === 'string' && (isTag(value) || VERSION_LABEL.test(value))) return value;
  return fail(
    'savedVersion',
    `must be a tag (${ENVIRONMENT_TAGS.join(', ')}) or a version label v<N>, got ${quote(value)}`,
    operation,
  );
}

/** A data-provider version `vMAJOR.MINOR.PATCH` (docs/service-client.md#data-provider). */
export function providerVersion(value: unknown, operation: string): string {
  if (typeof value !== 'string' || !SEMVER_WITH_V.test(value)) {
    fail(
      'version',
      `must be vMAJOR.MINOR.PATCH such as v1.0.0 (required on create and update), got ${quote(value)}`,
      operation,
    );
  }
  return value;
}

/** The deployment's URL as the service wants it (docs/service-client.md#data-provider): suffix and slashes trimmed. */
export function instanceUrl(value: unknown, operation: string): string {
  const field = 'credentials.instanceUrl';
  const raw = text(field, value, operation);
  const wording = {
    'not-a-url': `must be an absolute http(s) URL, got ${quote(raw)}`,
    scheme: `must be an http(s) URL, got ${quote(raw)}`,
    credentials: 'must not contain credentials; the secret goes in credentials.secretKey',
    'query-or-fragment': `must not have a query or fragment, got ${quote(raw)}`,
  };
  const url = checkedUrl(raw, wording, (message) => fail(field, message, operation), { bare: true });
  let path = url.pathname.replace(/\/+$/, '');
  if (path.endsWith(CUBE_API_SUFFIX)) path = path.slice(0, -CUBE_API_SUFFIX.length).replace(/\/+$/, '');
  if (path.includes('/cubejs-api')) {
    fail(
      field,
      `must be the deployment's URL up to ${CUBE_API_SUFFIX}, not an endpoint below it; got ${quote(raw)}`,
      operation,
    );
  }
  return `${url.origin}${path}`;
}

/** A plain object that can be sent as JSON (checked here, not left to fail inside the request). */
function jsonObject(field: string, value: unknown, operation: string): JsonObject {
  if (!isObject(value)) fail(field, `must be an object of key/value pairs, got ${quote(value)}`, operation);
  try {
    JSON.stringify(value);
  } catch (error) {
    fail(field, `cannot be sent as JSON: ${error instanceof Error ? error.message : String(error)}`, operation);
  }
  return value as JsonObject;
}

/** A security context: a plain JSON object (docs/service-client.md#security-context-entry). */
export function securityContext(value: unknown, operation: string): JsonObject {
  return jsonObject('securityContext', value, operation);
}

/**
 * The extra fields of a token request. One named like a `checked` field is refused, not sent: it would carry a
 * value its check refuses whenever the caller leaves that field out. `embbeddableId` is checked as a dashboard id.
 */
export function extraFields(value: unknown, checked: readonly string[], operation: string): JsonObject {
  const fields = jsonObject('extraFields', value, operation);
  for (const name of checked) {
    if (Object.hasOwn(fields, name))
      fail(
        `extraFields.${name}`,
        `is a field of the request itself, where it is checked: give it as ${name}, not in extraFields`,
        operation,
      );
  }
  if (Object.hasOwn(fields, 'embbeddableId'))
    embeddableId(fields.embbeddableId, operation, 'extraFields.embbeddableId');
  return fields;
}

/** A positive whole number of seconds. */
export function positiveInteger(field: string, value: unknown, operation: string): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value <= 0)
    fail(field, `must be a positive whole number, got ${quote(value)}`, operation);
  return value;
}

/** A plain object (an input or a nested group of fields). */
export function object<T>(field: string, value: T, operation: string): T {
  if (!isObject(value)) fail(field, `must be an object, got ${quote(value)}`, operation);
  return value;
}
