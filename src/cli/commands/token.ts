import { decode, type JwtPayload } from 'jsonwebtoken';
import { DEFAULTS } from '../../config/options';
import { DURATION_FORM, durationSeconds } from '../../config/duration';
import { ENV, NO_SIGNING_SECRET } from '../../config/env';
import { deploymentOf, secretsOfDeployment, signingSecretOf } from '../../config/deployment';
import { parseCommandLine } from '../args';
import { parseClaims, signServiceToken } from '../cube-call';
import { isoSeconds } from '../format';
import { EXIT_OK, EXIT_REFUSED, UsageError, writeJson, type CliIO, type Command } from '../io';

const DEFAULT_EXPIRES_IN = '1h';

const HELP = `Usage: cube-dual-auth token --claims '<json>' [--expires-in <duration>] [--json]

Mints an HS256 test token signed with the API secret, ${ENV.apiSecret} or, when Cube's rotation
list ${ENV.apiSecrets} is set, its first secret, or the first line of the secrets directory's
api-secrets (${ENV.secretsDir}), which replaces both, as the hook reads them with the .env of
the current directory: for trying the shared-secret path locally,
e.g. with curl against a development Cube. Prints the token alone, so that it can be used as
$(cube-dual-auth token ...). Refuses without an API secret.

Options:
  --claims <json>          the payload: a JSON object (it becomes Cube's security context);
                           "iat" is added, and "exp" unless the claims have one
  --expires-in <duration>  lifetime: a whole number of s, m, h or d, e.g. 30s, 15m, 1h, 7d
                           (default ${DEFAULT_EXPIRES_IN}; not allowed with an "exp" claim)
  --json                   print {"token", "header", "claims", "expiresAt"} instead

Exit status:
  0  minted
  1  no API secret to sign with
  2  wrong command line, or claims that are not a JSON object

Examples:
  cube-dual-auth token --claims '{"tenant":"acme"}'
  cube-dual-auth token --claims '{"tenant":"acme"}' --expires-in 15m --json
  curl -H "Authorization: Bearer $(cube-dual-auth token --claims '{"tenant":"acme"}')" \\
       -H "Request-Origin: ${DEFAULTS.origin}" http://localhost:4000/cubejs-api/v1/meta
  cube-dual-auth verify "$(cube-dual-auth token --claims '{"tenant":"acme"}')" --origin
`;

/** `30s` / `15m` / `1h` / `7d` in seconds. */
function parseDuration(text: string): number {
  const seconds = durationSeconds(text);
  if (seconds === undefined)
    throw new UsageError(`--expires-in must be ${DURATION_FORM}, got ${JSON.stringify(text.slice(0, 32))}`);
  return seconds;
}

interface TokenArgs {
  readonly claims: Record<string, unknown>;
  /** undefined: keep the claims' own `exp`, if any. */
  readonly expiresIn: number | undefined;
  readonly json: boolean;
}

const OPTIONS = {
  claims: { type: 'string' },
  'expires-in': { type: 'string' },
  json: { type: 'boolean', default: false },
} as const;

function parse(args: readonly string[]): TokenArgs {
  const { values } = parseCommandLine(args, { options: OPTIONS, positionals: [] });
  if (values.claims === undefined) throw new UsageError("missing --claims '<json>' (use '{}' for no claims)");
  const claims = parseClaims(values.claims);
  const given = values['expires-in'];
  if (given !== undefined && claims.exp !== undefined)
    throw new UsageError('--expires-in and an "exp" claim exclude each other');
  const expiresIn = claims.exp === undefined ? parseDuration(given ?? DEFAULT_EXPIRES_IN) : undefined;
  return { claims, expiresIn, json: values.json };
}

async function run(argv: readonly string[], io: CliIO): Promise<number> {
  const args = parse(argv);
  const secret = signingSecretOf(secretsOfDeployment(deploymentOf({ env: io.env, cwd: io.cwd }).env));
  if (secret === undefined) {
    io.stderr.write(`cube-dual-auth token: ${NO_SIGNING_SECRET}: there is no secret to sign with\n`);
    return EXIT_REFUSED;
  }
  const token = signServiceToken(secret.value, args.claims, args.expiresIn);
  if (!args.json) {
    io.stdout.write(`${token}\n`);
    return EXIT_OK;
  }
  const { header, payload } = decode(token, { complete: true }) as { header: object; payload: JwtPayload };
  const expiresAt = typeof payload.exp === 'number' ? isoSeconds(payload.exp) : null;
  writeJson(io.stdout, { token, header, claims: payload, expiresAt });
  return EXIT_OK;
}

export const token: Command = { help: HELP, run };
