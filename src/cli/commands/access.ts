import { ENV, NO_SIGNING_SECRET, signingSecret } from '../../config/env';
import { DEFAULTS } from '../../config/options';
import type { AuthPath, RejectionCode } from '../../errors';
import { forTerminal, jsonForTerminal } from '../../terminal-text';
import { compareSides, rowsSummary, type Difference, type Side } from '../access/compare';
import type { VisibleCube } from '../access/cube-answers';
import {
  memberToQuery,
  readMeta,
  readRows,
  type Caller,
  type CubeRows,
  type MetaOutcome,
  type RequestPlan,
} from '../access/inspect';
import { parseCommandLine, parseDeadline, tokenFrom, type ParsedArgs } from '../args';
import { Deadline, NOT_CHECKED } from '../deadline';
import { plural } from '../format';
import { EXIT_OK, EXIT_REFUSED, UsageError, painter, writeJson, type CliIO, type Command } from '../io';
import { apiBaseUrl } from '../probe/target';
import {
  DEFAULT_TIMEOUT_MS,
  MAX_TIMEOUT_MS,
  SERVICE_TOKEN_SECONDS,
  parseOrigin,
  parseTimeout,
  readIdpToken,
} from './probe';
import { parseClaims, signServiceToken } from './token';
import { verifyToken, type VerifyReport } from './verify';

/** The whole run's deadline: /meta and a few dozen cubes' /sql at Cube's usual pace fit well within it. */
const DEFAULT_DEADLINE_MS = 120_000;

const HELP = `Usage: cube-dual-auth access <cube-api-url> (--token-file <file> | --token - |\
 --service [--claims <json>])\
 [--compare-token-file <file> | --compare-service [--compare-claims <json>]]\
 [--cube <name>]... [--origin <value>] [--timeout <ms>] [--deadline <ms>] [--json]

Shows what the running Cube lets a token see, asked with that token: the tenant and groups the
checkAuth hook gives it (verified here, as verify does, when this environment holds the
configuration), every cube and view /meta shows it with their members, and per cube the row
conditions Cube applies, read from the SQL /sql gives for a minimal query of the cube (one
member): the tenant filter of queryRewrite or of an access policy's row_level, or the 1 = 0 of
a denied member, with their parameters. A caller whose /meta shows no cube is told so, with its
groups; a refused token gets Cube's refusal and the fix verify gives.
With a second token (--compare-*), prints what differs item by item (cubes and views, members,
row conditions) and ends with one line saying whether both callers see the same data; a cube
only one caller is shown is asked for the other with the same member, which shows its denial.
Only /meta and /sql are read: no query runs against the database. No token and no secret is
printed.

Arguments:
  <cube-api-url>              Cube's REST base, e.g. https://cube.example.com/cubejs-api/v1 (as
                              probe takes it)

Options:
  --token-file <file>         the token to look with: an identity provider's token, from <file>
                              ("Bearer " prefix allowed), sent without Request-Origin
  --token -                   the same, from standard input; no other value
  --service                   a service token, minted from the API secret as probe mints it
                              (expires after ${SERVICE_TOKEN_SECONDS} s), sent with "Request-Origin: <origin>"
  --claims <json>             the service token's claims, e.g. '{"tenant":"acme","roles":["analyst"]}'
                              (default {})
  --compare-token-file <file> a second token to compare with, from <file>
  --compare-service           a second, service token to compare with
  --compare-claims <json>     its claims (default {})
  --cube <name>               the cube or view whose rows are reported and compared; repeat for
                              more (default: every one either caller is shown)
  --origin <value>            the Request-Origin value of the service (default ${ENV.origin},
                              else "${DEFAULTS.origin}")
  --timeout <ms>              deadline of each request, from connecting to the last byte
                              (default ${DEFAULT_TIMEOUT_MS}, at most ${MAX_TIMEOUT_MS})
  --deadline <ms>             deadline of the whole run (default ${DEFAULT_DEADLINE_MS}): what it leaves
                              is printed as not checked, and the exit status is 1
  --json                      print the result as JSON (docs/cli-output.md, "access --json")

Environment:
  ${ENV.apiSecret.padEnd(ENV.origin.length)}  the API secret, to sign the service tokens; its first of ${ENV.apiSecrets}
  ${ENV.origin}  the default of --origin
  the hook's own variables (${ENV.tenantClaim}, ${ENV.groupsClaim}, ${ENV.jwksUri}, ...), to
  verify each token here as Cube's hook does

Exit status:
  0  every token accepted by Cube, every request answered
  1  a token refused, Cube failed or did not answer in time, the deadline passed, or no API
     secret for --service
  2  wrong command line

Examples:
  cube-dual-auth access http://localhost:4000 --service --claims '{"tenant":"acme","roles":["analyst"]}'
  cube-dual-auth access "$CUBE_API_URL" --token-file ./id-token.txt --cube orders
  cube-dual-auth access "$CUBE_API_URL" --service --claims '{"tenant":"acme","roles":["analyst"]}' \\
      --compare-token-file ./id-token.txt --cube orders
  get-id-token | cube-dual-auth access "$CUBE_API_URL" --token - --json | jq '.callers[0].rows'
`;

const OPTIONS = {
  'token-file': { type: 'string' },
  token: { type: 'string' },
  service: { type: 'boolean', default: false },
  claims: { type: 'string' },
  'compare-token-file': { type: 'string' },
  'compare-service': { type: 'boolean', default: false },
  'compare-claims': { type: 'string' },
  cube: { type: 'string', multiple: true },
  origin: { type: 'string' },
  timeout: { type: 'string' },
  deadline: { type: 'string' },
  json: { type: 'boolean', default: false },
} as const;

/** Where a caller's token comes from. */
type TokenSource =
  | { readonly kind: 'file'; readonly file: string }
  | { readonly kind: 'stdin' }
  | { readonly kind: 'service'; readonly claims: Record<string, unknown> };

interface AccessArgs {
  readonly base: URL;
  readonly origin: string;
  readonly timeoutMs: number;
  readonly deadlineMs: number;
  readonly callers: readonly TokenSource[];
  /** The cubes and views named with --cube; undefined: every one shown. */
  readonly cubes: readonly string[] | undefined;
  readonly json: boolean;
}

type Values = ParsedArgs<typeof OPTIONS>['values'];

function firstSource(values: Values): TokenSource {
  const { service, claims } = values;
  const from = tokenFrom(values);
  const oneWay = 'give the token one way: --token-file <file>, --token - or --service';
  if (from !== undefined && service) throw new UsageError(`${oneWay} (got 2)`);
  if (from === undefined && !service) throw new UsageError(`${oneWay} (got none)`);
  if (claims !== undefined && !service) throw new UsageError('--claims goes with --service: it is the service token');
  if (from === 'stdin') return { kind: 'stdin' };
  if (from !== undefined) return { kind: 'file', file: from.file };
  return { kind: 'service', claims: claims === undefined ? {} : parseClaims(claims) };
}

function secondSource(values: Values): TokenSource | undefined {
  const { 'compare-token-file': file, 'compare-service': service, 'compare-claims': claims } = values;
  if (file !== undefined && service)
    throw new UsageError('--compare-token-file and --compare-service exclude each other: give one second token');
  if (claims !== undefined && !service)
    throw new UsageError('--compare-claims goes with --compare-service: it is the second service token');
  if (service) {
    // parseClaims names --claims: the second token's are told apart here.
    try {
      return { kind: 'service', claims: claims === undefined ? {} : parseClaims(claims) };
    } catch (error) {
      throw new UsageError((error as Error).message.replace('--claims', '--compare-claims'));
    }
  }
  return file === undefined ? undefined : { kind: 'file', file };
}

function parse(argv: readonly string[], env: NodeJS.ProcessEnv): AccessArgs {
  const { values, positionals } = parseCommandLine(argv, { options: OPTIONS, positionals: ['cube-api-url'] });
  const first = firstSource(values);
  const second = secondSource(values);
  const cubes = values.cube;
  if (cubes?.some((name) => !/^[\w.-]+$/.test(name)))
    throw new UsageError("--cube takes a cube's or view's name as the data model spells it (letters, digits, _ . -)");
  return {
    base: apiBaseUrl(positionals[0] as string),
    origin: parseOrigin(values.origin, env),
    timeoutMs: parseTimeout(values.timeout),
    deadlineMs: parseDeadline(values.deadline, DEFAULT_DEADLINE_MS),
    callers: second === undefined ? [first] : [first, second],
    cubes: cubes === undefined ? undefined : [...new Set(cubes)],
    json: values.json,
  };
}

/** Local verdicts that say nothing of the token: this environment cannot judge its path. */
const NOT_JUDGED_HERE: readonly RejectionCode[] = [
  'ERR_SHARED_SECRET_NOT_CONFIGURED',
  'ERR_JWKS_NOT_CONFIGURED',
  'ERR_JWKS_UNREACHABLE',
  'ERR_JWKS_TIMEOUT',
  'ERR_CONFIG_INVALID',
];

/** The token as `verify` judges it in this environment. */
interface VerifiedHere {
  /** false: this environment holds no configuration to judge the token's path with (error says why). */
  readonly known: boolean;
  readonly accepted: boolean;
  readonly path: AuthPath | null;
  /** The tenant and groups the hook gives; null when not accepted here or no authorization is configured here. */
  readonly authorization: VerifyReport['authorization'];
  readonly error: VerifyReport['error'];
}

/** One caller's part of the report (`--json`'s `callers[]`). */
interface CallerReport {
  readonly side: Side;
  /** How the token was given; the token itself is never shown. */
  readonly token: string;
  readonly requestOrigin: string | null;
  readonly verifiedHere: VerifiedHere;
  /** Cube's verdict on the token, from /meta. */
  readonly cube: {
    readonly accepted: boolean;
    readonly status: number | null;
    readonly message: string | null;
    /** The fix, when Cube refused the token: verify's, or why none is known here. */
    readonly hint: string | null;
  };
  readonly cubes: readonly VisibleCube[];
  /** Set when Cube accepted the token and /meta shows it nothing. */
  readonly noCubeVisible: string | null;
  readonly rows: readonly RowsReport[];
}

/** The row conditions of one cube (`--json`'s `rows[]`). */
interface RowsReport {
  readonly cube: string;
  /** Whether /meta shows this caller the cube. */
  readonly shown: boolean;
  /** The member queried; null: none to query (neither caller is shown one). */
  readonly member: string | null;
  readonly status: 'conditions' | 'refused' | 'failed' | 'not-asked' | 'not-checked';
  readonly conditions: readonly { readonly sql: string; readonly params: readonly unknown[] }[];
  /** A condition is Cube's denial, `1 = 0`: no row. */
  readonly denied: boolean;
  /** Cube's refusal or failure, or why nothing was asked; null for conditions. */
  readonly message: string | null;
  /** The row conditions in one line, as the comparison compares them. */
  readonly summary: string;
}

interface AccessReport {
  readonly url: string;
  readonly timeoutMs: number;
  readonly deadlineMs: number;
  /** The deadline passed: what it left is not checked. */
  readonly deadlinePassed: boolean;
  readonly ok: boolean;
  readonly callers: readonly CallerReport[];
  readonly comparison: { readonly same: boolean; readonly differences: readonly Difference[] } | null;
}

async function callerOf(source: TokenSource, args: AccessArgs, io: CliIO): Promise<Caller> {
  if (source.kind !== 'service')
    return {
      token: (await readIdpToken(source.kind === 'stdin' ? 'stdin' : { file: source.file }, io)) as string,
      origin: undefined,
    };
  const secret = signingSecret(io.env) as NonNullable<ReturnType<typeof signingSecret>>;
  const expiresIn = source.claims.exp === undefined ? SERVICE_TOKEN_SECONDS : undefined;
  const token = signServiceToken(secret.value, source.claims, expiresIn);
  io.scrubber?.holdToken(token);
  return { token, origin: args.origin };
}

function describeSource(source: TokenSource): string {
  if (source.kind === 'file') return `token from ${source.file}`;
  if (source.kind === 'stdin') return 'token from standard input';
  return `service token minted with the API secret, claims ${JSON.stringify(source.claims)}`;
}

async function verifiedHere(caller: Caller, env: NodeJS.ProcessEnv): Promise<VerifiedHere> {
  const { report } = await verifyToken({ token: caller.token, origin: caller.origin }, env);
  return {
    known: report.error === null || !NOT_JUDGED_HERE.includes(report.error.code),
    accepted: report.accepted,
    path: report.path,
    authorization: report.authorization,
    error: report.error,
  };
}

function refusalHint(local: VerifiedHere): string {
  if (!local.known)
    return (
      'this environment cannot verify the token: run cube-dual-auth verify where Cube runs, with ' +
      "Cube's environment"
    );
  if (local.accepted)
    return (
      'this environment accepts the token and Cube refuses it: the two configurations differ; run ' +
      'cube-dual-auth doctor where Cube runs'
    );
  return (local.error as NonNullable<VerifiedHere['error']>).hint;
}

/** `["analyst", "embeddable"]`, or why the groups are not known. */
function groupsOf(local: VerifiedHere): string {
  if (local.authorization === null) return 'of the token (not known here: verify it where Cube runs)';
  return `[${local.authorization.groups.map((group) => JSON.stringify(group)).join(', ')}]`;
}

function rowsReport(rows: CubeRows, shown: boolean): RowsReport {
  const summary = rowsSummary(rows);
  const { outcome, member } = rows;
  const base = { cube: rows.cube, shown, member, summary };
  if (outcome === null)
    return { ...base, status: 'not-asked', conditions: [], denied: false, message: 'no member of it is shown' };
  if (outcome.kind !== 'answered')
    return {
      ...base,
      status: outcome.kind,
      conditions: [],
      denied: false,
      message: outcome.message,
    };
  return { ...base, status: 'conditions', conditions: outcome.conditions, denied: outcome.denied, message: null };
}

/** Asks Cube, for every caller: /meta, then /sql for each cube in scope. */
async function inspect(args: AccessArgs, callers: readonly Caller[], io: CliIO): Promise<AccessReport> {
  const deadline = new Deadline(args.deadlineMs, io.timers);
  try {
    return await inspectWithin(args, callers, io, deadline);
  } finally {
    deadline.dispose();
  }
}

async function inspectWithin(
  args: AccessArgs,
  callers: readonly Caller[],
  io: CliIO,
  deadline: Deadline,
): Promise<AccessReport> {
  const plan: RequestPlan = { base: args.base, timeoutMs: args.timeoutMs, env: io.env, deadline };
  const sides: Side[] = ['first', 'second'];
  const locals = await Promise.all(callers.map((caller) => verifiedHere(caller, io.env)));
  const metas: MetaOutcome[] = [];
  for (const caller of callers) metas.push(await readMeta(caller, plan));
  const seen = metas.map((meta) => (meta.kind === 'answered' ? meta.cubes : []));
  const inScope = (name: string) => args.cubes === undefined || args.cubes.includes(name);
  // Maps, not searches: /meta decides how many cubes there are.
  const byName = seen.map((cubes) => new Map(cubes.map((cube) => [cube.name, cube])));
  const anyByName = new Map<string, VisibleCube>();
  for (const cube of seen.flat()) if (!anyByName.has(cube.name)) anyByName.set(cube.name, cube);
  const names = args.cubes ?? [...anyByName.keys()];
  const reports: CallerReport[] = [];
  for (const [index, caller] of callers.entries()) {
    const meta = metas[index] as MetaOutcome;
    const local = locals[index] as VerifiedHere;
    const own = seen[index] as readonly VisibleCube[];
    const ownByName = byName[index] as Map<string, VisibleCube>;
    const rows: RowsReport[] = [];
    if (meta.kind === 'answered') {
      for (const name of names) {
        // A cube this caller is not shown is asked about with the other's member: its answer shows the denial.
        const mine = ownByName.get(name);
        const cube = mine ?? anyByName.get(name);
        rows.push(rowsReport(await readRows(caller, name, cube && memberToQuery(cube), plan), mine !== undefined));
      }
    }
    const accepted = meta.kind === 'answered';
    reports.push({
      side: sides[index] as Side,
      token: describeSource(args.callers[index] as TokenSource),
      requestOrigin: caller.origin ?? null,
      verifiedHere: local,
      cube: {
        accepted,
        status: meta.kind === 'answered' ? 200 : meta.status,
        message: meta.kind === 'answered' ? null : meta.message,
        hint: meta.kind === 'refused' && meta.status === 403 ? refusalHint(local) : null,
      },
      cubes: own.filter((cube) => inScope(cube.name)),
      noCubeVisible:
        accepted && own.length === 0
          ? `no cube is visible: no access policy grants the groups ${groupsOf(local)}`
          : null,
      rows,
    });
  }
  const ok = reports.every(
    (report) =>
      report.cube.accepted && report.rows.every((rows) => rows.status !== 'failed' && rows.status !== 'not-checked'),
  );
  const [first, second] = reports;
  const comparison =
    first && second && first.cube.accepted && second.cube.accepted ? comparisonOf(first, second) : null;
  const { deadlineMs, timeoutMs } = args;
  const deadlinePassed = deadline.passed;
  return {
    url: args.base.href,
    timeoutMs,
    deadlineMs,
    deadlinePassed,
    ok: ok && !deadlinePassed,
    callers: reports,
    comparison,
  };
}

function comparisonOf(first: CallerReport, second: CallerReport): AccessReport['comparison'] {
  const differences = compareSides({ first, second });
  return { same: differences.length === 0, differences };
}

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

function printReport(report: AccessReport, io: CliIO): void {
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
  if (report.deadlinePassed)
    out.push(
      `${paint('red', 'Not finished')}: the deadline (${report.deadlineMs} ms) passed; what is marked not checked was not.`,
    );
  io.stdout.write(`${out.join('\n').replace(/\n+$/, '')}\n`);
}

async function run(argv: readonly string[], io: CliIO): Promise<number> {
  const args = parse(argv, io.env);
  if (args.callers.some((source) => source.kind === 'service') && signingSecret(io.env) === undefined) {
    io.stderr.write(`cube-dual-auth access: ${NO_SIGNING_SECRET}: there is no secret to mint a service token with\n`);
    return EXIT_REFUSED;
  }
  const callers: Caller[] = [];
  for (const source of args.callers) callers.push(await callerOf(source, args, io));
  const report = await inspect(args, callers, io);
  if (args.json) writeJson(io.stdout, report);
  else printReport(report, io);
  return report.ok ? EXIT_OK : EXIT_REFUSED;
}

export const access: Command = { help: HELP, run };
