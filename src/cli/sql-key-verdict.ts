/**
 * `verify` given a SQL key: judged offline as `checkSqlAuth` judges a SQL API login with one (hook/sql-login/sql-key.ts, the
 * same `SqlKeys`): the signature against the SQL key secrets, its expiry, the maximum age, the revoked ids, then the
 * SQL user. A key is never judged as a token of either path (docs/security.md, "SQL keys").
 */
import { ENV, optionsFromEnv } from '../config/env';
import { ENV_NAMES, type OptionNames } from '../config/options';
import { resolveAtStart } from '../config/secrets-dir';
import { DualAuthConfigError, DualAuthError, type RejectionCode } from '../errors';
import { SqlKeys } from '../hook/sql-login/sql-key';
import { decodeToken } from '../hook/token';
import { forTerminal, jsonForTerminal } from '../terminal-text';
import { describeNumericDate, rows, shortenToken } from './format';
import type { painter } from './io';

type Paint = ReturnType<typeof painter>;

/** What `verify --json` prints for a SQL key; every member always present (null when it does not apply). */
export interface SqlKeyReport {
  readonly accepted: boolean;
  readonly kind: 'sql-key';
  readonly token: string;
  /** The SQL user judged: `--sql-user`, else the key's own (`sub`). */
  readonly sqlUser: string | null;
  /** Whether the SQL user was given (`--sql-user`), so checked as a login checks it. */
  readonly sqlUserChecked: boolean;
  readonly header: Record<string, unknown> | null;
  /** The key's claims but its security context, which comes apart. */
  readonly claims: Record<string, unknown> | null;
  /** The context a login with the key gets. */
  readonly securityContext: Record<string, unknown> | null;
  readonly error: { readonly code: RejectionCode; readonly message: string; readonly hint: string } | null;
}

/** The fix of each refusal of a key, by what the refusal names; `names` say where each setting came from. */
function hintFor(
  code: RejectionCode,
  message: string,
  names: Pick<OptionNames, 'sqlKeySecrets' | 'sqlKeysRevoked'>,
): string {
  if (code === 'ERR_CONFIG_INVALID') return 'Fix the variable or the file named: the SQL API would refuse every login.';
  if (message.includes('revoked'))
    return `Mint a new key with "cube-dual-auth sql-key": a revoked id stays in ${names.sqlKeysRevoked}.`;
  if (message.includes('not accepted on this deployment'))
    return `Set ${ENV.sqlKeySecrets} (or the secrets directory's sql-key-secrets) on every Cube, then mint keys with "cube-dual-auth sql-key".`;
  switch (code) {
    case 'ERR_SIGNATURE_INVALID':
      return `Mint a new key: this one was altered, or its secret left ${names.sqlKeySecrets}.`;
    case 'ERR_TOKEN_EXPIRED':
      return 'Mint a new key with "cube-dual-auth sql-key".';
    case 'ERR_TOKEN_TOO_OLD':
      return `Mint a new key: ${ENV.sqlKeyMaxAge} ends every key older than it.`;
    case 'ERR_CLAIM_INVALID':
      return message.includes('audience')
        ? 'This is no SQL key of cube-dual-auth: mint one with "cube-dual-auth sql-key".'
        : "Sign in with the user name the key was made for (its sub), in the BI tool's user field.";
    default:
      return 'Give the whole key, as "cube-dual-auth sql-key" printed it.';
  }
}

const refusal = (
  base: Omit<SqlKeyReport, 'accepted' | 'securityContext' | 'error'>,
  code: RejectionCode,
  message: string,
  names: Pick<OptionNames, 'sqlKeySecrets' | 'sqlKeysRevoked'> = ENV_NAMES,
): SqlKeyReport => ({
  ...base,
  accepted: false,
  securityContext: null,
  error: { code, message, hint: hintFor(code, message, names) },
});

/**
 * Judges `key` as the `checkSqlAuth` configured from `env` (a deployment's, secrets directory included) judges a login with it as `sqlUser` (else as the key's own
 * user) at `nowMs`. Never throws for a refused key or a bad configuration: they are the verdict.
 */
export function judgeSqlKey(
  key: string,
  { env, sqlUser, nowMs = Date.now() }: { env: NodeJS.ProcessEnv; sqlUser?: string; nowMs?: number },
): SqlKeyReport {
  let header: Record<string, unknown> | null = null;
  let claims: Record<string, unknown> | null = null;
  let sub: unknown;
  try {
    const decoded = decodeToken(key);
    header = decoded.header;
    const payload = decoded.payloadIfObject() ?? {};
    sub = payload.sub;
    claims = Object.fromEntries(Object.entries(payload).filter(([name]) => name !== 'security_context'));
  } catch {
    // Refused below, as checkSqlAuth refuses it.
  }
  const user = sqlUser ?? (typeof sub === 'string' ? sub : null);
  const base = {
    kind: 'sql-key',
    token: shortenToken(key),
    sqlUser: user,
    sqlUserChecked: sqlUser !== undefined,
    header,
    claims,
  } as const;
  let names: OptionNames = ENV_NAMES;
  try {
    const options = resolveAtStart(optionsFromEnv(env), ENV_NAMES);
    names = options.names;
    const login = new SqlKeys(options, () => nowMs).verify(key, user ?? '');
    return { ...base, accepted: true, securityContext: login.securityContext, error: null };
  } catch (error) {
    if (error instanceof DualAuthConfigError) return refusal(base, 'ERR_CONFIG_INVALID', error.message);
    if (error instanceof DualAuthError) return refusal(base, error.code, error.detail, names);
    throw error;
  }
}

/** The report as `verify` prints it: the key shortened, its claims with dates, the SQL user, the verdict. */
export function describeSqlKeyReport(report: SqlKeyReport, paint: Paint, nowSeconds: number): string {
  const entries: [string, string][] = [
    ['Token', report.token],
    ['Kind', 'a SQL key (its typ header says so), judged as checkSqlAuth judges a SQL API login with it'],
  ];
  if (report.claims !== null) {
    const names = Object.keys(report.claims);
    const width = Math.max(0, ...names.map((name) => forTerminal(name).length));
    const lines = Object.entries(report.claims).map(([name, value]) => {
      const shown = ['exp', 'iat', 'nbf'].includes(name)
        ? `${jsonForTerminal(value)}  ${describeNumericDate(value, nowSeconds)}`
        : jsonForTerminal(value);
      return `${forTerminal(name).padEnd(width)}  ${shown}`;
    });
    entries.push(['Claims', lines.join('\n')]);
  }
  const checked = report.sqlUserChecked ? '' : " (the key's own: give --sql-user <name> to check a login's)";
  entries.push(['SQL user', `${report.sqlUser === null ? 'none' : jsonForTerminal(report.sqlUser)}${checked}`]);
  if (report.error) {
    entries.push(['Verdict', `${paint('red', 'REJECTED')} ${report.error.code}: ${forTerminal(report.error.message)}`]);
    entries.push(['Fix', paint('yellow', forTerminal(report.error.hint))]);
  } else {
    entries.push(['Verdict', `${paint('green', 'OK')}, a SQL API login with it is accepted`]);
    entries.push(['Context', jsonForTerminal(report.securityContext, 2)]);
  }
  return rows(entries, paint);
}
