import type { DefinitionDiff, FieldChange, Promotion, SavedVersionList, SectionDiff, TagMap } from '../../service';
import { DEFINITION_SECTIONS, MAX_LISTED_VERSIONS } from '../../service';
import { forTerminal } from '../../terminal-text';
import { required } from '../args';
import { UsageError, type CliIO, type Command } from '../io';
import {
  CONNECTION_OPTIONS,
  connectionOptionsHelp,
  dispatch,
  parseServiceArgs,
  runService,
  SERVICE_ENVIRONMENT_HELP,
  serviceExitHelp,
  table,
} from '../service-options';

const DASHBOARD = '3f2a0c1e-8b9d-4e5f-a6b7-c8d9e0f1a2b3';

const help = `Usage: cube-dual-auth versions <action> <embeddableId> [<version>...] [options]

Lists, reads and compares the saved versions of a dashboard, and moves its environment tags
(development, staging, production) between them: for CI/CD, promote what staging runs to production,
review what changes first, and roll back. A version is a saved-version label such as v7; where one is
expected, a tag name is refused (BUILDER-172).

Actions:
  list <embeddableId>
      the last ${MAX_LISTED_VERSIONS} saved versions, newest first: version, saved-at, saved-by, the tags
      pointing at each, description; --json prints {"tags": {...}, "savedVersions": [...]}
  show <embeddableId> <version>
      the dashboard definition at saved version <version>, as JSON
  diff <embeddableId> <versionA> <versionB>
      what changed from <versionA> to <versionB>: the dashboard's own fields, then the variables,
      datasets and widgets added (+), removed (-) and changed (~, field by field); --json prints
      {"from", "to", "identical", "dashboard", "variables", "datasets", "widgets"}
  publish <embeddableId> <version> --tags <tag>[,<tag>...]
      point the tags at <version> and print the new tag map; publishing again is harmless
  promote <embeddableId> --from <tag> --to <tag>[,<tag>...]
      publish the version the --from tag points to onto the --to tags and print the new tag map;
      refused, publishing nothing, when the --from tag is not set
  rollback <embeddableId> --tag <tag> [--to <version>]
      point the tag at --to or, without it, at the newest saved version older (by saved-at) than
      the one it points to now, and print from which version to which; refused when the tag is
      not set or no listed version is older. Without --to, every run moves the tag one further back.

Options:
${connectionOptionsHelp()}

Environment:
${SERVICE_ENVIRONMENT_HELP}

${serviceExitHelp(
  ',\n     or the tags do not allow it (promote: --from not set; rollback: tag not set, no older version)',
)}

Examples:
  cube-dual-auth versions list ${DASHBOARD} --region us
  cube-dual-auth versions diff ${DASHBOARD} v7 v8
  cube-dual-auth versions promote ${DASHBOARD} --from staging --to production
  cube-dual-auth versions rollback ${DASHBOARD} --tag production
  cube-dual-auth versions rollback ${DASHBOARD} --tag production --to v6 --json
  cube-dual-auth versions publish ${DASHBOARD} v6 --tags production,staging
`;

/** Tags pointing at each version label. */
function tagsByVersion(tags: TagMap): Map<string, string[]> {
  const result = new Map<string, string[]>();
  for (const [tag, assignment] of Object.entries(tags)) {
    if (assignment) result.set(assignment.version, [...(result.get(assignment.version) ?? []), tag]);
  }
  return result;
}

/** The service's answers are printed as text: every cell and line of it escaped for the terminal. */
function versionTable(list: SavedVersionList): string {
  if (list.savedVersions.length === 0) return 'No saved versions.\n';
  const tags = tagsByVersion(list.tags);
  const text = (value: unknown) => (typeof value === 'string' ? value.replace(/\s+/g, ' ') : '');
  const rows = list.savedVersions.map((v) =>
    [
      v.version,
      text(v['saved-at']),
      text(v['saved-by']),
      (tags.get(v.version) ?? []).join(', '),
      text(v.description),
    ].map(forTerminal),
  );
  const listed = new Set(list.savedVersions.map((v) => v.version));
  // A tag can point at a version older than the listed ones; say so rather than drop it.
  const notes = Object.entries(list.tags).flatMap(([tag, a]) =>
    a && !listed.has(a.version)
      ? [`${forTerminal(`Note: ${tag} points at ${a.version}, older than the ${list.savedVersions.length} listed.`)}\n`]
      : [],
  );
  return table(['VERSION', 'SAVED AT', 'SAVED BY', 'TAGS', 'DESCRIPTION'], rows) + notes.join('');
}

function tagTable(tags: TagMap): string {
  const rows = Object.entries(tags).flatMap(([tag, a]) =>
    a ? [[tag, a.version, a.updatedAt ?? ''].map(forTerminal)] : [],
  );
  return table(['TAG', 'VERSION', 'UPDATED AT'], rows);
}

function splitTags(values: readonly string[]): string[] {
  // `--tags production,staging` and `--tags production --tags staging` are the same; empty items are left
  // out so that `--tags ""` reaches validation as an empty list (BUILDER-996).
  return values
    .flatMap((v) => v.split(','))
    .map((t) => t.trim())
    .filter((t) => t !== '');
}

async function list(args: readonly string[], io: CliIO): Promise<number> {
  const { values, positionals } = parseServiceArgs(args, CONNECTION_OPTIONS, ['embeddableId']);
  return runService('versions list', io, values, async (client, output) => {
    const result = await client.listSavedVersions(positionals[0] ?? '');
    output.result(result, () => versionTable(result));
  });
}

async function show(args: readonly string[], io: CliIO): Promise<number> {
  const { values, positionals } = parseServiceArgs(args, CONNECTION_OPTIONS, ['embeddableId', 'version']);
  return runService('versions show', io, values, async (client, output) => {
    output.result(await client.getVersionDefinition(positionals[0] ?? '', positionals[1] ?? ''));
  });
}

async function publish(args: readonly string[], io: CliIO): Promise<number> {
  const { values, positionals } = parseServiceArgs(
    args,
    { ...CONNECTION_OPTIONS, tags: { type: 'string', multiple: true } },
    ['embeddableId', 'version'],
  );
  if (values.tags === undefined)
    throw new UsageError('--tags is required: one or more of development, staging, production');
  const tags = splitTags(values.tags);
  const [id = '', version = ''] = positionals;
  return runService('versions publish', io, values, async (client, output) => {
    const result = await client.publishVersion(id, version, tags);
    output.result(
      { tags: result },
      () => `${forTerminal(`Published ${version} to ${tags.join(', ')}.`)}\n${tagTable(result)}`,
    );
  });
}

/** `to production (was v7), development (was not set)` */
function describePromotion(promotion: Promotion): string {
  const targets = promotion.to.map((tag) => {
    const before = promotion.previous[tag];
    const was = before === null || before === undefined ? 'was not set' : `was ${before}`;
    return `${tag} (${before === promotion.version ? 'already there' : was})`;
  });
  const promoted = `Promoted ${promotion.version} from ${promotion.from} to ${targets.join(', ')}.`;
  return `${forTerminal(promoted)}\n${tagTable(promotion.tags)}`;
}

async function promote(args: readonly string[], io: CliIO): Promise<number> {
  const options = { ...CONNECTION_OPTIONS, from: { type: 'string' }, to: { type: 'string', multiple: true } } as const;
  const { values, positionals } = parseServiceArgs(args, options, ['embeddableId']);
  const from = required(values.from, '--from');
  if (values.to === undefined)
    throw new UsageError('--to is required: one or more of development, staging, production');
  const to = splitTags(values.to);
  return runService('versions promote', io, values, async (client, output) => {
    const promotion = await client.promoteVersion(positionals[0] ?? '', from, to);
    output.result(promotion, () => describePromotion(promotion));
  });
}

async function rollback(args: readonly string[], io: CliIO): Promise<number> {
  const options = { ...CONNECTION_OPTIONS, tag: { type: 'string' }, to: { type: 'string' } } as const;
  const { values, positionals } = parseServiceArgs(args, options, ['embeddableId']);
  const tag = required(values.tag, '--tag');
  return runService('versions rollback', io, values, async (client, output) => {
    const result = await client.rollbackTag(positionals[0] ?? '', tag, values.to);
    const line =
      result.from === result.to
        ? `${result.tag} already points at ${result.to}; nothing changed.`
        : `Rolled back ${result.tag} from ${result.from} to ${result.to}.`;
    output.result(result, () => `${forTerminal(line)}\n${tagTable(result.tags)}`);
  });
}

/** A value as the diff prints it: JSON, compact; `(absent)` for a field one side does not have. */
function shown(value: unknown): string {
  return value === undefined ? '(absent)' : JSON.stringify(value);
}

function fieldLines(changes: readonly FieldChange[], indent: string): string[] {
  return changes.map((c) => `${indent}${c.field}: ${shown(c.before)} -> ${shown(c.after)}`);
}

function counted(section: SectionDiff): string {
  const parts = [
    [section.added.length, 'added'],
    [section.removed.length, 'removed'],
    [section.changed.length, 'changed'],
  ].flatMap(([count, what]) => (count === 0 ? [] : [`${count} ${what}`]));
  return parts.length === 0 ? 'no changes' : parts.join(', ');
}

/**
 * The diff for people: one block per section, `+` added, `-` removed, `~` changed with its fields; each line escaped.
 */
function describeDiff(diff: DefinitionDiff): string {
  if (diff.identical) return `${forTerminal(`${diff.from} and ${diff.to} are identical.`)}\n`;
  const lines = [`From ${diff.from} to ${diff.to}:`];
  lines.push(
    `dashboard: ${diff.dashboard.length === 0 ? 'no changes' : `${diff.dashboard.length} changed`}`,
    ...fieldLines(diff.dashboard, '  ~ '),
  );
  for (const name of DEFINITION_SECTIONS) {
    const section = diff[name];
    lines.push(`${name}: ${counted(section)}`);
    lines.push(...section.added.map((item) => `  + ${item.key}`), ...section.removed.map((item) => `  - ${item.key}`));
    for (const item of section.changed) lines.push(`  ~ ${item.key}`, ...fieldLines(item.changes, '      '));
  }
  return `${lines.map(forTerminal).join('\n')}\n`;
}

async function diff(args: readonly string[], io: CliIO): Promise<number> {
  const { values, positionals } = parseServiceArgs(args, CONNECTION_OPTIONS, ['embeddableId', 'versionA', 'versionB']);
  const [id = '', versionA = '', versionB = ''] = positionals;
  return runService('versions diff', io, values, async (client, output) => {
    const result = await client.diffVersions(id, versionA, versionB);
    output.result(result, () => describeDiff(result));
  });
}

/** `cube-dual-auth versions list|show|diff|publish|promote|rollback`. */
export const versions: Command = {
  help,
  run: dispatch({ list, show, diff, publish, promote, rollback }),
};
