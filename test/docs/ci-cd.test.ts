/**
 * docs/ci-cd.md shows what the commands print: every `$ cube-dual-auth ...` block in it is run again, in the
 * order the page's runs happened, against the contract server with the page's dashboard, and must print
 * exactly what the page shows (the times of tag changes aside).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import type { DashboardDataset, DashboardDefinition, DashboardVariable, DashboardWidget } from '../../src/service';
import { runCli, type CliResult } from '../support/cli';
import { definitionAt, startContractServer, type ContractServer } from '../support/contract-server';
import { examplesIn, shellWords } from '../support/doc-examples';

const DASHBOARD_ID = '3f2a0c1e-8b9d-4e5f-a6b7-c8d9e0f1a2b3';
const page = readFileSync(join(__dirname, '..', '..', 'docs', 'ci-cd.md'), 'utf8');

/** The runs behind the page, in order: each command line as the page writes it. */
const RUNS = [
  'versions promote "$DASHBOARD_ID" --from staging --to production',
  'versions publish "$DASHBOARD_ID" v7 --tags staging,production',
  'versions publish "$DASHBOARD_ID" v8 --tags staging',
  'versions list "$DASHBOARD_ID"',
  'versions diff "$DASHBOARD_ID" v7 v8',
  `versions diff "$DASHBOARD_ID" v7 v8 --json | jq -c '.dashboard, .variables, .widgets.changed'`,
  'versions diff "$DASHBOARD_ID" v7 v7',
  'versions promote "$DASHBOARD_ID" --from staging --to production',
  'versions promote "$DASHBOARD_ID" --from staging --to production',
  'versions promote "$DASHBOARD_ID" --from staging --to production --json',
  'versions promote "$DASHBOARD_ID" --from staging --to production,prod',
  'versions rollback "$DASHBOARD_ID" --tag production',
  'versions rollback "$DASHBOARD_ID" --tag production --to v8 --json',
  'versions rollback "$DASHBOARD_ID" --tag production --to v8',
  'versions rollback "$DASHBOARD_ID" --tag development --json',
  'versions publish "$DASHBOARD_ID" v1 --tags development',
  'versions rollback "$DASHBOARD_ID" --tag development',
  'provider upsert --name cube-pr-17 --instance-url https://pr-17--acme.cubecloudapp.dev/cubejs-api/v1 --provider-version v1.0.0 --secret-env PREVIEW_SECRET',
  'provider upsert --name cube-pr-17 --instance-url https://pr-17--acme.cubecloudapp.dev/cubejs-api/v1 --provider-version v1.0.1 --secret-env PREVIEW_SECRET --json',
];

let server: ContractServer;
/** What each run printed, by command line (a line run several times printed several things). */
const printed = new Map<string, string[]>();

/** The page's dashboard: 8 saved versions, v8 changing v7's title, a variable, a filter and two widgets. */
function addPageDashboard(): void {
  server.addDashboard(8, DASHBOARD_ID);
  const v7 = definitionAt('v7') as unknown as DashboardDefinition;
  const v8 = structuredClone(v7);
  const [period] = v8.variables as [DashboardVariable];
  const [orders] = v8.datasets as [DashboardDataset];
  const [bars] = v8.widgets as [DashboardWidget];
  v8.title = 'Sales overview';
  v8.variables.push({ name: 'region', type: 'string', defaultValue: { value: 'EMEA' } });
  period.defaultValue = { ...period.defaultValue, from: '2024-02-01' };
  orders.filters.push({ member: 'orders.region', operator: 'equals', value: 'region', valueType: 'VARIABLE' });
  bars.dimensions.width = 12;
  v8.widgets.push({
    component: 'LineChart',
    position: { x: 0, y: 4 },
    dimensions: { width: 12, height: 4 },
    inputs: [{ input: 'measure', inputType: 'measure', value: 'orders.revenue' }],
  });
  server.setDefinition(DASHBOARD_ID, 'v7', { ...v7 });
  server.setDefinition(DASHBOARD_ID, 'v8', { ...v8 });
}

/** The words of a command line, as the shell would split this page's lines. */
function words(line: string): string[] {
  return shellWords(line, { DASHBOARD_ID });
}

/** `jq -c 'a, b.c'` for the plain paths this page uses. */
function jqCompact(json: string, filter: string): string {
  const document = JSON.parse(json) as unknown;
  const pick = (path: string) =>
    path
      .split('.')
      .filter(Boolean)
      .reduce<unknown>((value, key) => (value as Record<string, unknown>)[key], document);
  return filter
    .split(',')
    .map((path) => `${JSON.stringify(pick(path.trim()))}\n`)
    .join('');
}

async function runLine(line: string): Promise<string[]> {
  const [command, pipe] = line.split(' | ');
  const env = {
    EMBEDDABLE_API_KEY: 'emb_docs_key_0123456789',
    EMBEDDABLE_BASE_URL: server.baseUrl,
    PREVIEW_SECRET: 'preview-secret-0123456789abcdef',
  };
  const result: CliResult = await runCli(words(command as string), { env });
  if (pipe !== undefined) return [jqCompact(result.stdout, words(pipe)[2] as string)];
  // The page shows standard output then standard error; for --json refusals, standard output alone.
  return [result.stdout + result.stderr, result.stdout];
}

beforeAll(async () => {
  server = await startContractServer({ apiKey: 'emb_docs_key_0123456789' });
  addPageDashboard();
  for (const line of RUNS) printed.set(line, [...(printed.get(line) ?? []), ...(await runLine(line))]);
});
afterAll(() => server.close());

const TIME = /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z/g;
const shown = examplesIn(page);

test('the page shows runs', () => {
  expect(shown.length).toBeGreaterThanOrEqual(15);
});

test.each(shown.map((example) => [`$ cube-dual-auth ${example.command}`, example]))(
  '%s',
  (_first, { command, output }) => {
    expect(RUNS, 'a command on the page that this test does not run').toContain(command);
    // The page's blocks end where the output does: its last line breaks are not shown.
    const outputs = (printed.get(command) ?? []).map((text) => text.replace(TIME, '<time>').replace(/\n+$/, ''));
    expect(outputs).toContain(output.replace(TIME, '<time>'));
  },
);
