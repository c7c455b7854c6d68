/**
 * The verify report: how the hook configured from the environment judges one token, as `verify` prints it and `access`
 * reads it (docs/cli-output.md#--json-output).
 */
import { createNamedCheckAuth, type CheckAuth, type Explanation } from '../hook/check-auth';
import { withoutBearer } from '../hook/request';
import { isSqlKeyHeader } from '../hook/sql-login/sql-key';
import { DEFAULTS, ENV_NAMES, type DualAuthOptions } from '../config/options';
import { resolveAtStart } from '../config/secrets-dir';
import { ENV, optionsFromEnv, type ApiSecret } from '../config/env';
import { secretsOfDeployment } from '../config/deployment';
import { DualAuthConfigError, type AuthPath, type RejectionCode } from '../errors';
import { asNumericDate, isoSeconds, relative, shortenToken } from './format';
import { hintFor, SQL_KEY_HINT } from './hints';

/** A claim holding a date, for people and for `--json`. */
interface TimeInfo {
  readonly value: unknown;
  /** ISO 8601, whole seconds; null when the claim is not a number. */
  readonly iso: string | null;
  /** `in 59 min` / `3 h ago`; null when the claim is not a number. */
  readonly relative: string | null;
}

export type KeyInfo =
  | {
      readonly source: 'jwks';
      readonly kid: string | null;
      readonly jwksUri: string | null;
      /** The identity provider chosen: its issuer (null when none is configured) and why; null when none was chosen. */
      readonly provider: { readonly issuer: string | null; readonly reason: string } | null;
    }
  | {
      readonly source: 'api-secret';
      readonly secrets: number;
      /** The variable or the secrets directory's file each secret tried came from, in the order tried. */
      readonly variables: readonly string[];
    };

/** The `--json` document; every member is always present (null when it does not apply). */
export interface VerifyReport {
  readonly accepted: boolean;
  readonly token: string;
  readonly requestOrigin: string | null;
  readonly path: AuthPath | null;
  readonly pathReason: string | null;
  readonly header: Record<string, unknown> | null;
  readonly claims: Record<string, unknown> | null;
  readonly times: Partial<Record<'exp' | 'nbf' | 'iat', TimeInfo>>;
  readonly key: KeyInfo | null;
  /**
   * The tenant and groups the hook gave, as the security context it reports carries them; null when no authorization
   * is configured or the token was refused (tenant null: the token's path reads no tenant).
   */
  readonly authorization: { readonly tenant: string | null; readonly groups: readonly string[] } | null;
  readonly securityContext: Record<string, unknown> | null;
  /** Set when the token was accepted as a standing service credential: what it is and what that means. */
  readonly standingServiceCredential: Explanation['standingServiceCredential'] | null;
  readonly error: { readonly code: RejectionCode; readonly message: string; readonly hint: string } | null;
}

/** The token, and the `Request-Origin` to send: undefined, none; '', the configured origin; else the one given. */
export interface VerifyRequest {
  readonly token: string;
  readonly origin: string | undefined;
}

export const TIME_CLAIMS = ['exp', 'nbf', 'iat'] as const;

function times(claims: Record<string, unknown> | undefined, now: number): VerifyReport['times'] {
  const result: Partial<Record<(typeof TIME_CLAIMS)[number], TimeInfo>> = {};
  for (const claim of TIME_CLAIMS) {
    const value = claims?.[claim];
    if (value === undefined) continue;
    const seconds = asNumericDate(value);
    result[claim] = {
      value,
      iso: seconds === undefined ? null : isoSeconds(seconds),
      relative: seconds === undefined ? null : relative(seconds, now),
    };
  }
  return result;
}

function keyInfo(explanation: Explanation, secrets: readonly ApiSecret[]): KeyInfo | null {
  if (explanation.path === 'shared-secret')
    return { source: 'api-secret', secrets: secrets.length, variables: secrets.map(({ variable }) => variable) };
  if (explanation.path === 'key-set') {
    const kid = explanation.kid ?? explanation.header?.kid;
    const { provider } = explanation;
    return {
      source: 'jwks',
      kid: typeof kid === 'string' ? kid : null,
      jwksUri: explanation.jwksUri ?? null,
      provider: provider ? { issuer: provider.issuer ?? null, reason: provider.reason } : null,
    };
  }
  return null;
}

/** Shortened after the `Bearer ` prefix, which would otherwise hide that it is a JWS. */
function shownToken(token: string): string {
  return shortenToken(withoutBearer(token));
}

/**
 * The tenant and groups of the context the hook reports: only the hook writes them there when authorization is on
 * (hook/tenant-and-groups.ts), so they are read back from it, never worked out again here.
 */
function reportedAuthorization(
  context: Record<string, unknown> | undefined,
  on: boolean,
): VerifyReport['authorization'] {
  if (!on || context === undefined) return null;
  const { tenant, groups } = context;
  return {
    tenant: typeof tenant === 'string' ? tenant : null,
    groups: Array.isArray(groups) ? groups.filter((group): group is string => typeof group === 'string') : [],
  };
}

function report(
  args: VerifyRequest,
  requestOrigin: string | undefined,
  explanation: Explanation,
  options: DualAuthOptions,
  secrets: readonly ApiSecret[],
  authorizing: boolean,
): VerifyReport {
  const { error } = explanation;
  return {
    accepted: explanation.accepted,
    token: shownToken(args.token),
    requestOrigin: requestOrigin ?? null,
    path: explanation.path ?? null,
    pathReason: explanation.pathReason,
    header: explanation.header ?? null,
    claims: explanation.payload ?? null,
    times: times(explanation.payload, Date.now() / 1000),
    key: keyInfo(explanation, secrets),
    authorization: explanation.accepted ? reportedAuthorization(explanation.securityContext, authorizing) : null,
    securityContext: explanation.securityContext ?? null,
    standingServiceCredential: explanation.standingServiceCredential ?? null,
    error: error
      ? {
          ...error,
          hint: isSqlKeyHeader(explanation.header)
            ? SQL_KEY_HINT
            : (fileHint(error.code, explanation.path, secrets) ??
              hintFor(error.code, explanation.path, configuredOrigin(options))),
        }
      : null,
  };
}

/** The fix of a refused service token when the secrets directory's `api-secrets` holds the secrets: that file. */
function fileHint(code: RejectionCode, path: AuthPath | undefined, secrets: readonly ApiSecret[]): string | undefined {
  const variables: readonly string[] = [ENV.apiSecret, ENV.apiSecrets, ENV.additionalApiSecrets];
  const file = secrets.find(({ variable }) => !variables.includes(variable))?.variable;
  if (code !== 'ERR_SIGNATURE_INVALID' || path !== 'shared-secret' || file === undefined) return undefined;
  return `${file} must hold the secret the service signs with, one secret a line: during a rotation, both (it replaces ${ENV.apiSecret} and ${ENV.apiSecrets}).`;
}

function configurationReport(args: VerifyRequest, error: DualAuthConfigError): VerifyReport {
  return {
    accepted: false,
    token: shownToken(args.token),
    requestOrigin: null,
    path: null,
    pathReason: null,
    header: null,
    claims: null,
    times: {},
    key: null,
    authorization: null,
    securityContext: null,
    standingServiceCredential: null,
    error: { code: error.code, message: error.message, hint: hintFor(error.code, undefined, DEFAULTS.origin) },
  };
}

function configuredOrigin(options: DualAuthOptions): string {
  return options.origin ?? DEFAULTS.origin;
}

/** The `Request-Origin` value to send: none, the configured origin, or the one given. */
function requestOriginFor(args: VerifyRequest, options: DualAuthOptions): string | undefined {
  return args.origin === '' ? configuredOrigin(options) : args.origin;
}

async function verifyWith(
  args: VerifyRequest,
  options: DualAuthOptions,
  checkAuth: CheckAuth,
  env: NodeJS.ProcessEnv,
): Promise<VerifyReport> {
  const requestOrigin = requestOriginFor(args, options);
  const headers = requestOrigin === undefined ? {} : { 'request-origin': requestOrigin };
  const explanation = await checkAuth.explain({ headers }, args.token);
  // The hook took these options, its secrets directory's files in place, already: resolving them again cannot throw.
  const authorizing = resolveAtStart(options, ENV_NAMES).authorization !== undefined;
  return report(args, requestOrigin, explanation, options, secretsOfDeployment(env).apiSecrets, authorizing);
}

/**
 * Judges `token` as the hook configured from `env` (a deployment's: config/deployment.ts) would, and reports it as
 * `verify` does (also for `access`);
 * a configuration error is reported as the verdict, never thrown. `origin` is as {@link VerifyRequest} takes it.
 */
export async function verifyToken(
  { token, origin }: VerifyRequest,
  env: NodeJS.ProcessEnv,
): Promise<{ readonly report: VerifyReport; readonly severalProviders: boolean }> {
  const args = { token, origin };
  let checkAuth: CheckAuth | undefined;
  let options: DualAuthOptions | undefined;
  try {
    options = optionsFromEnv(env);
    checkAuth = createNamedCheckAuth(options, { names: ENV_NAMES });
    return {
      report: await verifyWith(args, options, checkAuth, env),
      severalProviders: options.providers !== undefined,
    };
  } catch (error) {
    if (!(error instanceof DualAuthConfigError)) throw error;
    return { report: configurationReport(args, error), severalProviders: options?.providers !== undefined };
  } finally {
    // An open JWKS connection or timer would keep the process alive after the answer.
    checkAuth?.close();
  }
}
