import { withoutBearer } from '../../hook/request';
import { looksLikeSqlKey } from '../../hook/sql-login/sql-key';
import { DEFAULTS } from '../../config/options';
import { ENV } from '../../config/env';
import { deploymentOf } from '../../config/deployment';
import { forTerminal, jsonForTerminal } from '../../terminal-text';
import { parseCommandLine } from '../args';
import { describeNumericDate, rows } from '../format';
import { describeSqlKeyReport, judgeSqlKey } from '../sql-key-verdict';
import { EXIT_OK, EXIT_REFUSED, UsageError, painter, readStdin, writeJson, type CliIO, type Command } from '../io';
import { TIME_CLAIMS, verifyToken, type KeyInfo, type VerifyReport, type VerifyRequest } from '../verify-report';

const HELP = `Usage: cube-dual-auth verify <token> [--origin [<value>] | --no-origin] [--sql-user <name>] [--json]

Runs the same verification as the checkAuth hook, with the same environment variables
(${ENV.apiSecret}, ${ENV.jwksUri}, ${ENV.algorithms}, ...), the .env of the current directory
read as Cube reads it, and the files of ${ENV.secretsDir} in their place, and explains the outcome: the path
chosen and why, the token's header and claims (times as dates), the key used, and either
the security context Cube would receive or the rejection with a one-line fix. With authorization
configured (${ENV.tenantClaim}, ${ENV.groupsClaim}, ...), the tenant and groups the context
carries come on lines of their own, and a token refused for them gets ERR_TENANT_MISSING,
ERR_TENANT_INVALID or ERR_GROUPS_INVALID with its fix. The secret is never printed; the token
only shortened.

Given a SQL key (cube-dual-auth sql-key), says so and judges it as checkSqlAuth judges a SQL
API login with it: its signature against ${ENV.sqlKeySecrets}, its expiry,
the maximum age (${ENV.sqlKeyMaxAge}), the revoked ids
(${ENV.sqlKeysRevoked}) and, with --sql-user, the user name.

Arguments:
  <token>            the token, with or without "Bearer "; - reads it from standard input

Options:
  --origin [<value>] send "Request-Origin: <value>", as the service does; without a value
                     (last, or before another option) the configured origin
                     (${ENV.origin}, default "${DEFAULTS.origin}"), i.e. the shared-secret path
  --no-origin        send no Request-Origin header: the key-set path (the default)
  --sql-user <name>  a SQL key only: the user name a BI tool signs in with (default: the key's)
  --json             print the result as JSON: {"accepted", "token", "requestOrigin", "path",
                     "pathReason", "header", "claims", "times", "key", "authorization",
                     "securityContext", "standingServiceCredential", "error"}

Exit status:
  0  accepted
  1  rejected, or the configuration is invalid
  2  wrong command line

Examples:
  cube-dual-auth verify "$ID_TOKEN"
  cube-dual-auth verify "$SERVICE_TOKEN" --origin
  cube-dual-auth verify --origin embeddable "$SERVICE_TOKEN"
  pbpaste | cube-dual-auth verify - --json | jq .error
  cube-dual-auth verify "$(cat alice.sqlkey)" --sql-user alice@acme.example
`;

interface VerifyArgs extends VerifyRequest {
  readonly json: boolean;
  /** The SQL user a SQL key is judged for (`--sql-user`). */
  readonly sqlUser?: string;
}

/**
 * `parseArgs` has no options with an optional value: a bare `--origin` (last, or followed by another
 * option or by `-`) becomes `--origin=`, which means "the configured origin".
 */
function expandBareOrigin(args: readonly string[]): string[] {
  return args.map((arg, i) => {
    const next = args[i + 1];
    return arg === '--origin' && (next === undefined || next.startsWith('-')) ? '--origin=' : arg;
  });
}

const OPTIONS = {
  origin: { type: 'string' },
  'no-origin': { type: 'boolean', default: false },
  'sql-user': { type: 'string' },
  json: { type: 'boolean', default: false },
} as const;

async function parse(args: readonly string[], io: CliIO): Promise<VerifyArgs> {
  // The token is checked here rather than by name, for the messages about `-` and `--origin <token>`.
  const { values, positionals } = parseCommandLine(expandBareOrigin(args), { options: OPTIONS });
  if (values.origin !== undefined && values['no-origin'])
    throw new UsageError('--origin and --no-origin exclude each other');
  if (positionals.length > 1) throw new UsageError(`expected one token, got ${positionals.length} arguments`);
  const [given] = positionals;
  if (given === undefined) {
    // Never echo the value: it is the token when someone wrote `--origin "$TOKEN"`.
    const tokenAsOrigin = values.origin?.startsWith('eyJ') === true;
    throw new UsageError(
      tokenAsOrigin
        ? 'missing <token>: --origin took the token as its value; write the token first, or --origin <value> <token>'
        : 'missing <token> (use - to read it from standard input)',
    );
  }
  const token = given === '-' ? await readStdin(io.stdin) : given;
  const sqlUser = values['sql-user'];
  if (sqlUser !== undefined && !looksLikeSqlKey(withoutBearer(token)))
    throw new UsageError('--sql-user applies to a SQL key only, and the token is not one');
  return { token, origin: values.origin, json: values.json, ...(sqlUser === undefined ? {} : { sqlUser }) };
}

/** The token's header: names as they are, values as JSON, both escaped (the token's sender chose them). */
function describeHeader(header: Record<string, unknown>): string {
  return Object.entries(header)
    .map(([name, value]) => `${forTerminal(name)} ${jsonForTerminal(value)}`)
    .join(', ');
}

/** One claim a line, escaped before the lines are joined, so that no claim can start a line of its own. */
function describeClaims(claims: Record<string, unknown>, now: number): string {
  const entries = Object.entries(claims).map(([name, value]) => [forTerminal(name), value, name] as const);
  const width = Math.max(0, ...entries.map(([shownName]) => shownName.length));
  return entries
    .map(([shownName, value, name]) => {
      const shown = (TIME_CLAIMS as readonly string[]).includes(name)
        ? `${jsonForTerminal(value)}  ${describeNumericDate(value, now)}`
        : jsonForTerminal(value);
      return `${shownName.padEnd(width)}  ${shown}`;
    })
    .join('\n');
}

function describeKey(key: KeyInfo, severalProviders: boolean): string {
  if (key.source === 'api-secret') {
    if (key.secrets === 0)
      return `the API secret: none configured (neither ${ENV.apiSecret} nor ${ENV.apiSecrets} is set)`;
    const [only] = key.variables;
    if (key.secrets === 1) return `the API secret (${only})`;
    const counts = [...new Set(key.variables)].map(
      (variable) => `${key.variables.filter((v) => v === variable).length} in ${variable}`,
    );
    return `the API secret: one of ${key.secrets} (${counts.join(', ')})`;
  }
  const kid = key.kid === null ? 'no kid in the header' : `kid ${jsonForTerminal(key.kid)}`;
  // A discovered JWKS URL is the discovery document's text.
  if (key.jwksUri !== null) return `${kid}, from ${forTerminal(key.jwksUri)}`;
  const issuer = key.provider?.issuer;
  if (issuer) return `${kid}, from the JWKS discovered for ${jsonForTerminal(issuer)} (not discovered yet)`;
  return `${kid}, ${severalProviders ? `no identity provider of ${ENV.providers} chosen` : `${ENV.jwksUri} is not set`}`;
}

/** The identity provider chosen on the key-set path, and why. */
function describeProvider({ issuer, reason }: { readonly issuer: string | null; readonly reason: string }): string {
  return `${jsonForTerminal(issuer)}: ${forTerminal(reason)}`;
}

function printReport(result: VerifyReport, io: CliIO, severalProviders: boolean): void {
  const paint = painter(io.stdout, io.env);
  const now = Date.now() / 1000;
  const entries: [string, string][] = [['Token', result.token]];
  // The reason quotes the Request-Origin value given.
  if (result.pathReason !== null) entries.push(['Path', forTerminal(result.pathReason)]);
  if (result.header) entries.push(['Header', describeHeader(result.header)]);
  if (result.claims) entries.push(['Claims', describeClaims(result.claims, now)]);
  // Named only when an issuer chose it: with one JWKS URL there is nothing to choose.
  if (result.key?.source === 'jwks' && result.key.provider?.issuer)
    entries.push(['Issuer', describeProvider(result.key.provider)]);
  if (result.key) entries.push(['Key', describeKey(result.key, severalProviders)]);
  if (result.error) {
    // Messages quote the token, a JWKS URL or a server's answer; the hint, the configured origin.
    entries.push(['Verdict', `${paint('red', 'REJECTED')} ${result.error.code}: ${forTerminal(result.error.message)}`]);
    entries.push(['Fix', paint('yellow', forTerminal(result.error.hint))]);
  } else {
    entries.push(['Verdict', `${paint('green', 'OK')}, accepted on the ${result.path} path`]);
    if (result.authorization) {
      const { tenant, groups } = result.authorization;
      // Claim values the token's issuer chose.
      entries.push([
        'Tenant',
        tenant === null ? `none (no tenant claim for the ${result.path} path)` : jsonForTerminal(tenant),
      ]);
      entries.push(['Groups', groups.length === 0 ? 'none' : groups.map((group) => jsonForTerminal(group)).join(', ')]);
    }
    entries.push(['Context', jsonForTerminal(result.securityContext, 2)]);
    const standing = result.standingServiceCredential;
    if (standing)
      entries.push([
        'Standing',
        `${standing.kind === 'package' ? "cube-dual-auth's service token" : 'an HS256 token without "exp"'}: ${standing.meaning} (docs/embeddable.md)`,
      ]);
  }
  io.stdout.write(rows(entries, paint));
}

/** A SQL key, judged as a SQL API login (cli/sql-key-verdict.ts), never as a token of either path. */
function runOnSqlKey(args: VerifyArgs, io: CliIO): number {
  const { env } = deploymentOf({ env: io.env, cwd: io.cwd });
  const report = judgeSqlKey(withoutBearer(args.token), { env, sqlUser: args.sqlUser });
  if (args.json) writeJson(io.stdout, report);
  else io.stdout.write(describeSqlKeyReport(report, painter(io.stdout, io.env), Date.now() / 1000));
  return report.accepted ? EXIT_OK : EXIT_REFUSED;
}

async function run(argv: readonly string[], io: CliIO): Promise<number> {
  const args = await parse(argv, io);
  if (looksLikeSqlKey(withoutBearer(args.token))) return runOnSqlKey(args, io);
  const { report: result, severalProviders } = await verifyToken(args, deploymentOf({ env: io.env, cwd: io.cwd }).env);
  if (args.json) writeJson(io.stdout, result);
  else printReport(result, io, severalProviders);
  return result.accepted ? EXIT_OK : EXIT_REFUSED;
}

export const verify: Command = { help: HELP, run };
