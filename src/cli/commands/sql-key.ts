import { claimPointer, readClaim } from '../../config/claim-pointer';
import { DURATION_FORM, durationSeconds, formatDuration } from '../../config/duration';
import { ENV, optionsFromEnv } from '../../config/env';
import { deploymentOf } from '../../config/deployment';
import { ANY_SQL_USER, DEFAULTS, ENV_NAMES, SQL_KEY_MAX_AGE_LIMIT } from '../../config/options';
import { resolveAtStart } from '../../config/secrets-dir';
import { DualAuthConfigError } from '../../errors';
import { createNamedCheckAuth, type CheckAuth, type Explanation } from '../../hook/check-auth';
import { isSqlKeyHeader, mintSqlKey } from '../../hook/sql-login/sql-key';
import { forTerminal, jsonForTerminal } from '../../terminal-text';
import { parseCommandLine, tokenFrom } from '../args';
import { isoSeconds } from '../format';
import { hintFor, SQL_KEY_HINT } from '../hints';
import { codeOptionsProblem } from '../cube-js-options';
import { EXIT_OK, EXIT_REFUSED, UsageError, writeJson, type CliIO, type Command } from '../io';
import { readIdpToken } from '../idp-token';

const DEFAULT_EXPIRES_IN = '30d';

const HELP = `Usage: cube-dual-auth sql-key (--token-file <file> | --token -) [--expires-in <duration>] [--json]

Mints a SQL key: a password for a BI tool (Tableau, Metabase, psql...) that signs in to
Cube's SQL API for as long as the key lives, where a token of the identity provider stops
working minutes after it was typed. The token given is first judged exactly as the checkAuth
hook judges it on the key-set path (keys, claims, authorization), with the same environment
variables; a refused token mints nothing. The key carries the SQL user that the token's claim
names (${ENV.sqlUserClaim}, default "${DEFAULTS.sqlUserClaim}") and the
security context the hook gives the token (tenant, groups and claims). It is signed with the
first secret of ${ENV.sqlKeySecrets}. Run it in the Cube project directory:
when the cube.js there exports a checkAuth or checkSqlAuth of its own (options set in code,
which the environment does not show), no key is minted. Prints the key alone on standard
output, its id and expiry on standard error; the token is never printed. A key is revoked by
adding its id to ${ENV.sqlKeysRevoked}.

Options:
  --token-file <file>      read the identity provider's token from <file> ("Bearer " prefix allowed)
  --token -                read it from standard input (never from the command line)
  --expires-in <duration>  the key's lifetime: a whole number of s, m, h or d, e.g. 12h, 30d
                           (default ${DEFAULT_EXPIRES_IN}); at most the maximum age,
                           ${ENV.sqlKeyMaxAge} (default ${formatDuration(DEFAULTS.sqlKeyMaxAge)}, at most a year)
  --json                   print {"key", "id", "user", "issuedAt", "expiresAt", "securityContext"}

Exit status:
  0  minted
  1  the token is refused, no ${ENV.sqlKeySecrets}, cube.js sets the hook's options in
     code, or the configuration is invalid
  2  wrong command line, or --expires-in over the maximum age

Examples:
  cube-dual-auth sql-key --token-file ./id-token.txt > alice.sqlkey
  get-token | cube-dual-auth sql-key --token - --expires-in 7d --json | jq -r .id
`;

const OPTIONS = {
  token: { type: 'string' },
  'token-file': { type: 'string' },
  'expires-in': { type: 'string' },
  json: { type: 'boolean', default: false },
} as const;

interface SqlKeyArgs {
  readonly from: { readonly file: string } | 'stdin';
  /** The lifetime asked for, in seconds; undefined for the default. */
  readonly expiresIn: number | undefined;
  readonly json: boolean;
}

function parse(argv: readonly string[]): SqlKeyArgs {
  const { values } = parseCommandLine(argv, { options: OPTIONS, positionals: [] });
  const { json } = values;
  const from = tokenFrom(values);
  if (from === undefined)
    throw new UsageError("missing the identity provider's token: --token-file <file> or --token -");
  const given = values['expires-in'];
  const expiresIn = given === undefined ? undefined : durationSeconds(given);
  if (given !== undefined && expiresIn === undefined)
    throw new UsageError(`--expires-in must be ${DURATION_FORM}, got ${JSON.stringify(given.slice(0, 32))}`);
  return { from, expiresIn, json };
}

/** The lifetime to mint: the one asked for, within the maximum age, or the default cut to it. */
function lifetime(asked: number | undefined, maxAge: number): number {
  if (asked === undefined) return Math.min(durationSeconds(DEFAULT_EXPIRES_IN) as number, maxAge);
  if (asked > maxAge) {
    const limit =
      maxAge === DEFAULTS.sqlKeyMaxAge
        ? `the default of ${ENV.sqlKeyMaxAge}`
        : `${ENV.sqlKeyMaxAge} (at most ${formatDuration(SQL_KEY_MAX_AGE_LIMIT)})`;
    throw new UsageError(
      `--expires-in ${formatDuration(asked)} is longer than a SQL key may live here: ${formatDuration(maxAge)}, ${limit}`,
    );
  }
  return asked;
}

/** Says why the token mints no key, as `verify` says it: the code, the message and the fix. */
function refused(io: CliIO, error: NonNullable<Explanation['error']>, explanation: Explanation): number {
  const hint = isSqlKeyHeader(explanation.header)
    ? SQL_KEY_HINT
    : hintFor(error.code, explanation.path, DEFAULTS.origin);
  // Messages quote values the token chose.
  io.stderr.write(
    `cube-dual-auth sql-key: the token is refused, no key minted: ${error.code}: ${forTerminal(error.message)}\nFix: ${forTerminal(hint)}\n`,
  );
  return EXIT_REFUSED;
}

async function run(argv: readonly string[], io: CliIO): Promise<number> {
  const args = parse(argv);
  const token = (await readIdpToken(args.from, io)) as string;
  let checkAuth: CheckAuth | undefined;
  try {
    const { env } = deploymentOf({ env: io.env, cwd: io.cwd });
    const options = optionsFromEnv(env);
    const resolved = resolveAtStart(options, ENV_NAMES);
    const [secret] = resolved.sqlKeyKeys;
    if (secret === undefined) {
      io.stderr.write(
        `cube-dual-auth sql-key: ${ENV.sqlKeySecrets} is not set, nor a sql-key-secrets file in ${ENV.secretsDir}: there is no secret to sign with\n`,
      );
      return EXIT_REFUSED;
    }
    const expiresIn = lifetime(args.expiresIn, resolved.sqlKeyMaxAge);
    const problem = await codeOptionsProblem(io.cwd, env);
    if (problem !== undefined) {
      io.stderr.write(
        `cube-dual-auth sql-key: ${forTerminal(problem)}: a key minted from the environment alone could carry a security context the hook never gives, so no key minted; export cube-dual-auth's checkAuth and checkSqlAuth configured by the environment to mint keys here\n`,
      );
      return EXIT_REFUSED;
    }
    checkAuth = createNamedCheckAuth(options, { names: ENV_NAMES });
    // No Request-Origin header: the key-set path, as a SQL login's token takes it.
    const explanation = await checkAuth.explain({ headers: {} }, token);
    if (!explanation.accepted || explanation.securityContext === undefined)
      return refused(io, explanation.error ?? { code: 'ERR_INTERNAL', message: 'no security context' }, explanation);
    const user = sqlUser(resolved.sqlUserClaim, explanation.payload ?? {});
    if (user === undefined) {
      const claim = resolved.sqlUserClaim === ANY_SQL_USER ? 'sub' : resolved.sqlUserClaim;
      io.stderr.write(
        `cube-dual-auth sql-key: the token has no user claim ${JSON.stringify(claim)} (${ENV.sqlUserClaim}) holding a string, so it names no SQL user; no key minted\n`,
      );
      return EXIT_REFUSED;
    }
    const minted = mintSqlKey({
      secret,
      user,
      securityContext: explanation.securityContext,
      expiresIn,
      now: Date.now(),
    });
    if (args.json) {
      writeJson(io.stdout, {
        key: minted.key,
        id: minted.id,
        user: minted.user,
        issuedAt: isoMoment(minted.issuedAt),
        expiresAt: isoMoment(minted.expiresAt),
        securityContext: minted.securityContext,
      });
    } else {
      io.stdout.write(`${minted.key}\n`);
      io.stderr.write(
        `cube-dual-auth sql-key: SQL key ${minted.id} for SQL user ${jsonForTerminal(user)}, valid until ${isoSeconds(minted.expiresAt)} (${formatDuration(expiresIn)}); revoke it by adding its id to ${ENV.sqlKeysRevoked}\n`,
      );
    }
    return EXIT_OK;
  } catch (error) {
    if (!(error instanceof DualAuthConfigError)) throw error;
    io.stderr.write(`cube-dual-auth sql-key: the configuration is invalid: ${forTerminal(error.message)}\n`);
    return EXIT_REFUSED;
  } finally {
    // An open JWKS connection or timer would keep the process alive after the answer.
    checkAuth?.close();
  }
}

/** The SQL user the key is for: the token's user claim, or its `sub` where any user name is accepted. */
function sqlUser(userClaim: string, payload: Readonly<Record<string, unknown>>): string | undefined {
  const pointer = claimPointer(userClaim === ANY_SQL_USER ? 'sub' : userClaim, (problem) => {
    throw new DualAuthConfigError(ENV.sqlUserClaim, problem);
  });
  const value = readClaim(payload, pointer);
  return typeof value === 'string' && value !== '' ? value : undefined;
}

export const sqlKey: Command = { help: HELP, run };

/** A key's time to the millisecond it was minted at (docs/rotation.md#the-directory): what a `user … before …` cut reads. */
function isoMoment(seconds: number): string {
  return new Date(Math.round(seconds * 1000)).toISOString().replace('.000Z', 'Z');
}
