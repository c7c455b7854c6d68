import { DEFAULTS } from '../../config/options';
import { ENV, NO_SIGNING_SECRET } from '../../config/env';
import { deploymentOf, secretsOfDeployment, type SecretsOfDeployment } from '../../config/deployment';
import { forTerminal } from '../../terminal-text';
import { parseCommandLine, parseDeadline, tokenFrom, type TokenFrom } from '../args';
import { Deadline, NOT_CHECKED } from '../deadline';
import { EXIT_OK, EXIT_REFUSED, painter, writeJson, type CliIO, type Command, type Style } from '../io';
import { readIdpToken } from '../idp-token';
import { CHECK_NAMES, runChecks, type CheckResult } from '../probe/checks';
import type { Verdict } from '../probe/judge';
import { apiBaseUrl } from '../probe/target';
import { tenantClaimHint } from '../probe/tenant-hint';
import {
  DEFAULT_TIMEOUT_MS,
  MAX_TIMEOUT_MS,
  SERVICE_TOKEN_SECONDS,
  parseClaims,
  parseOrigin,
  parseTimeout,
  mintServiceToken,
} from '../cube-call';

/** The whole probe's deadline: six requests at the default timeout fit. */
const DEFAULT_DEADLINE_MS = 60_000;

const HELP = `Usage: cube-dual-auth probe <cube-api-url> [--token-file <file> | --token -] [--origin <value>]\
 [--claims <json>] [--timeout <ms>] [--deadline <ms>] [--json]

Checks a running Cube deployment from outside, as the embedding service and your app call it:
six GET requests to <cube-api-url>/meta, one after the other, each judged PASS, FAIL or SKIP.

  no-token                      no Authorization header: 403 with the body exactly
                                {"error":"Authentication required"} (what the checkAuth hook answers)
  garbage-token                 a token no one issued: 403
  service-token                 an HS256 token signed with the API secret, sent with
                                "Request-Origin: <origin>", as the service sends it: 200;
                                one such token for each API secret in force, each must get 200
  service-token-without-origin  the same token without that header: 403
  idp-token                     the identity provider's token you give: 200
  idp-token-with-origin         the same token with "Request-Origin: <origin>": 403

Any other status, a 500, a stack trace in the body, or a body that echoes the token sent (or
its signature) is a FAIL; a 200 must be Cube's /meta answer. The service-token checks are
skipped, with the reason, when no API secret is set, and the idp-token checks when no token
is given: a probe without either checks the refusals only.
When the first request gets no answer (refused, unknown host, TLS error, timeout) the
deployment is unreachable: the other checks are not sent and fail with that reason.
Neither the secret nor a whole token is ever printed; what the deployment answers is shown
with anything shaped like a token masked.

Arguments:
  <cube-api-url>       Cube's REST base, e.g. https://cube.example.com/cubejs-api/v1; without
                       /cubejs-api/v1 (https://cube.example.com) the default base path is added;
                       a path ending in /v1 is taken as it is (a custom basePath)

Options:
  --token-file <file>  read the identity provider's token from <file> ("Bearer " prefix allowed)
  --token -            read it from standard input; no other value: tokens are never taken from
                       the command line
  --origin <value>     the Request-Origin value of the service (default ${ENV.origin},
                       else "${DEFAULTS.origin}")
  --claims <json>      the service token's claims, i.e. the security context Cube gets, e.g.
                       '{"tenant":"acme"}' when the deployment requires claims (default {});
                       the token expires after ${SERVICE_TOKEN_SECONDS} s. With a tenant claim
                       in the environment (${ENV.tenantClaim}, ${ENV.serviceTenantClaim})
                       and none in --claims, a refused service-token check says which to add
  --timeout <ms>       deadline of each request, from connecting to the last byte
                       (default ${DEFAULT_TIMEOUT_MS}, at most ${MAX_TIMEOUT_MS})
  --deadline <ms>      deadline of the whole probe (default ${DEFAULT_DEADLINE_MS}): a check it leaves
                       fails as "${NOT_CHECKED}"
  --json               print the result as JSON instead:
                       {"url": string, "origin": string, "timeoutMs": number, "ok": boolean,
                        "checks": [{"name": string, "expected": 200|403, "status": number|null,
                                    "ms": number|null, "verdict": "PASS"|"FAIL"|"SKIP",
                                    "reason": string}]}
                       checks always holds the six, in the order above; status and ms are
                       null for a check that got no answer or was not sent; ok is true when no
                       check failed

Environment (with the .env of the current directory under it, as Cube reads it):
  ${ENV.apiSecret.padEnd(ENV.origin.length)}  the deployment's API secret, to sign the service token
  ${ENV.apiSecrets.padEnd(ENV.origin.length)}  Cube's rotation list, which replaces it when set: its first secret signs
  ${ENV.secretsDir.padEnd(ENV.origin.length)}  the secrets directory: its api-secrets file, when present,
  ${''.padEnd(ENV.origin.length)}  replaces both, as in the hook (a readiness probe through a rotation)
  ${ENV.origin}  the default of --origin

Exit status:
  0  no check failed (skipped ones allowed)
  1  a check failed
  2  wrong command line: bad URL, both --token-file and --token, bad --claims or --timeout,
     unreadable or empty token

Examples:
  cube-dual-auth probe https://cube.example.com/cubejs-api/v1
  cube-dual-auth probe https://cube.example.com --claims '{"tenant":"acme"}'   # in the Cube project
  cube-dual-auth probe http://localhost:4000 --token-file ./id-token.txt
  get-id-token | cube-dual-auth probe "$CUBE_API_URL" --token - --json | jq '.checks[] | select(.verdict == "FAIL")'
`;

const OPTIONS = {
  'token-file': { type: 'string' },
  token: { type: 'string' },
  origin: { type: 'string' },
  claims: { type: 'string' },
  timeout: { type: 'string' },
  deadline: { type: 'string' },
  json: { type: 'boolean', default: false },
} as const;

interface ProbeArgs {
  readonly deadlineMs: number;
  readonly base: URL;
  readonly origin: string;
  readonly claims: Record<string, unknown>;
  readonly timeoutMs: number;
  /** Where the identity provider's token comes from, if given. */
  readonly idpTokenFrom: TokenFrom | undefined;
  readonly json: boolean;
}

function parse(argv: readonly string[], env: NodeJS.ProcessEnv): ProbeArgs {
  const { values, positionals } = parseCommandLine(argv, { options: OPTIONS, positionals: ['cube-api-url'] });
  const idpTokenFrom = tokenFrom(values);
  return {
    base: apiBaseUrl(positionals[0] as string),
    origin: parseOrigin(values.origin, env),
    claims: values.claims === undefined ? {} : parseClaims(values.claims),
    timeoutMs: parseTimeout(values.timeout),
    deadlineMs: parseDeadline(values.deadline, DEFAULT_DEADLINE_MS),
    idpTokenFrom,
    json: values.json,
  };
}

const VERDICT_STYLE: Record<Verdict, Style> = { PASS: 'green', FAIL: 'red', SKIP: 'yellow' };

function printReport(args: ProbeArgs, checks: readonly CheckResult[], io: CliIO): void {
  const paint = painter(io.stdout, io.env);
  const width = Math.max(...CHECK_NAMES.map((name) => name.length));
  io.stdout.write(`Probing ${args.base.href} (Request-Origin: ${args.origin}, timeout ${args.timeoutMs} ms)\n\n`);
  for (const check of checks) {
    const status = check.status === null ? '-' : String(check.status);
    const ms = check.ms === null ? '-' : `${check.ms} ms`;
    // Padded outside the colour codes, so that a coloured verdict ends where the plain one would.
    // A reason quotes the deployment's answer, or a connection error's message (a certificate's names, say).
    const reason = forTerminal(check.reason);
    io.stdout.write(
      `  ${paint(VERDICT_STYLE[check.verdict], check.verdict)}  ${check.name.padEnd(width)}  ${status.padStart(3)}  ${ms.padStart(8)}  ${reason}\n`,
    );
  }
  const count = (verdict: Verdict) => checks.filter((check) => check.verdict === verdict).length;
  const failed = count('FAIL');
  const summary = `${count('PASS')} passed, ${failed} failed, ${count('SKIP')} skipped`;
  io.stdout.write(`\n${failed > 0 ? paint('red', 'FAIL') : paint('green', 'OK')}: ${summary}\n`);
}

/** Why no service token is signed: no API secret, or an unusable `api-secrets` file the running Cube stands by. */
function noServiceToken(secrets: SecretsOfDeployment): string {
  const unusable = secrets.unusable.find(({ file }) => file.endsWith('api-secrets'));
  if (unusable !== undefined)
    return `${unusable.file} ${unusable.reason}: a running Cube keeps its last good content, which this probe cannot read (cube-dual-auth doctor names the fix)`;
  return `${NO_SIGNING_SECRET}, nor an api-secrets file in ${ENV.secretsDir}: no service token to sign (set one to the deployment's API secret)`;
}

async function run(argv: readonly string[], io: CliIO): Promise<number> {
  const { env } = deploymentOf({ env: io.env, cwd: io.cwd });
  const args = parse(argv, env);
  const idpToken = await readIdpToken(args.idpTokenFrom, io);
  const secrets = secretsOfDeployment(env);
  // Every secret the hook verifies with must be accepted: the readiness of each path through a rotation.
  const [secret, ...others] = secrets.apiSecrets;
  const serviceToken = secret === undefined ? undefined : mintServiceToken(secret.value, args.claims, io);
  const deadline = new Deadline(args.deadlineMs, io.timers);
  const sent = await runChecks({
    base: args.base,
    origin: args.origin,
    serviceToken,
    noServiceToken: noServiceToken(secrets),
    ...(secret === undefined ? {} : { serviceTokenSource: secret.variable }),
    otherServiceTokens: others.map(({ value, variable }) => ({
      token: mintServiceToken(value, args.claims, io),
      source: variable,
    })),
    idpToken,
    noIdpToken: 'no identity-provider token: give one with --token-file <file> or --token -',
    timeoutMs: args.timeoutMs,
    env: io.env,
    deadline,
  }).finally(() => deadline.dispose());
  const hint = tenantClaimHint(env, args.claims);
  const checks = sent.map((check) =>
    check.name === 'service-token' && check.status === 403 && hint !== undefined
      ? { ...check, reason: `${check.reason}; ${hint}` }
      : check,
  );
  const ok = checks.every((check) => check.verdict !== 'FAIL');
  if (args.json)
    writeJson(io.stdout, { url: args.base.href, origin: args.origin, timeoutMs: args.timeoutMs, ok, checks });
  else printReport(args, checks, io);
  return ok ? EXIT_OK : EXIT_REFUSED;
}

export const probe: Command = { help: HELP, run };
