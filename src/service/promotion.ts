/**
 * The decisions behind promote and rollback, made from the dashboard's saved-versions list
 * (docs/service-client.md#list-saved-versions): where a tag points, and which saved version comes before another.
 * Publishing stays the one write.
 */
import { MAX_LISTED_VERSIONS, type EnvironmentTag } from './constants';
import { EmbeddableResponseError, EmbeddableStateError } from './errors';
import type { SavedVersion, SavedVersionList, TagAssignment, TagMap } from './types';

/** Where `tag` points: the map's own member only, never one inherited from a prototype. */
export function tagAssignment(tags: TagMap, tag: string): TagAssignment | undefined {
  return Object.hasOwn(tags, tag) ? tags[tag] : undefined;
}

/** The label `tag` points to; refused when the tag is not set (it was never published to). */
export function taggedVersion(
  list: SavedVersionList,
  tag: EnvironmentTag,
  operation: string,
  purpose: 'promote' | 'roll back',
): string {
  const assignment = tagAssignment(list.tags, tag);
  if (assignment) return assignment.version;
  const instead = purpose === 'promote' ? 'publish a version to it first' : 'publish a version to it instead';
  throw new EmbeddableStateError(
    'ERR_TAG_ABSENT',
    `${tag} is not set on this dashboard (no version was published to it), so there is nothing to ${purpose}; ${instead}`,
    operation,
  );
}

/** `saved-at` as milliseconds; the interface gives every saved version one (docs/service-client.md#saved-version). */
function savedAt(version: SavedVersion, operation: string, status: number): number {
  const time = typeof version['saved-at'] === 'string' ? Date.parse(version['saved-at']) : Number.NaN;
  if (Number.isNaN(time))
    throw new EmbeddableResponseError(
      operation,
      status,
      `saved version ${JSON.stringify(version.version)} has no ISO 8601 saved-at`,
    );
  return time;
}

/**
 * The newest saved version older, by `saved-at`, than `current` (which `tag` points to). Refused when
 * there is none, and when there may be one that is not listed: the list holds the last 30 only, so the
 * version before the oldest listed one, or before one older than all of them, cannot be known (the
 * caller must name the target).
 */
export function previousVersion(
  list: SavedVersionList,
  tag: EnvironmentTag,
  current: string,
  operation: string,
  status: number,
): string {
  const listed = list.savedVersions.find((v) => v.version === current);
  if (!listed) {
    const message = `${tag} points at ${current}, which is older than the ${list.savedVersions.length} listed saved versions, so the one before it is not known; name the version to roll back to`;
    throw new EmbeddableStateError('ERR_NO_OLDER_VERSION', message, operation);
  }
  const limit = savedAt(listed, operation, status);
  let best: { version: string; time: number } | undefined;
  for (const candidate of list.savedVersions) {
    const time = savedAt(candidate, operation, status);
    if (time < limit && (best === undefined || time > best.time)) best = { version: candidate.version, time };
  }
  if (best) return best.version;
  // A full list may have left older versions out; a shorter one is all there is.
  const message =
    list.savedVersions.length >= MAX_LISTED_VERSIONS
      ? `${tag} points at ${current}, the oldest of the ${list.savedVersions.length} listed saved versions; older ones are not listed, so name the version to roll back to`
      : `${tag} points at ${current}, and no saved version is older than it; there is nothing to roll back to`;
  throw new EmbeddableStateError('ERR_NO_OLDER_VERSION', message, operation);
}
