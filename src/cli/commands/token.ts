import { createSecretKey } from 'node:crypto';
import { decode, sign, type JwtPayload } from 'jsonwebtoken';
import { DEFAULTS } from '../../config/options';
import { ENV, NO_SIGNING_SECRET, signingSecret } from '../../config/env';
import { isObject } from '../../http/json';
import { parseCommandLine } from '../args';
import { isoSeconds } from '../format';
import { EXIT_OK, EXIT_REFUSED, UsageError, writeJson, type CliIO, type Command } from '../io';

const DEFAULT_EXPIRES_IN = '1h';

const HELP = `Usage: cube-dual-auth token --claims '<json>' [--expires-in <duration>] [--json]

Mints an HS256 test token signed with the API secret, ${ENV.apiSecret} or, when Cube's rotation
list ${ENV.apiSecrets} is set, its first secret: for trying the shared-secret path locally,
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

const UNIT_SECONDS = { s: 1, m: 60, h: 3600, d: 86_400 } as const;

/** `30s` / `15m` / `1h` / `7d` in seconds. */
function parseDuration(text: string): number {
  const match = /^([1-9][0-9]{0,8})([smhd])$/.exec(text);
  if (!match)
    throw new UsageError(
      `--expires-in must be a whole number of s, m, h or d (e.g. 30s, 15m, 1h, 7d), got ` +
        `${JSON.stringify(text.slice(0, 32))}`,
    );
  return Number(match[1]) * UNIT_SECONDS[match[2] as keyof typeof UNIT_SECONDS];
}

/** `--claims`: a JSON object, the token's payload (which becomes Cube's security context). */
export function parseClaims(text: string): Record<string, unknown> {
  let claims: unknown;
  try {
    claims = JSON.parse(text);
  } catch (error) {
    throw new UsageError(`--claims is not JSON: ${(error as Error).message}`);
  }
  if (!isObject(claims)) {
    throw new UsageError('--claims must be a JSON object, e.g. \'{"tenant":"acme"}\': a security context is an object');
  }
  return claims;
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

/** An HS256 token of `claims` signed with the API secret, as the embedding service signs them; `iat` added. */
export function signServiceToken(
  secret: string,
  claims: Record<string, unknown>,
  expiresInSeconds: number | undefined,
): string {
  try {
    return sign(claims, createSecretKey(Buffer.from(secret, 'utf8')), {
      algorithm: 'HS256',
      ...(expiresInSeconds === undefined ? {} : { expiresIn: expiresInSeconds }),
    });
  } catch (error) {
    // jsonwebtoken refuses malformed registered claims ("exp" not a number...); its messages hold no key material.
    throw new UsageError(`cannot sign these claims: ${(error as Error).message}`);
  }
}

async function run(argv: readonly string[], io: CliIO): Promise<number> {
  const args = parse(argv);
  const secret = signingSecret(io.env);
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
