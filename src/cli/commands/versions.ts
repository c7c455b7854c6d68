import type { SavedVersionList, TagMap } from '../../service';
import { MAX_LISTED_VERSIONS } from '../../service';
import { UsageError, type CliIO, type Command } from '../io';
import { API_KEY_ENV, connect, CONNECTION_HELP, CONNECTION_OPTIONS, dispatch, Output, parseServiceArgs, runService, table } from '../service-options';

const help = `Usage: cube-dual-auth versions <action> <embeddableId> [...] [options]

Lists, reads and publishes the saved versions of a dashboard. Meant for CI/CD: promote a tested
version to production, and roll back by publishing the previous label again (publish is idempotent).

Actions:
  list <embeddableId>
      The last ${MAX_LISTED_VERSIONS} saved versions, newest first: version, saved-at, saved-by, the tags
      pointing at each, description. --json prints {"tags": {...}, "savedVersions": [...]}.
  show <embeddableId> <version>
      The dashboard definition at saved version <version> (a label such as v3), as JSON.
  publish <embeddableId> <version> --tags <tag>[,<tag>...]
      Point the tags (development, staging, production) at <version> and print the new tag map.
      <version> must be a label such as v7: a tag name is refused (BUILDER-172).

${CONNECTION_HELP}

Examples:
  cube-dual-auth versions list 3f2a0c1e-8b9d-4e5f-a6b7-c8d9e0f1a2b3 --region us
  cube-dual-auth versions publish 3f2a0c1e-8b9d-4e5f-a6b7-c8d9e0f1a2b3 v7 --tags production --region us
  cube-dual-auth versions publish 3f2a0c1e-8b9d-4e5f-a6b7-c8d9e0f1a2b3 v6 --tags production,staging --json
`;

/** Tags pointing at each version label. */
function tagsByVersion(tags: TagMap): Map<string, string[]> {
  const result = new Map<string, string[]>();
  for (const [tag, assignment] of Object.entries(tags)) {
    if (assignment) result.set(assignment.version, [...(result.get(assignment.version) ?? []), tag]);
  }
  return result;
}

function versionTable(list: SavedVersionList): string {
  if (list.savedVersions.length === 0) return 'No saved versions.\n';
  const tags = tagsByVersion(list.tags);
  const text = (value: unknown) => (typeof value === 'string' ? value.replace(/\s+/g, ' ') : '');
  const rows = list.savedVersions.map((v) => [v.version, text(v['saved-at']), text(v['saved-by']), (tags.get(v.version) ?? []).join(', '), text(v.description)]);
  const listed = new Set(list.savedVersions.map((v) => v.version));
  // A tag can point at a version older than the listed ones; say so rather than drop it.
  const notes = Object.entries(list.tags).flatMap(([tag, a]) =>
    a && !listed.has(a.version) ? [`Note: ${tag} points at ${a.version}, older than the ${list.savedVersions.length} listed.\n`] : [],
  );
  return table(['VERSION', 'SAVED AT', 'SAVED BY', 'TAGS', 'DESCRIPTION'], rows) + notes.join('');
}

function tagTable(tags: TagMap): string {
  const rows = Object.entries(tags).flatMap(([tag, a]) => (a ? [[tag, a.version, a.updatedAt ?? '']] : []));
  return table(['TAG', 'VERSION', 'UPDATED AT'], rows);
}

function splitTags(values: readonly string[]): string[] {
  // `--tags production,staging` and `--tags production --tags staging` are the same; empty items are left
  // out so that `--tags ""` reaches validation as an empty list (BUILDER-996).
  return values.flatMap((v) => v.split(',')).map((t) => t.trim()).filter((t) => t !== '');
}

async function list(args: readonly string[], io: CliIO): Promise<number> {
  const { values, positionals } = parseServiceArgs(args, CONNECTION_OPTIONS, ['embeddableId']);
  const output = new Output(io, values.json, [io.env[API_KEY_ENV]]);
  return runService('versions list', output, async () => {
    const client = connect(values, io.env);
    const result = await client.listSavedVersions(positionals[0] ?? '');
    output.result(result, () => versionTable(result));
  });
}

async function show(args: readonly string[], io: CliIO): Promise<number> {
  const { values, positionals } = parseServiceArgs(args, CONNECTION_OPTIONS, ['embeddableId', 'version']);
  const output = new Output(io, values.json, [io.env[API_KEY_ENV]]);
  return runService('versions show', output, async () => {
    const client = connect(values, io.env);
    output.result(await client.getVersionDefinition(positionals[0] ?? '', positionals[1] ?? ''));
  });
}

async function publish(args: readonly string[], io: CliIO): Promise<number> {
  const { values, positionals } = parseServiceArgs(args, { ...CONNECTION_OPTIONS, tags: { type: 'string', multiple: true } }, ['embeddableId', 'version']);
  if (values.tags === undefined) throw new UsageError('--tags is required: one or more of development, staging, production');
  const tags = splitTags(values.tags);
  const output = new Output(io, values.json, [io.env[API_KEY_ENV]]);
  const [id = '', version = ''] = positionals;
  return runService('versions publish', output, async () => {
    const client = connect(values, io.env);
    const result = await client.publishVersion(id, version, tags);
    output.result({ tags: result }, () => `Published ${version} to ${tags.join(', ')}.\n${tagTable(result)}`);
  });
}

/** `cube-dual-auth versions list|show|publish`. */
export const versions: Command = {
  help,
  run: dispatch({ list, show, publish }),
};
