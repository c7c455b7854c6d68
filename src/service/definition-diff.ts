/**
 * What changed between two dashboard definitions (docs/service-client.md#dashboard-definition), section by section, so
 * that a reviewer sees "widget BarChart at 0,0: dimensions.width 6 -> 12" before promoting.
 */
import { isDeepStrictEqual } from 'node:util';
import {
  isJsonObject,
  type DashboardDefinition,
  type DefinitionChanges,
  type DefinitionItem,
  type FieldChange,
  type ItemChange,
  type JsonObject,
  type SectionDiff,
} from './types';

/** The sections compared item by item; every other field of the definition is the dashboard's own. */
export const DEFINITION_SECTIONS = ['variables', 'datasets', 'widgets'] as const;
type Section = (typeof DEFINITION_SECTIONS)[number];

/**
 * A field's own value. The field names come from the answers, so a plain `object[field]` would find
 * `constructor` or `__proto__` on the prototype of an object that does not have the field.
 */
function own(object: JsonObject, field: string): unknown {
  return Object.hasOwn(object, field) ? object[field] : undefined;
}

/** Every leaf that differs, by path; a value whose type changed (object to string, ...) is one change. */
function fieldChanges(before: unknown, after: unknown, path: string): FieldChange[] {
  if (isDeepStrictEqual(before, after)) return [];
  if (isJsonObject(before) && isJsonObject(after)) {
    const fields = [...new Set([...Object.keys(before), ...Object.keys(after)])];
    return fields.flatMap((field) =>
      fieldChanges(own(before, field), own(after, field), path === '' ? field : `${path}.${field}`),
    );
  }
  if (Array.isArray(before) && Array.isArray(after)) {
    return Array.from({ length: Math.max(before.length, after.length) }, (_, i) =>
      fieldChanges(before[i], after[i], `${path}[${i}]`),
    ).flat();
  }
  return [{ field: path, ...(before !== undefined && { before }), ...(after !== undefined && { after }) }];
}

function items(definition: DashboardDefinition, section: Section): JsonObject[] {
  const list: unknown = definition[section];
  return Array.isArray(list) ? list.filter(isJsonObject) : [];
}

/** `BarChart at 0,4`; a widget without a readable place is known by its position in the list. */
function widgetKey(widget: JsonObject, index: number): string {
  const { component, position } = widget;
  const name = typeof component === 'string' ? component : 'widget';
  return isJsonObject(position) && typeof position.x === 'number' && typeof position.y === 'number'
    ? `${name} at ${position.x},${position.y}`
    : `${name} #${index + 1}`;
}

function keyOf(section: Section, item: JsonObject, index: number): string {
  if (section === 'widgets') return widgetKey(item, index);
  return typeof item.name === 'string' ? item.name : `#${index + 1}`;
}

/** Items with their keys; a repeated key gets ` (2)`, ` (3)`, so that each item is matched once. */
function keyed(section: Section, definition: DashboardDefinition): DefinitionItem[] {
  const seen = new Map<string, number>();
  return items(definition, section).map((value, index) => {
    const key = keyOf(section, value, index);
    const count = (seen.get(key) ?? 0) + 1;
    seen.set(key, count);
    return { key: count === 1 ? key : `${key} (${count})`, value };
  });
}

/** Widgets have no name: one is known by its place on the grid, which no other widget holds. */
function samePlace(a: JsonObject, b: JsonObject): boolean {
  const place = (widget: JsonObject) =>
    isJsonObject(widget.position) ? [widget.position.x, widget.position.y] : undefined;
  const [x, y] = place(a) ?? [];
  return typeof x === 'number' && typeof y === 'number' && isDeepStrictEqual(place(a), place(b));
}

/** A widget that moved: same component and inputs, another place. */
function sameContent(a: JsonObject, b: JsonObject): boolean {
  return isDeepStrictEqual(a.component, b.component) && isDeepStrictEqual(a.inputs, b.inputs);
}

function diffSection(section: Section, before: DashboardDefinition, after: DashboardDefinition): SectionDiff {
  // What is left unmatched in the end was removed (first version only) or added (second only).
  const onlyBefore = keyed(section, before);
  const onlyAfter = keyed(section, after);
  const pairs: Array<[DefinitionItem, DefinitionItem]> = [];
  const match = (same: (a: DefinitionItem, b: DefinitionItem) => boolean) => {
    for (const old of [...onlyBefore]) {
      const index = onlyAfter.findIndex((candidate) => same(old, candidate));
      if (index === -1) continue;
      pairs.push([old, onlyAfter[index] as DefinitionItem]);
      onlyBefore.splice(onlyBefore.indexOf(old), 1);
      onlyAfter.splice(index, 1);
    }
  };
  if (section === 'widgets') {
    match((a, b) => samePlace(a.value, b.value));
    match((a, b) => sameContent(a.value, b.value));
  } else {
    match((a, b) => a.key === b.key);
  }
  const changed: ItemChange[] = pairs
    .map(([a, b]) => ({ key: a.key, changes: fieldChanges(a.value, b.value, '') }))
    .filter((change) => change.changes.length > 0);
  return { added: onlyAfter, removed: onlyBefore, changed };
}

/** The changes from `before` to `after`: the dashboard's own fields, then each section's items. */
export function diffDefinitions(before: DashboardDefinition, after: DashboardDefinition): DefinitionChanges {
  const own = (definition: DashboardDefinition) =>
    Object.fromEntries(
      Object.entries(definition).filter(([field]) => !(DEFINITION_SECTIONS as readonly string[]).includes(field)),
    );
  return {
    identical: isDeepStrictEqual(before, after),
    dashboard: fieldChanges(own(before), own(after), ''),
    variables: diffSection('variables', before, after),
    datasets: diffSection('datasets', before, after),
    widgets: diffSection('widgets', before, after),
  };
}
