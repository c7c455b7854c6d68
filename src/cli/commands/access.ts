import { ENV, NO_SIGNING_SECRET } from '../../config/env';
import { deploymentOf, secretsOfDeployment, signingSecretOf } from '../../config/deployment';
import { DEFAULTS } from '../../config/options';
import type { RejectionCode } from '../../errors';
import { compareSides, type Side } from '../access/compare';
import type { VisibleCube } from '../access/cube-answers';
import { memberToQuery, readMeta, readRows, type Caller, type MetaOutcome, type RequestPlan } from '../access/inspect';
import { printReport } from '../access/print';
import { rowsReport, type AccessReport, type CallerReport, type RowsReport, type VerifiedHere } from '../access/report';
import { parseCommandLine, parseDeadline, tokenFrom, type ParsedArgs } from '../args';
import { Deadline } from '../deadline';
import { EXIT_OK, EXIT_REFUSED, UsageError, writeJson, type CliIO, type Command } from '../io';
import { apiBaseUrl } from '../probe/target';
import {
  DEFAULT_TIMEOUT_MS,
  MAX_TIMEOUT_MS,
  SERVICE_TOKEN_SECONDS,
  parseClaims,
  parseOrigin,
  parseTimeout,
  mintServiceToken,
} from '../cube-call';
import { readIdpToken } from '../idp-token';
import { verifyToken } from '../verify-report';

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

/** The environment the hook of the Cube project in the current directory reads: .env and secrets directory included. */
function deploymentEnv(io: CliIO): NodeJS.ProcessEnv {
  return deploymentOf({ env: io.env, cwd: io.cwd }).env;
}

async function callerOf(source: TokenSource, args: AccessArgs, io: CliIO): Promise<Caller> {
  if (source.kind !== 'service')
    return {
      token: (await readIdpToken(source.kind === 'stdin' ? 'stdin' : { file: source.file }, io)) as string,
      origin: undefined,
    };
  const secret = signingSecretOf(secretsOfDeployment(deploymentEnv(io))) as NonNullable<
    ReturnType<typeof signingSecretOf>
  >;
  return { token: mintServiceToken(secret.value, source.claims, io), origin: args.origin };
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
    return `this environment cannot verify the token: run cube-dual-auth verify where Cube runs, with Cube's environment`;
  if (local.accepted)
    return 'this environment accepts the token and Cube refuses it: the two configurations differ; run cube-dual-auth doctor where Cube runs';
  return (local.error as NonNullable<VerifiedHere['error']>).hint;
}

/** `["analyst", "embeddable"]`, or why the groups are not known. */
function groupsOf(local: VerifiedHere): string {
  if (local.authorization === null) return 'of the token (not known here: verify it where Cube runs)';
  return `[${local.authorization.groups.map((group) => JSON.stringify(group)).join(', ')}]`;
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
  const locals = await Promise.all(callers.map((caller) => verifiedHere(caller, deploymentEnv(io))));
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

async function run(argv: readonly string[], io: CliIO): Promise<number> {
  const args = parse(argv, io.env);
  if (
    args.callers.some((source) => source.kind === 'service') &&
    signingSecretOf(secretsOfDeployment(deploymentEnv(io))) === undefined
  ) {
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
