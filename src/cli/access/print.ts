/** `access`'s report as text: each caller's verdicts, cubes, members and rows, then what differs. */
import { forTerminal, jsonForTerminal } from '../../terminal-text';
import { NOT_CHECKED } from '../deadline';
import { plural } from '../format';
import { painter, type CliIO } from '../io';
import type { Difference, Side } from './compare';
import type { AccessReport, CallerReport, RowsReport, VerifiedHere } from './report';

type Paint = ReturnType<typeof painter>;

const SIDE_NAME: Record<Side, string> = { first: 'first caller', second: 'second caller' };

/** `"a", "b"`: names from the data model, quoted and escaped. */
function names(list: readonly string[]): string {
  return list.map((name) => jsonForTerminal(name)).join(', ');
}

function describeVerifiedHere(local: VerifiedHere): string {
  if (!local.known) {
    const error = local.error as NonNullable<VerifiedHere['error']>;
    return `not known here: ${error.code}: ${forTerminal(error.message)}`;
  }
  if (!local.accepted) {
    const error = local.error as NonNullable<VerifiedHere['error']>;
    return `refused: ${error.code}: ${forTerminal(error.message)}`;
  }
  const path = `accepted on the ${local.path} path`;
  if (local.authorization === null) return `${path}; tenant and groups not known here (no authorization configured)`;
  const { tenant, groups } = local.authorization;
  const shownGroups = groups.length === 0 ? 'none' : names(groups);
  return `${path}: tenant ${tenant === null ? 'none' : jsonForTerminal(tenant)}, groups ${shownGroups}`;
}

function describeRows(rows: RowsReport, paint: Paint): string {
  const asked = rows.member === null ? '' : ` (/sql of ${jsonForTerminal(rows.member)})`;
  if (rows.status === 'conditions') {
    if (rows.denied) return `${paint('red', 'none')}: Cube denies it, ${forTerminal(rows.summary)}${asked}`;
    return `${forTerminal(rows.summary)}${asked}`;
  }
  if (rows.status === 'not-asked') return 'not asked: no member of it is shown to either caller';
  if (rows.status === 'not-checked') return `${paint('yellow', 'not checked')}: the deadline passed${asked}`;
  const label = rows.status === 'refused' ? paint('yellow', 'refused') : paint('red', 'failed');
  return `${label}: ${forTerminal(rows.message ?? '')}${asked}`;
}

function printCaller(report: CallerReport, paint: Paint, out: string[]): void {
  const origin = report.requestOrigin === null ? '' : `, Request-Origin: ${forTerminal(report.requestOrigin)}`;
  out.push(`${paint('bold', `The ${SIDE_NAME[report.side]}`)}: ${forTerminal(report.token)}${origin}`);
  out.push(`  verified here  ${describeVerifiedHere(report.verifiedHere)}`);
  const { cube } = report;
  if (!cube.accepted) {
    const what =
      cube.status === 403
        ? 'refused the token'
        : cube.status === null && cube.message === NOT_CHECKED
          ? 'not checked'
          : 'failed';
    out.push(`  Cube           ${paint('red', what)}: ${forTerminal(cube.message ?? '')}`);
    if (cube.hint !== null) out.push(`  fix            ${paint('yellow', forTerminal(cube.hint))}`);
    return;
  }
  const kinds = (type: 'cube' | 'view') => report.cubes.filter((shown) => shown.type === type).length;
  out.push(
    `  Cube           accepted it: /meta shows ${plural(kinds('cube'), 'cube')}, ${plural(kinds('view'), 'view')}`,
  );
  if (report.noCubeVisible !== null) out.push(`  ${paint('red', forTerminal(report.noCubeVisible))}`);
  for (const shown of report.cubes) {
    out.push(`  ${shown.type} ${jsonForTerminal(shown.name)}`);
    if (shown.measures.length > 0) out.push(`    measures     ${names(shown.measures)}`);
    if (shown.dimensions.length > 0) out.push(`    dimensions   ${names(shown.dimensions)}`);
    if (shown.segments.length > 0) out.push(`    segments     ${names(shown.segments)}`);
    const rows = report.rows.find((entry) => entry.cube === shown.name);
    if (rows !== undefined) out.push(`    rows         ${describeRows(rows, paint)}`);
  }
  for (const rows of report.rows.filter((entry) => !entry.shown)) {
    out.push(`  ${jsonForTerminal(rows.cube)}: not shown by /meta`);
    out.push(`    rows         ${describeRows(rows, paint)}`);
  }
}

function describeDifference(difference: Difference): string {
  const only = (side: Side) => `only the ${SIDE_NAME[side]} sees it`;
  if (difference.kind === 'cube')
    return `${difference.type} ${jsonForTerminal(difference.cube)}: ${only(difference.only)}`;
  if (difference.kind === 'member') return `member ${jsonForTerminal(difference.member)}: ${only(difference.only)}`;
  return [
    `rows of ${jsonForTerminal(difference.cube)}:`,
    `    first   ${forTerminal(difference.first)}`,
    `    second  ${forTerminal(difference.second)}`,
  ].join('\n');
}

/** The report as text, for people. */
export function printReport(report: AccessReport, io: CliIO): void {
  const paint = painter(io.stdout, io.env);
  const out: string[] = [
    `Access at ${report.url} (timeout ${report.timeoutMs} ms, deadline ${report.deadlineMs} ms)`,
    '',
  ];
  for (const caller of report.callers) {
    printCaller(caller, paint, out);
    out.push('');
  }
  const { comparison } = report;
  if (report.callers.length === 2) {
    if (comparison === null) {
      out.push(`${paint('red', 'Not compared')}: Cube did not accept both tokens.`);
    } else {
      for (const difference of comparison.differences) out.push(`  ${describeDifference(difference)}`);
      out.push(
        comparison.same
          ? `${paint('green', 'The same data')}: both callers see the same cubes, members and rows.`
          : `${paint('red', 'Not the same data')}: ${plural(comparison.differences.length, 'difference')}.`,
      );
    }
  }
  if (report.deadlinePassed) {
    const passed = `the deadline (${report.deadlineMs} ms) passed; what is marked not checked was not.`;
    out.push(`${paint('red', 'Not finished')}: ${passed}`);
  }
  io.stdout.write(`${out.join('\n').replace(/\n+$/, '')}\n`);
}
