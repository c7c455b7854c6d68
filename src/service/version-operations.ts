import type { EnvironmentTag } from './constants';
import { diffDefinitions } from './definition-diff';
import type { EmbeddableClient } from './embeddable-client';
import { endpoints } from './endpoints';
import { EmbeddableValidationError } from './errors';
import { previousVersion, tagAssignment, taggedVersion } from './promotion';
import * as read from './responses';
import type { Send } from './transport';
import type { SavedVersionList, TagMap } from './types';
import * as check from './validate';

type VersionOperations = Pick<
  EmbeddableClient,
  'listSavedVersions' | 'getVersionDefinition' | 'publishVersion' | 'promoteVersion' | 'rollbackTag' | 'diffVersions'
>;

/** The saved-versions list, read under the name of the operation that needs it. */
async function listFor(send: Send, operation: string, id: string): Promise<{ list: SavedVersionList; status: number }> {
  const answer = await send({ operation, endpoint: endpoints.listSavedVersions(id, operation), retry: true });
  return { list: read.savedVersionList(operation, answer), status: answer.status };
}

/** Publishes `version` to `tags` under the name of the operation that does it; publish is idempotent, so retried. */
async function publishFor(
  send: Send,
  operation: string,
  id: string,
  version: string,
  tags: readonly string[],
): Promise<TagMap> {
  return read.publishedTags(
    operation,
    await send({ operation, endpoint: endpoints.publishVersion(id, version, operation), body: { tags }, retry: true }),
  );
}

/** The definition at `label`, checked for comparing. */
async function comparableDefinitionAt(send: Send, operation: string, id: string, label: string) {
  return read.comparableDefinition(
    operation,
    await send({ operation, endpoint: endpoints.getVersionDefinition(id, label, operation), retry: true }),
  );
}

/** The client's operations on a dashboard's saved versions and tags (docs/service-client.md#library-reference). */
export function versionOperations(send: Send): VersionOperations {
  return {
    async listSavedVersions(embeddableId) {
      const operation = 'listSavedVersions';
      const id = check.embeddableId(embeddableId, operation);
      return (await listFor(send, operation, id)).list;
    },

    async getVersionDefinition(embeddableId, version) {
      const operation = 'getVersionDefinition';
      const id = check.embeddableId(embeddableId, operation);
      const label = check.versionLabel(version, operation);
      return read.definition(
        operation,
        await send({ operation, endpoint: endpoints.getVersionDefinition(id, label, operation), retry: true }),
      );
    },

    async publishVersion(embeddableId, version, tags) {
      const operation = 'publishVersion';
      const id = check.embeddableId(embeddableId, operation);
      const label = check.versionLabel(version, operation);
      return publishFor(send, operation, id, label, check.tags(tags, operation));
    },

    async promoteVersion(embeddableId, from, to) {
      const operation = 'promoteVersion';
      const id = check.embeddableId(embeddableId, operation);
      const source = check.environmentTag('from', from, operation);
      const targets = check.tags(to, operation, 'to');
      if (targets.includes(source))
        throw new EmbeddableValidationError('to', `must not include the tag promoted from (${source})`, operation);
      const { list } = await listFor(send, operation, id);
      const version = taggedVersion(list, source, operation, 'promote');
      const previous = Object.fromEntries(targets.map((tag) => [tag, tagAssignment(list.tags, tag)?.version ?? null]));
      const tags = await publishFor(send, operation, id, version, targets);
      return { version, from: source, to: targets, previous, tags };
    },

    async rollbackTag(embeddableId, tag, to) {
      const operation = 'rollbackTag';
      const id = check.embeddableId(embeddableId, operation);
      // Checked as the tags of a publish are, since it is sent as one (BUILDER-117).
      const [moved] = check.tags([tag], operation, 'tag') as [EnvironmentTag];
      const target = to === undefined ? undefined : check.versionLabel(to, operation, 'to');
      const { list, status } = await listFor(send, operation, id);
      const current = taggedVersion(list, moved, operation, 'roll back');
      const version = target ?? previousVersion(list, moved, current, operation, status);
      const tags = await publishFor(send, operation, id, version, [moved]);
      return { tag: moved, from: current, to: version, tags };
    },

    async diffVersions(embeddableId, versionA, versionB) {
      const operation = 'diffVersions';
      const id = check.embeddableId(embeddableId, operation);
      const from = check.versionLabel(versionA, operation, 'versionA');
      const to = check.versionLabel(versionB, operation, 'versionB');
      const before = await comparableDefinitionAt(send, operation, id, from);
      const after = await comparableDefinitionAt(send, operation, id, to);
      return { from, to, ...diffDefinitions(before, after) };
    },
  };
}
