/** What changed between two saved versions: the pure comparison, and `diffVersions` against the contract server. */
import { describe, expect, test } from 'vitest';
import {
  diffDefinitions,
  EmbeddableApiError,
  EmbeddableResponseError,
  EmbeddableValidationError,
  type DashboardDefinition,
  type EmbeddableClient,
} from '../../src/service';
import { definitionAt, type ContractServer } from '../support/contract-server';
import { withDashboard } from '../support/service-client';
import { rejectionOf } from '../support/requests';

/** The contract server's definition of `label`, as a typed copy to change. */
function sample(label = 'v1'): DashboardDefinition {
  return structuredClone(definitionAt(label)) as DashboardDefinition;
}

const lineChart = {
  component: 'LineChart',
  position: { x: 0, y: 4 },
  dimensions: { width: 12, height: 4 },
  inputs: [{ input: 'measure', inputType: 'measure', value: 'orders.revenue' }],
};

describe('diffDefinitions', () => {
  test('equal definitions are identical, whatever the order of their fields', () => {
    const a = sample();
    const b = Object.fromEntries(Object.entries(sample()).reverse()) as DashboardDefinition;
    expect(diffDefinitions(a, b)).toEqual({
      identical: true,
      dashboard: [],
      variables: { added: [], removed: [], changed: [] },
      datasets: { added: [], removed: [], changed: [] },
      widgets: { added: [], removed: [], changed: [] },
    });
  });

  test("the dashboard's own fields, unknown ones included, are compared apart from the sections", () => {
    const b = sample();
    b.title = 'Sales';
    b.layoutHints = { columns: 24 };
    b.theme = 'dark';
    expect(diffDefinitions(sample(), b).dashboard).toEqual([
      { field: 'title', before: 'Sales overview (v1)', after: 'Sales' },
      { field: 'layoutHints.columns', before: 12, after: 24 },
      { field: 'theme', after: 'dark' },
    ]);
  });

  test('variables and datasets are matched by name: added, removed, changed field by field', () => {
    const b = sample();
    b.variables = [
      { name: 'period', type: 'timeRange', defaultValue: { from: '2024-02-01', to: '2024-01-31' } },
      { name: 'region', type: 'string' },
    ];
    b.datasets = [{ name: 'customers', model: 'customers', filters: [] }];
    const diff = diffDefinitions(sample(), b);
    expect(diff.identical).toBe(false);
    expect(diff.variables).toEqual({
      added: [{ key: 'region', value: { name: 'region', type: 'string' } }],
      removed: [],
      changed: [
        { key: 'period', changes: [{ field: 'defaultValue.from', before: '2024-01-01', after: '2024-02-01' }] },
      ],
    });
    expect(diff.datasets.added.map((d) => d.key)).toEqual(['customers']);
    expect(diff.datasets.removed.map((d) => d.key)).toEqual(['orders']);
    expect(diff.datasets.changed).toEqual([]);
  });

  test('arrays inside an item are compared by position; a type change is one change', () => {
    const b = sample();
    const orders = b.datasets[0] as DashboardDefinition['datasets'][number];
    orders.filters.push({ member: 'orders.region', operator: 'equals', value: 'region', valueType: 'VARIABLE' });
    (orders.filters[0] as Record<string, unknown>).operator = 'beforeDate';
    orders.model = { name: 'orders' } as unknown as string;
    expect(diffDefinitions(sample(), b).datasets.changed).toEqual([
      {
        key: 'orders',
        changes: [
          { field: 'model', before: 'orders', after: { name: 'orders' } },
          { field: 'filters[0].operator', before: 'inDateRange', after: 'beforeDate' },
          {
            field: 'filters[1]',
            after: { member: 'orders.region', operator: 'equals', value: 'region', valueType: 'VARIABLE' },
          },
        ],
      },
    ]);
  });

  test('widgets are matched by their place on the grid, then a moved widget by its component and inputs', () => {
    const a = sample();
    a.widgets.push({ ...structuredClone(lineChart), position: { x: 6, y: 0 } });
    const b = sample();
    (b.widgets[0] as DashboardDefinition['widgets'][number]).dimensions.width = 12;
    b.widgets.push(structuredClone(lineChart));
    b.widgets.push({ component: 'KPI', position: { x: 0, y: 8 }, dimensions: { width: 3, height: 2 }, inputs: [] });
    const diff = diffDefinitions(a, b);
    expect(diff.widgets.changed).toEqual([
      { key: 'BarChart at 0,0', changes: [{ field: 'dimensions.width', before: 6, after: 12 }] },
      {
        key: 'LineChart at 6,0',
        changes: [
          { field: 'position.x', before: 6, after: 0 },
          { field: 'position.y', before: 0, after: 4 },
        ],
      },
    ]);
    expect(diff.widgets.added.map((w) => w.key)).toEqual(['KPI at 0,8']);
    expect(diff.widgets.removed).toEqual([]);
  });

  test('a widget whose component changed in place is a change; items without a key are known by position', () => {
    const a = sample();
    const b = sample();
    (b.widgets[0] as Record<string, unknown>).component = 'PieChart';
    a.variables.push({ type: 'string' } as DashboardDefinition['variables'][number]);
    expect(diffDefinitions(a, b).widgets.changed).toEqual([
      { key: 'BarChart at 0,0', changes: [{ field: 'component', before: 'BarChart', after: 'PieChart' }] },
    ]);
    expect(diffDefinitions(a, b).variables.removed).toEqual([{ key: '#2', value: { type: 'string' } }]);
  });

  test('a missing section is an empty one', () => {
    const b = sample();
    delete (b as Partial<DashboardDefinition>).widgets;
    expect(diffDefinitions(sample(), b).widgets.removed.map((w) => w.key)).toEqual(['BarChart at 0,0']);
  });
});

describe('diffVersions', () => {
  let server: ContractServer;
  let id: string;
  let client: EmbeddableClient;

  withDashboard((made) => ({ server, id, client } = made), { versions: 8 });

  test('fetches both definitions (two requests) and compares them', async () => {
    const v8 = sample('v7');
    v8.widgets.push(structuredClone(lineChart));
    server.setDefinition(id, 'v8', v8);
    const diff = await client.diffVersions(id, 'v7', 'v8');
    expect(server.requests.map((r) => r.path)).toEqual([
      `/api/v1/embeddables/${id}/saved-versions/v7/metadata`,
      `/api/v1/embeddables/${id}/saved-versions/v8/metadata`,
    ]);
    expect(diff).toMatchObject({ from: 'v7', to: 'v8', identical: false, dashboard: [] });
    expect(diff.widgets.added).toEqual([{ key: 'LineChart at 0,4', value: lineChart }]);
  });

  test('a version with itself is identical', async () => {
    expect(await client.diffVersions(id, 'v3', 'v3')).toMatchObject({ identical: true, dashboard: [] });
  });

  test.each([
    ['not-a-uuid', 'v1', 'v2', 'embeddableId', undefined],
    [undefined, 'production', 'v2', 'versionA', 'BUILDER-172'],
    [undefined, 'v1', 'latest', 'versionB', undefined],
  ])('dashboard %j, %j, %j: refused before sending (%s)', async (badId, a, b, field, code) => {
    const error = await rejectionOf(client.diffVersions(badId ?? id, a, b), Error);
    expect(error).toBeInstanceOf(EmbeddableValidationError);
    expect(error).toMatchObject({ field, code, operation: 'diffVersions' });
    expect(server.requests).toHaveLength(0);
  });

  test('a version that does not exist is reported by the service (404)', async () => {
    const error = await rejectionOf(client.diffVersions(id, 'v1', 'v99'), Error);
    expect(error).toBeInstanceOf(EmbeddableApiError);
    expect(error).toMatchObject({ operation: 'diffVersions', status: 404 });
  });

  test('a section that is not a list of objects is an unexpected answer, not "everything removed"', async () => {
    server.fail({
      path: '/v2/metadata',
      times: 1,
      action: { status: 200, body: JSON.stringify({ ...definitionAt('v2'), widgets: { a: 1 } }) },
    });
    const error = await rejectionOf(client.diffVersions(id, 'v1', 'v2'), Error);
    expect(error).toBeInstanceOf(EmbeddableResponseError);
    expect(error.message).toBe(
      'diffVersions: the service answered HTTP 200 with an unexpected body: `widgets` is not an array of objects',
    );
  });
});
