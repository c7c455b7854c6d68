import { CUBE_JS_TIMEOUT_MS, diagnose } from '../../doctor';
import { ENV } from '../../config/env';
import { parseCommandLine, parseDeadline, tokenFrom } from '../args';
import { Deadline, NOT_CHECKED } from '../deadline';
import { checklist, plural } from '../format';
import { EXIT_OK, EXIT_REFUSED, painter, writeJson, type CliIO, type Command } from '../io';
import { readIdpToken } from '../idp-token';

/** The whole run's deadline: the identity providers' timeouts and cube.js's load fit within it. */
const DEFAULT_DEADLINE_MS = 60_000;

const HELP = `Usage: cube-dual-auth doctor [--token-file <file> | --token -] [--deadline <ms>] [--json]

Checks the environment a deployment would run with, using the checkAuth hook's own code:
  dotenv                  the .env of the current directory, read as Cube reads it (a variable
                          already in the environment wins): the variables taken from it, by
                          name only, and a line for each set in both with different values
  configuration           every variable is valid (the hook would start)
  api-secret              ${ENV.apiSecret} (or ${ENV.apiSecrets}, which replaces it) is set, at
                          least 32 bytes and not guessable: else the hook stops Cube at start,
                          unless ${ENV.allowWeakSecret} is true
  additional-api-secrets  the same for ${ENV.additionalApiSecrets} (when set)
  origin                  the Request-Origin value that selects the shared-secret path
  jwks-url                ${ENV.jwksUri} is set (https unless on this machine)
  discovery               an issuer without a JWKS URL publishes a discovery document that names
                          exactly that issuer and an http(s) jwks_uri
  jwks-keys               the JWKS answers within the timeout with signing keys for ${ENV.algorithms}
  audience, issuer        ${ENV.audience} and ${ENV.issuer} are set (key-set path)
With ${ENV.providers}, discovery or jwks-url, jwks-keys and audience come once per identity
provider, each with its "issuer".
  authorization           off, or the tenant and groups claims read on each path (per identity
                          provider) and the groups given: default (${ENV.defaultGroups}),
                          service (${ENV.serviceGroups}) and providers' "groups"
  cube-options            with authorization: cube.js exports what the data model needs, read from
                          its files: contextToGroups for access policies by group (Cube 1.x),
                          contextToAppId for a model that reads COMPILE_CONTEXT
  sql-api                 when the SQL API is on or its login is configured: cube.js exports
                          checkSqlAuth (fails without it while the SQL API is on), the claim a SQL
                          user name must be (${ENV.sqlUserClaim}), the static login
                          (${ENV.sqlUser}, ${ENV.sqlPassword}: never printed); fails on a
                          Cube before 0.34.27
  metrics                 when metrics are on: where GET /metrics is served (${ENV.metricsPort},
                          ${ENV.metricsHost}), or recorded without a listener (${ENV.metrics});
                          fails on Cube's own API port
  example-token           with --token-file or --token: whether a token like it passes the hook's
                          authorization step, with the hook's own code: its path (HS256: the
                          service's), its identity provider (by "iss"), the tenant claim, the
                          groups claim and groups only configuration gives; its signature and
                          times are not checked
  cube-gateway            @cubejs-backend/api-gateway is found as the hook finds it (from the
                          current directory, else from cube-dual-auth's own), so that rejections
                          become HTTP 403 inside Cube, not 500
  node                    the Cube found starts on this Node (by its own check): Cube 1.x needs
                          Node 22 or later, Cube 0.33 runs on 16 or later
  cube-js                 cube.js in the current directory loads as Cube loads it (in a child
                          process, stopped after ${CUBE_JS_TIMEOUT_MS / 1000} s) and exports a checkAuth function
  logger                  cube.js exports cube-dual-auth's logger: else Cube logs whole tokens
Run it where Cube runs: in the Cube project directory, with Cube's environment (its .env is read
there, as Cube reads it). Secrets are never printed.

Options:
  --token-file <file>  an example token, read from <file> ("Bearer " prefix allowed)
  --token -            the same, read from standard input (never from the command line)
  --deadline <ms>      deadline of the whole run (default ${DEFAULT_DEADLINE_MS}): a check it leaves
                       fails as "${NOT_CHECKED}"
  --json               print {"ok": boolean, "checks": [{"id", "status": "ok"|"warn"|"fail",
                       "message", "issuer"?}]}

Exit status:
  0  nothing failed (warnings allowed)
  1  a check failed
  2  wrong command line

Examples:
  cube-dual-auth doctor
  cd /srv/cube && cube-dual-auth doctor
  cube-dual-auth doctor --json | jq '.checks[] | select(.status != "ok")'
  cube-dual-auth doctor --token-file ./id-token.txt
`;

const OPTIONS = {
  json: { type: 'boolean', default: false },
  token: { type: 'string' },
  'token-file': { type: 'string' },
  deadline: { type: 'string' },
} as const;

async function run(argv: readonly string[], io: CliIO): Promise<number> {
  const { values } = parseCommandLine(argv, { options: OPTIONS, positionals: [] });
  const { json } = values;
  const deadlineMs = parseDeadline(values.deadline, DEFAULT_DEADLINE_MS);
  const example = await readIdpToken(tokenFrom(values), io);
  const deadline = new Deadline(deadlineMs, io.timers);
  const diagnosis = await diagnose(io.env, io.cwd, { exampleToken: example, signal: deadline.signal }).finally(() =>
    deadline.dispose(),
  );
  const code = diagnosis.ok ? EXIT_OK : EXIT_REFUSED;
  if (json) {
    writeJson(io.stdout, diagnosis);
    return code;
  }
  const paint = painter(io.stdout, io.env);
  const failures = diagnosis.checks.filter((c) => c.status === 'fail').length;
  const warnings = diagnosis.checks.filter((c) => c.status === 'warn').length;
  const summary = `${plural(failures, 'failure')}, ${plural(warnings, 'warning')}`;
  io.stdout.write(checklist(diagnosis.checks, paint));
  io.stdout.write(`\n${failures > 0 ? paint('red', 'FAIL') : paint('green', 'OK')}: ${summary}\n`);
  return code;
}

export const doctor: Command = { help: HELP, run };
