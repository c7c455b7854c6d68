/**
 * The checks of `cube-dual-auth doctor`: what the hook would run with in this environment, judged with the
 * hook's own code (option validation, the JWKS key store) plus what the hook cannot know (secret strength,
 * missing audience/issuer, where Cube is installed).
 */
import { performance } from 'node:perf_hooks';
import { DEFAULTS, ENV_NAMES, resolveOptions, type DualAuthOptions, type ResolvedOptions } from '../config/options';
import { apiSecretsInForce, ENV, optionsFromEnv, readEnv, type ApiSecret } from '../config/env';
import { DualAuthConfigError, DualAuthError, type AuthPath } from '../errors';
import { findGateway, GATEWAY, gatewayVersion, OWN_DIRECTORY } from '../host-cube';
import type { IdentityProvider } from '../config/identity-providers';
import { KeyStore, keyStoreOptions } from '../keys';
import {
  describeStrength,
  MIN_SECRET_BYTES,
  SECRET_ADVICE,
  secretStrength,
  secretWeakness,
} from '../config/secret-strength';
import type { Authorization, ClaimRules } from '../config/authorization';
import { decodeToken, type DecodedToken } from '../hook/token';
import { providerByIssuer } from '../hook/paths/key-set';
import { tenantAndGroupsOf } from '../hook/tenant-and-groups';
import { SQL_PASSWORD_SINCE } from '../hook/sql-login';
import { SQL_REQUEST_FIELDS_SINCE } from '../hook/sql-login/sql-reauth';
import { ANY_SQL_USER } from '../config/options';
import { formatDuration } from '../config/duration';
import { apiSecretsFromDirectory, resolvedAsTheHook, secretsDirReport } from './secrets-dir';
import { isLoopback } from '../http/url';
import {
  CUBE_JS_TIMEOUT_MS,
  cubeJsFinding,
  loggerFinding,
  readCubeJs,
  sqlAuthFinding,
  type CubeJsReading,
  type FindingStatus,
} from './cube-js';
import { NOT_CHECKED, unlessAborted } from './deadline';
import { cubeOptionsOfProject } from './cube-options';
import { withDotenv } from './dotenv';
import { nodeOfProject } from './node-line';

export type CheckStatus = FindingStatus;
export { CUBE_JS_TIMEOUT_MS } from './cube-js';

/** One line of the checklist. `id` is stable; `message` may be reworded between releases. */
export interface Check {
  readonly id: CheckId;
  readonly status: CheckStatus;
  readonly message: string;
  /** The identity provider checked, by issuer, when it has one (discovery, or several providers). */
  readonly issuer?: string;
}

type CheckId =
  | 'dotenv'
  | 'node'
  | 'configuration'
  | 'api-secret'
  | 'additional-api-secrets'
  | 'origin'
  | 'jwks-url'
  | 'discovery'
  | 'jwks-keys'
  | 'audience'
  | 'issuer'
  | 'authorization'
  | 'sql-api'
  | 'sql-key'
  | 'secrets-dir'
  | 'metrics'
  | 'refresh-worker'
  | 'example-token'
  | 'cube-gateway'
  | 'cube-js'
  | 'logger'
  | 'cube-options';

interface Diagnosis {
  /** False when any check failed. */
  readonly ok: boolean;
  readonly checks: readonly Check[];
}

const MAX_KIDS_SHOWN = 5;

const check = (id: CheckId, status: CheckStatus, message: string): Check => ({ id, status, message });

/**
 * The secrets in force, as the hook reads them ({@link apiSecretsInForce}), checked per variable: the main setting
 * (Cube's rotation list CUBEJS_API_SECRETS when set, else CUBEJS_API_SECRET) under `api-secret`, the package's
 * additional ones under `additional-api-secrets`.
 */
function secretChecks(secrets: readonly ApiSecret[], weakAllowed: boolean, keySet: boolean): Check[] {
  const of = (variable: string) => secrets.filter((secret) => secret.variable === variable).map(({ value }) => value);
  const additional = of(ENV.additionalApiSecrets);
  const cubeList = of(ENV.apiSecrets);
  const checks = [
    cubeList.length > 0
      ? listedSecretsCheck('api-secret', ENV.apiSecrets, cubeList, weakAllowed)
      : mainSecretCheck(of(ENV.apiSecret)[0], additional.length, weakAllowed, keySet),
  ];
  if (additional.length > 0)
    checks.push(
      listedSecretsCheck('additional-api-secrets', ENV.additionalApiSecrets, additional, weakAllowed, 'more'),
    );
  return checks;
}

/**
 * What a weak secret does to the deployment, and what to do: the hook refuses to start with one unless the opt-in
 * is set, and then it starts, still guessable.
 */
function weakSecretOutcome(weakAllowed: boolean): string {
  return weakAllowed
    ? `Cube starts with it only because ${ENV.allowWeakSecret} is set; ${SECRET_ADVICE}`
    : `Cube will not start with it; ${SECRET_ADVICE}, or (not recommended) set ` +
        `${ENV.allowWeakSecret}=true to start anyway`;
}

function mainSecretCheck(secret: string | undefined, additional: number, weakAllowed: boolean, keySet: boolean): Check {
  if (secret === undefined) {
    if (additional > 0) {
      return check(
        'api-secret',
        'warn',
        `${ENV.apiSecret} is not set, nor ${ENV.apiSecrets}: only ${ENV.additionalApiSecrets} verify ` +
          `service tokens, and "cube-dual-auth token" cannot mint any`,
      );
    }
    // Without a secret and with a JWKS URL, the deployment is a valid key-set-only set-up.
    return keySet
      ? check(
          'api-secret',
          'ok',
          `${ENV.apiSecret} is not set, nor ${ENV.apiSecrets}: a key-set-only set-up, every service ` +
            `token (shared-secret path) is refused`,
        )
      : check(
          'api-secret',
          'fail',
          `${ENV.apiSecret} is not set, nor ${ENV.apiSecrets}: every service token (shared-secret path) is refused`,
        );
  }
  const weakness = secretWeakness(secret);
  if (weakness) return check('api-secret', 'fail', `${ENV.apiSecret} ${weakness}: ${weakSecretOutcome(weakAllowed)}`);
  // Weak secrets are refused above, so what is measured here is random material.
  return check('api-secret', 'ok', `${ENV.apiSecret} is set: ${describeStrength(secretStrength(secret))}`);
}

function listedSecretsCheck(
  id: CheckId,
  variable: string,
  secrets: readonly string[],
  weakAllowed: boolean,
  what = secrets.length === 1 ? 'secret' : 'secrets',
): Check {
  const weak = secrets.flatMap((secret, i) => {
    const weakness = secretWeakness(secret);
    return weakness ? [`secret ${i + 1} of ${secrets.length} ${weakness}`] : [];
  });
  if (weak.length > 0) return check(id, 'fail', `${variable}: ${weak.join('; ')}: ${weakSecretOutcome(weakAllowed)}`);
  return check(
    id,
    'ok',
    `${variable}: ${secrets.length} ${what}, each long enough for ${MIN_SECRET_BYTES} bytes of key material`,
  );
}

function originCheck(options: ResolvedOptions): Check {
  return check(
    'origin',
    'ok',
    `"Request-Origin: ${options.origin}" selects the shared-secret path, other requests the key-set ` +
      `path (${ENV.origin}, default "${DEFAULTS.origin}")`,
  );
}

/** Plain http is fine on this machine only: elsewhere, whoever sits on the network path can swap the keys. */
function plainHttp(url: string): boolean {
  const parsed = new URL(url);
  return parsed.protocol === 'http:' && !isLoopback(parsed);
}

function jwksUrlCheck(jwksUri: string | undefined): Check {
  if (jwksUri === undefined) {
    return check(
      'jwks-url',
      'warn',
      `${ENV.jwksUri} is not set (nor ${ENV.providers}, nor one issuer URL in ${ENV.issuer} to ` +
        `discover it from): the key-set path refuses every identity-provider token`,
    );
  }
  if (plainHttp(jwksUri)) {
    return check(
      'jwks-url',
      'warn',
      `${ENV.jwksUri} ${jwksUri} is plain http: whoever sits on the network path can swap the keys ` +
        `and forge tokens; use https`,
    );
  }
  return check('jwks-url', 'ok', `${ENV.jwksUri} is ${jwksUri}`);
}

/**
 * One identity provider, loaded with the hook's own key store and settings, so that discovery, reachability,
 * timeout and key vetting are the runtime's: where its JWKS URL comes from, then its keys for its algorithms.
 */
async function providerChecks(
  options: ResolvedOptions,
  provider: IdentityProvider,
  several: boolean,
): Promise<Check[]> {
  const { issuer } = provider;
  const about = issuer === undefined ? {} : { issuer };
  const named = (message: string): string =>
    several ? `identity provider ${JSON.stringify(issuer)}: ${message}` : message;
  const store = new KeyStore(keyStoreOptions(options, provider));
  const started = performance.now();
  let failure: string | undefined;
  try {
    await store.prefetch();
  } catch (error) {
    failure = error instanceof DualAuthError ? error.detail : String(error);
  } finally {
    store.close();
  }
  const elapsed = Math.round(performance.now() - started);
  const state = store.describe();
  const checks: Check[] = [];
  const audience = several
    ? { ...audienceCheck(provider.audience, named), ...about }
    : audienceCheck(provider.audience, (message) => message);
  if (provider.jwksUri !== undefined) {
    const url = jwksUrlCheck(provider.jwksUri);
    checks.push(
      several
        ? {
            ...check(
              'jwks-url',
              url.status,
              named(`JWKS URL ${provider.jwksUri}${url.status === 'warn' ? ' is plain http: use https' : ''}`),
            ),
            ...about,
          }
        : url,
    );
  } else {
    const { discovery } = state;
    if (discovery?.jwksUri === undefined)
      return [{ ...check('discovery', 'fail', named(failure ?? 'discovery found no JWKS URL')), ...about }, audience];
    const found = `issuer ${JSON.stringify(issuer)} names jwks_uri ${discovery.jwksUri} in ${discovery.documentUrl}`;
    checks.push(
      plainHttp(discovery.jwksUri)
        ? {
            ...check(
              'discovery',
              'warn',
              named(`${found}: plain http, whoever sits on the network path can swap the keys; use https`),
            ),
            ...about,
          }
        : { ...check('discovery', 'ok', named(found)), ...about },
    );
  }
  if (failure !== undefined) return [...checks, { ...check('jwks-keys', 'fail', named(failure)), ...about }, audience];
  const { kids, skippedKeys } = state;
  const shown = kids
    .slice(0, MAX_KIDS_SHOWN)
    .map((kid) => JSON.stringify(kid))
    .join(', ');
  const more = kids.length > MAX_KIDS_SHOWN ? ` and ${kids.length - MAX_KIDS_SHOWN} more` : '';
  const algorithms = provider.algorithms.join(', ');
  const skipped =
    skippedKeys > 0
      ? `; ${skippedKeys} other ${skippedKeys === 1 ? 'key' : 'keys'} skipped (encryption, or not for ${algorithms})`
      : '';
  const count = `${kids.length} signing ${kids.length === 1 ? 'key' : 'keys'}`;
  checks.push({
    ...check(
      'jwks-keys',
      'ok',
      named(`${count} for ${algorithms}: ${shown}${more}, answered in ${elapsed} ms${skipped}`),
    ),
    ...about,
  });
  checks.push(audience);
  return checks;
}

function audienceCheck(audience: readonly string[] | undefined, named: (message: string) => string): Check {
  if (audience === undefined) {
    return check(
      'audience',
      'warn',
      named(
        `${ENV.audience} is not set: tokens the identity provider issued for any other application are accepted too`,
      ),
    );
  }
  return check(
    'audience',
    'ok',
    named(`${ENV.audience}: ${audience.map((value) => JSON.stringify(value)).join(' or ')}`),
  );
}

/** With one JWKS URL, whether tokens are checked for who issued them; discovery and several providers always check. */
function issuerCheck(issuers: readonly string[] | undefined): Check {
  if (issuers === undefined)
    return check('issuer', 'warn', `${ENV.issuer} is not set: tokens are not checked for who issued them`);
  return check('issuer', 'ok', `${ENV.issuer}: ${issuers.map((value) => JSON.stringify(value)).join(' or ')}`);
}

/** Names and group lists as a message shows them: JSON strings, escaped (the operator's text, but a variable's). */
const quoted = (values: readonly string[]): string => values.map((value) => JSON.stringify(value)).join(', ');

/** One path's (or provider's) claims: where the tenant and the groups are read, and the groups configuration adds. */
function describeRules(rules: ClaimRules): string {
  const tenant =
    rules.tenantClaim === undefined ? 'no tenant claim' : `tenant claim ${JSON.stringify(rules.tenantClaim.text)}`;
  const fixed = rules.fixedGroups.length === 0 ? '' : `, plus groups ${quoted(rules.fixedGroups)}`;
  return `${tenant}, groups claim ${JSON.stringify(rules.groupsClaim.text)}${fixed}`;
}

/** The authorization in force: off, or the claims read on each path (per identity provider) and the groups given. */
function authorizationCheck(
  authorization: Authorization | undefined,
  providers: readonly IdentityProvider[],
  several: boolean,
): Check {
  if (authorization === undefined) {
    return check(
      'authorization',
      'ok',
      `off: none of ${ENV.tenantClaim}, ${ENV.serviceTenantClaim}, ${ENV.groupsClaim}, ` +
        `${ENV.serviceGroupsClaim}, ${ENV.defaultGroups}, ${ENV.serviceGroups} (nor a provider's ` +
        `tenantClaim, groupsClaim, groups) is set, so the security context carries no tenant or groups ` +
        `of the hook's`,
    );
  }
  const keySet = several
    ? authorization.keySet.map(
        (rules, i) => `identity provider ${JSON.stringify(providers[i]?.issuer ?? '')}: ${describeRules(rules)}`,
      )
    : authorization.keySet.map((rules) => `identity-provider tokens: ${describeRules(rules)}`);
  const defaults =
    authorization.defaultGroups.length === 0
      ? 'no default groups'
      : `default groups ${quoted(authorization.defaultGroups)}`;
  return check(
    'authorization',
    'ok',
    `service tokens: ${describeRules(authorization.sharedSecret)}; ${keySet.join('; ')}; ${defaults}`,
  );
}

/** Said of every example token: what the judgement rests on. */
const NOT_VERIFIED = "judged from its decoded payload by the hook's own rules; signature and times not checked";

/**
 * An example token judged by the hook's authorization step, with the hook's own code, from its payload as decoded (not
 * verified: an example may have expired): the path, as an HS256 token goes to the shared-secret path (the service's
 * tokens) and any other to the key-set path; there, the identity provider its `iss` names when there are several
 * ({@link providerByIssuer}); then the tenant and the groups ({@link tenantAndGroupsOf}: the tenant claim, the groups
 * claim, groups that configuration alone gives). Never prints the token, nor any of its values but the issuer.
 */
function exampleTokenCheck(
  token: string,
  authorization: Authorization | undefined,
  providers: readonly IdentityProvider[],
  several: boolean,
): Check {
  let decoded: DecodedToken;
  try {
    decoded = decodeToken(token);
  } catch (error) {
    return check(
      'example-token',
      'fail',
      `the example token is not one: ${error instanceof DualAuthError ? error.detail : String(error)}`,
    );
  }
  const path: AuthPath = decoded.header.alg === 'HS256' ? 'shared-secret' : 'key-set';
  const shared = path === 'shared-secret';
  const where = shared ? 'a service token (HS256, shared-secret path)' : 'an identity-provider token (key-set path)';
  const refused = (label: string, error: unknown): Check => {
    if (!(error instanceof DualAuthError)) throw error;
    return check('example-token', 'fail', `${label} is refused with ${error.code}: ${error.detail} (${NOT_VERIFIED})`);
  };
  if (!shared && providers.length === 0)
    return check(
      'example-token',
      'fail',
      `${where} is refused with ERR_JWKS_NOT_CONFIGURED: no identity provider is configured ` +
        `(${ENV.jwksUri}, ${ENV.providers})`,
    );
  let index = 0;
  try {
    if (!shared && several)
      index = providerByIssuer(new Map(providers.map((p, i) => [p.issuer as string, i])), decoded, ENV.providers);
  } catch (error) {
    return refused(where, error);
  }
  const provider = shared || !several ? undefined : providers[index];
  const named = provider === undefined ? where : `${where} of identity provider ${JSON.stringify(provider.issuer)}`;
  if (authorization === undefined)
    return check(
      'example-token',
      'ok',
      `${named}: authorization is off, so no tenant or groups are read (${NOT_VERIFIED})`,
    );
  const rules = shared ? authorization.sharedSecret : authorization.keySet[index];
  let groups: readonly string[];
  try {
    const verified = {
      context: decoded.payload,
      payload: decoded.payload,
      kid: undefined,
      refusedFrom: Infinity,
      ...(provider === undefined
        ? {}
        : { provider: { index, issuer: provider.issuer, jwksUri: provider.jwksUri, reason: provider.reason } }),
    };
    ({ groups } = tenantAndGroupsOf(authorization, verified, path));
  } catch (error) {
    return refused(named, error);
  }
  const tenant =
    rules?.tenantClaim === undefined
      ? 'no tenant claim is configured for it'
      : `carries the tenant claim ${JSON.stringify(rules.tenantClaim.text)} (${rules.tenantOption})`;
  const fixed =
    rules === undefined || rules.fixedGroups.length === 0
      ? ''
      : `, ${quoted(rules.fixedGroups)} given by configuration`;
  const count = `${groups.length} ${groups.length === 1 ? 'group' : 'groups'}`;
  return check(
    'example-token',
    'ok',
    `${named} passes the authorization step: ${tenant}; it gets ${count}${fixed} (${NOT_VERIFIED})`,
  );
}

/** Cube's variables that turn its SQL API on (a port, unless "false"), as Cube's own env.js reads them. */
const SQL_API_PORTS = ['CUBEJS_PG_SQL_PORT', 'CUBEJS_SQL_PORT'];

/** The variable that turns Cube's SQL API on here, or undefined when it is off. */
function sqlApiPort(env: NodeJS.ProcessEnv): string | undefined {
  return SQL_API_PORTS.find((name) => ![undefined, 'false'].includes(readEnv(env, name)));
}

/** True when `version` (x.y.z) is before `since`. */
function before(version: string, since: string): boolean {
  const parts = (text: string) => text.split(/[.+-]/).slice(0, 3).map(Number);
  const [a, b] = [parts(version), parts(since)];
  for (let i = 0; i < 3; i++) if ((a[i] ?? 0) !== (b[i] ?? 0)) return (a[i] ?? 0) < (b[i] ?? 0);
  return false;
}

/**
 * The SQL API's login (`checkSqlAuth`), when this environment uses the SQL API or configures its login: who a token
 * signs in as, the static login and the super user (never the password), and what refuses every login: a Cube that
 * passes no password, or no identity provider to verify tokens with. Undefined otherwise: most deployments have
 * no SQL API.
 */
function sqlApiCheck(
  env: NodeJS.ProcessEnv,
  options: ResolvedOptions,
  providers: readonly IdentityProvider[],
  cwd: string,
): Check | undefined {
  const port = sqlApiPort(env);
  if (
    port === undefined &&
    [ENV.sqlUserClaim, ENV.sqlUser, ENV.sqlPassword, ENV.sqlSuperUser].every((name) => readEnv(env, name) === undefined)
  )
    return undefined;
  const found = findGateway(cwd);
  const version = found === undefined ? undefined : gatewayVersion(found.file);
  if (version !== undefined && before(version, SQL_PASSWORD_SINCE)) {
    return check(
      'sql-api',
      'fail',
      `Cube ${version} passes no password to checkSqlAuth: every SQL login is refused; it needs Cube ` +
        `${SQL_PASSWORD_SINCE} or later`,
    );
  }
  const { sqlUserClaim, sqlUser, sqlPassword, sqlSuperUser } = options;
  const user =
    sqlUserClaim === ANY_SQL_USER
      ? `any user name (${ENV.sqlUserClaim}=${ANY_SQL_USER}), a session re-authenticated only while one subject ` +
        `signs in under its name`
      : `the user name must be the token's claim ${JSON.stringify(sqlUserClaim)} (${ENV.sqlUserClaim})`;
  const tokens =
    providers.length === 0
      ? `no identity provider is configured (${ENV.jwksUri}, ${ENV.providers}), so every token login is refused`
      : `an identity-provider token as the password, ${user}`;
  const half = (sqlUser === undefined) !== (sqlPassword === undefined);
  const staticLogin =
    sqlUser !== undefined && sqlPassword !== undefined
      ? `static login ${JSON.stringify(sqlUser)} with ${ENV.sqlPassword} (never printed)`
      : half
        ? `no static login: ${sqlUser === undefined ? ENV.sqlUser : ENV.sqlPassword} is not set, only ` +
          `${sqlUser === undefined ? ENV.sqlPassword : ENV.sqlUser}`
        : 'no static login';
  // Under `*` a token names no user name: the superuser signs in only by its own `sub` (docs/security.md).
  const anySuperUser = sqlSuperUser !== undefined && sqlUserClaim === ANY_SQL_USER;
  const superUser =
    sqlSuperUser === undefined
      ? `no ${ENV.sqlSuperUser}: a user stays itself`
      : `${ENV.sqlSuperUser} ${JSON.stringify(sqlSuperUser)} may ask to switch users` +
        (anySuperUser ? `, and signs in only with a token or SQL key whose own "sub" names it` : '');
  const where = port === undefined ? '' : ` on ${port}`;
  // Without req.protocol and req.method no password-less call is answered (docs/security.md, "One name, one identity").
  const noFields = version !== undefined && before(version, SQL_REQUEST_FIELDS_SINCE);
  const status: CheckStatus = providers.length === 0 || half || anySuperUser || noFields ? 'warn' : 'ok';
  const lifetime = noFields ? reauthenticationRefused(version) : sqlSessionLifetime(env, options);
  return check('sql-api', status, `SQL API${where}: ${tokens}; ${staticLogin}; ${superUser}; ${DAX_API}; ${lifetime}`);
}

/** What a Cube before 1.3.13 does to a BI session: it passes no `req.protocol`, so no re-authentication is answered. */
const reauthenticationRefused = (version: string): string =>
  `Cube ${version} passes no req.protocol or req.method to checkSqlAuth (Cube ${SQL_REQUEST_FIELDS_SINCE} and ` +
  `later do), so every re-authentication is refused and a BI session ends at its first one, ` +
  `CUBESQL_AUTH_EXPIRE_SECS after its login: upgrade Cube`;

/** What Cube Cloud's DAX API users do, as the README's Cube Cloud section says (docs/cube-lines.md). */
const DAX_API =
  "Cube Cloud's DAX API (NTLM, Kerberos) is not supported: its users sign in with a SQL key or a token as the password";

/** Cube's native server re-authenticates a SQL session this often unless told (cubesql's `auth_expire_secs`). */
const CUBESQL_AUTH_EXPIRE_SECS_DEFAULT = 300;

/**
 * How long a BI session lives: until its token expires (or outgrows the maximum token age), as Cube finds when it
 * re-authenticates the session every `CUBESQL_AUTH_EXPIRE_SECS` (docs/sql-api.md, "How long a session lives").
 */
function sqlSessionLifetime(env: NodeJS.ProcessEnv, { maxTokenAge }: Pick<ResolvedOptions, 'maxTokenAge'>): string {
  const until =
    maxTokenAge === undefined
      ? 'a BI session lives until its token expires'
      : `a BI session lives until its token expires or is ${maxTokenAge} s old (${ENV.maxTokenAge})`;
  const given = readEnv(env, 'CUBESQL_AUTH_EXPIRE_SECS');
  if (given === undefined)
    return `${until}, checked every ${CUBESQL_AUTH_EXPIRE_SECS_DEFAULT} s (CUBESQL_AUTH_EXPIRE_SECS, Cube's default)`;
  // Cube reads the variable as whole seconds; the value is not echoed, as nothing from the environment is.
  if (!/^\d+$/.test(given)) return `${until}; CUBESQL_AUTH_EXPIRE_SECS is not a whole number of seconds`;
  return `${until}, checked every ${Number(given)} s (CUBESQL_AUTH_EXPIRE_SECS)`;
}

/**
 * The SQL keys' set-up (`cube-dual-auth sql-key`), when any of its variables is set: the secrets in force, the maximum
 * age and the revoked ids, as counts and never as values. A weak secret, or one that is an API secret, fails the
 * configuration line before this one is reached. Undefined when SQL keys are not set up.
 */
function sqlKeyCheck(env: NodeJS.ProcessEnv, options: ResolvedOptions): Check | undefined {
  if ([ENV.sqlKeySecrets, ENV.sqlKeyMaxAge, ENV.sqlKeysRevoked].every((name) => readEnv(env, name) === undefined))
    return undefined;
  const secrets = options.sqlKeyKeys.length;
  const revoked = options.sqlKeysRevoked?.size ?? 0;
  const maxAge = `keys live at most ${formatDuration(options.sqlKeyMaxAge)} (${ENV.sqlKeyMaxAge})`;
  const revokedIds = `${revoked} revoked key ${revoked === 1 ? 'id' : 'ids'} (${ENV.sqlKeysRevoked})`;
  if (secrets === 0)
    return check(
      'sql-key',
      'warn',
      `SQL keys: ${ENV.sqlKeySecrets} is not set, so every SQL key is refused and "cube-dual-auth ` +
        `sql-key" mints none; ${maxAge}; ${revokedIds}`,
    );
  const inForce =
    secrets === 1
      ? `1 secret in ${ENV.sqlKeySecrets}`
      : `${secrets} secrets in ${ENV.sqlKeySecrets} (the first signs, all verify)`;
  return check(
    'sql-key',
    'ok',
    `SQL keys (cube-dual-auth sql-key): ${inForce}, each with at least ${MIN_SECRET_BYTES} bytes of ` +
      `key material and none an API secret; ${maxAge}; ${revokedIds}`,
  );
}

/** Cube's REST API port when `PORT` does not say: the port its own metrics listener must not take. */
const CUBE_DEFAULT_PORT = 4000;

/**
 * The hook's metrics, when this environment turns them on: where `GET /metrics` is served, or that they are recorded
 * for OpenTelemetry or a server of the operator's own. A metrics port that is Cube's own API port cannot work (one of
 * the two listeners would not start). Undefined while metrics are off, the default.
 */
function metricsCheck(env: NodeJS.ProcessEnv, options: ResolvedOptions): Check | undefined {
  const { metricsPort, metricsHost, metrics } = options;
  if (metricsPort === undefined) {
    return metrics
      ? check(
          'metrics',
          'ok',
          `recorded without a listener (${ENV.metrics}=true): for OpenTelemetry, or the package's ` +
            `metrics served where you mount them`,
        )
      : undefined;
  }
  const cubePort = Number(readEnv(env, 'PORT') ?? CUBE_DEFAULT_PORT);
  if (metricsPort === cubePort) {
    return check(
      'metrics',
      'fail',
      `${ENV.metricsPort} is ${metricsPort}, Cube's own API port (PORT): give the metrics a port of their own`,
    );
  }
  const host = metricsHost.includes(':') ? `[${metricsHost}]` : metricsHost;
  return check(
    'metrics',
    'ok',
    `GET /metrics on ${host}:${metricsPort} (${ENV.metricsPort}, ${ENV.metricsHost}), a listener of ` +
      `its own beside Cube's API`,
  );
}

/**
 * The variables by which Cube decides whether its refresh worker runs, first set first (its `refreshWorkerMode`, in
 * @cubejs-backend/shared's env.ts, on both lines; the last two are deprecated there). With none set, it runs unless
 * NODE_ENV is `production`.
 */
const REFRESH_WORKER_VARIABLES = [
  'CUBEJS_REFRESH_WORKER',
  'CUBEJS_SCHEDULED_REFRESH',
  'CUBEJS_SCHEDULED_REFRESH_TIMER',
] as const;

/**
 * Cube's refresh worker runs the contexts of `scheduledRefreshContexts`, which never pass the hook: with a tenant
 * configured, each needs a tenant and groups of its own (docs/cli-output.md#doctors-checks, `refresh-worker`). Said
 * when a variable turns the worker on; a warning when only NODE_ENV (not `production`) does. Undefined when no tenant
 * is configured, the worker is off, or NODE_ENV is unset (Cube's Docker image sets it, so it cannot be told).
 */
function refreshWorkerCheck(env: NodeJS.ProcessEnv, authorization: Authorization | undefined): Check | undefined {
  if (authorization?.tenant !== true) return undefined;
  const contexts =
    'every context that scheduledRefreshContexts in cube.js returns needs a securityContext with ' +
    "tenant and groups: contextToAppId and contextToOrchestratorId refuse one without (Cube's " +
    'default is one empty context), and with contextToOrchestratorId Cube stops at its first refresh';
  const variable = REFRESH_WORKER_VARIABLES.find((name) => readEnv(env, name) !== undefined);
  if (variable !== undefined) {
    return /^(false|0)$/i.test(readEnv(env, variable) ?? '')
      ? undefined
      : check('refresh-worker', 'ok', `Cube's refresh worker runs here (${variable}): ${contexts}`);
  }
  const nodeEnv = readEnv(env, 'NODE_ENV');
  if (nodeEnv === undefined || nodeEnv === 'production') return undefined;
  return check(
    'refresh-worker',
    'warn',
    `Cube's refresh worker runs here because NODE_ENV is not production: ${contexts}; set ` +
      `CUBEJS_REFRESH_WORKER=false where this instance builds no pre-aggregations`,
  );
}

/**
 * The hook throws Cube's own error class only when it finds the host Cube, as found here (host-cube.ts); else Cube
 * answers 500, not 403. Says where it was found, as the hook looks: loaded, from `cwd`, or from this package's
 * directory.
 */
function gatewayCheck(cwd: string): Check {
  const found = findGateway(cwd);
  if (found === undefined) {
    return check(
      'cube-gateway',
      'warn',
      `${GATEWAY} does not resolve from ${cwd}, nor from cube-dual-auth's own directory ` +
        `(${OWN_DIRECTORY}): run doctor in the Cube project; if cube-dual-auth is not installed next ` +
        `to Cube, rejections become HTTP 500 instead of 403`,
    );
  }
  const version = gatewayVersion(found.file);
  const where =
    found.kind === 'loaded'
      ? 'is loaded in this process'
      : found.from === cwd
        ? `resolves from ${cwd}`
        : `resolves from cube-dual-auth's own directory (${found.from}), not from ${cwd}`;
  return check('cube-gateway', 'ok', `${GATEWAY}${version ? ` ${version}` : ''} ${where}: rejections become HTTP 403`);
}

/** What `cube.js` gives Cube: whether it loads with cube-dual-auth's checkAuth, then its logger. */
function cubeJsChecks(reading: CubeJsReading): Check[] {
  const { status, message } = cubeJsFinding(reading);
  const logger = loggerFinding(reading);
  return [check('cube-js', status, message), ...(logger ? [check('logger', logger.status, logger.message)] : [])];
}

const SEVERITY: readonly CheckStatus[] = ['ok', 'warn', 'fail'];

/**
 * The `sql-api` line with what `cube.js` exports as `checkSqlAuth` said after its head, and its status the worse of
 * the two; a line that fails already (a Cube that passes no password) is kept as it is.
 */
function withSqlAuthOfCubeJs(sql: Check, reading: CubeJsReading, sqlApiOn: boolean): Check {
  if (sql.status === 'fail') return sql;
  const finding = sqlAuthFinding(reading, sqlApiOn);
  const status = SEVERITY[Math.max(SEVERITY.indexOf(sql.status), SEVERITY.indexOf(finding.status))] as CheckStatus;
  const at = sql.message.indexOf(': ');
  return check('sql-api', status, `${sql.message.slice(0, at)}: ${finding.message}; ${sql.message.slice(at + 2)}`);
}

function configurationFailure(error: unknown): Check {
  if (!(error instanceof DualAuthConfigError)) throw error;
  return check('configuration', 'fail', error.message);
}

/** The options as the hook would take them with a weak secret allowed; undefined when something else is wrong too. */
function resolvedDespiteWeakSecret(options: DualAuthOptions): ResolvedOptions | undefined {
  try {
    return resolveOptions({ ...options, allowWeakSecret: true }, ENV_NAMES);
  } catch {
    return undefined;
  }
}

/** What {@link diagnose} checks beside the environment. */
export interface DiagnoseOptions {
  /** An example token: whether a token like it passes the hook's authorization step. */
  readonly exampleToken?: string;
  /** How long `cube.js` may take to load. Default {@link CUBE_JS_TIMEOUT_MS}. */
  readonly cubeJsTimeoutMs?: number;
  /** The command's deadline: once aborted, what is left is a `fail` check, not checked. */
  readonly signal?: AbortSignal;
  /** The Node judged against the Cube found. Default: the one this runs on. */
  readonly nodeVersion?: string;
}

/**
 * Checks the environment a deployment would run with (`given`, with the `.env` of `cwd` under it as Cube's server
 * loads it), whether Cube resolves from `cwd` and starts on this Node, and what `cube.js` there exports (read in a
 * child process, as Cube loads it, with that environment); with `exampleToken`, whether a token like it passes the
 * hook's authorization step. Never throws for a bad configuration: that is a `fail` check. Checks that need a valid
 * configuration are left out until it is valid; a weak API secret alone, which stops the hook too, leaves them in, so
 * that one run shows all there is to fix.
 */
export async function diagnose(
  given: NodeJS.ProcessEnv,
  cwd: string,
  {
    exampleToken,
    cubeJsTimeoutMs = CUBE_JS_TIMEOUT_MS,
    signal,
    nodeVersion = process.versions.node,
  }: DiagnoseOptions = {},
): Promise<Diagnosis> {
  const { env, findings } = withDotenv(given, cwd);
  // Loads while the identity providers are asked.
  const reading = readCubeJs({ cwd, env, timeoutMs: cubeJsTimeoutMs, ...(signal === undefined ? {} : { signal }) });
  const checks: Check[] = findings.map(({ status, message }) => check('dotenv', status, message));
  let options: DualAuthOptions | undefined;
  let resolved: ResolvedOptions | undefined;
  try {
    options = optionsFromEnv(env);
    resolved = resolvedAsTheHook(options);
    checks.push(check('configuration', 'ok', 'the checkAuth hook accepts this environment'));
  } catch (error) {
    const failure = configurationFailure(error);
    resolved =
      options === undefined || options.allowWeakSecret === true ? undefined : resolvedDespiteWeakSecret(options);
    checks.push(
      resolved === undefined
        ? failure
        : check(
            'configuration',
            'fail',
            'the checkAuth hook accepts every variable but the API secret, which is too weak: Cube ' +
              'will not start (see api-secret)',
          ),
    );
  }
  const providers = resolved?.identityProviders ?? [];
  const secretsDir = secretsDirReport(options);
  if (secretsDir !== undefined) checks.push(check('secrets-dir', secretsDir.status, secretsDir.message));
  // Read apart from the other variables, so that a configuration failure still shows them; an api-secrets file
  // replaces them.
  if (!apiSecretsFromDirectory(options))
    checks.push(...secretChecks(apiSecretsInForce(env), options?.allowWeakSecret === true, providers.length > 0));
  if (resolved) {
    checks.push(originCheck(resolved));
    if (providers.length === 0) checks.push(jwksUrlCheck(undefined));
    // One at a time: the lines then come out in the configured order, and a provider's timeout is its own.
    for (const provider of providers) {
      const asked = providerChecks(resolved, provider, resolved.providers !== undefined);
      const about = provider.issuer === undefined ? '' : ` (identity provider ${JSON.stringify(provider.issuer)})`;
      const notChecked = [check('jwks-keys', 'fail', `${NOT_CHECKED}${about}`)];
      checks.push(...(await unlessAborted(asked, signal, notChecked)));
    }
    const [only] = providers;
    if (providers.length === 1 && only?.jwksUri !== undefined) checks.push(issuerCheck(only.issuers));
    const several = resolved.providers !== undefined;
    checks.push(authorizationCheck(resolved.authorization, providers, several));
    const cubeOptions = cubeOptionsOfProject(await reading, resolved.authorization, { cwd, env });
    if (cubeOptions !== undefined) checks.push(check('cube-options', cubeOptions.status, cubeOptions.message));
    const sql = sqlApiCheck(env, resolved, providers, cwd);
    if (sql !== undefined) checks.push(withSqlAuthOfCubeJs(sql, await reading, sqlApiPort(env) !== undefined));
    const sqlKeys = sqlKeyCheck(env, resolved);
    if (sqlKeys !== undefined) checks.push(sqlKeys);
    const metrics = metricsCheck(env, resolved);
    if (metrics !== undefined) checks.push(metrics);
    const refresh = refreshWorkerCheck(env, resolved.authorization);
    if (refresh !== undefined) checks.push(refresh);
    if (exampleToken !== undefined)
      checks.push(exampleTokenCheck(exampleToken, resolved.authorization, providers, several));
  }
  const node = nodeOfProject(cwd, nodeVersion);
  checks.push(gatewayCheck(cwd), check('node', node.status, node.message), ...cubeJsChecks(await reading));
  return { ok: checks.every((c) => c.status !== 'fail'), checks };
}
