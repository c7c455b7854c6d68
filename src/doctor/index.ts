/**
 * The checks of `cube-dual-auth doctor`: what the hook would run with in this environment, judged with the
 * hook's own code (option validation, the JWKS key store) plus what the hook cannot know (secret strength,
 * missing audience/issuer, where Cube is installed).
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { DEFAULTS, ENV_NAMES, resolveOptions, type DualAuthOptions, type ResolvedOptions } from '../config';
import { ENV, optionsFromEnv, readEnv } from '../env';
import { DualAuthConfigError, DualAuthError } from '../errors';
import { KeyStore, keyStoreOptions } from '../keys';
import { keyMaterialBytes, MIN_SECRET_BYTES, secretWeakness } from '../secret-strength';

export type CheckStatus = 'ok' | 'warn' | 'fail';

/** One line of the checklist. `id` is stable; `message` may be reworded between releases. */
export interface Check {
  readonly id: CheckId;
  readonly status: CheckStatus;
  readonly message: string;
}

export type CheckId =
  | 'configuration'
  | 'api-secret'
  | 'additional-api-secrets'
  | 'origin'
  | 'jwks-url'
  | 'jwks-keys'
  | 'audience'
  | 'issuer'
  | 'cube-gateway';

export interface Diagnosis {
  /** False when any check failed. */
  readonly ok: boolean;
  readonly checks: readonly Check[];
}

const GATEWAY = '@cubejs-backend/api-gateway';
const SECRET_ADVICE = `anyone can choose the shared-secret path, so use at least ${MIN_SECRET_BYTES} random bytes (openssl rand -base64 48)`;
const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);
const MAX_KIDS_SHOWN = 5;

const check = (id: CheckId, status: CheckStatus, message: string): Check => ({ id, status, message });

function secretList(options: DualAuthOptions): readonly string[] {
  const { apiSecret } = options;
  return apiSecret === undefined ? [] : typeof apiSecret === 'string' ? [apiSecret] : apiSecret;
}

/**
 * `optionsFromEnv` puts CUBEJS_API_SECRET (when set) first, then the additional ones; Cube's rotation list
 * CUBEJS_API_SECRETS, when set, takes the place of CUBEJS_API_SECRET, and its secrets are checked as a list.
 */
function secretChecks(options: DualAuthOptions, env: NodeJS.ProcessEnv): Check[] {
  const all = secretList(options);
  if (readEnv(env, ENV.apiSecrets)?.replace(/[\s,]/g, '')) return [listedSecretsCheck('api-secret', ENV.apiSecrets, all)];
  const hasMain = (env[ENV.apiSecret]?.trim() ?? '') !== '';
  const main = hasMain ? all[0] : undefined;
  const additional = hasMain ? all.slice(1) : all;
  const checks = [mainSecretCheck(main, additional.length, options.jwksUri !== undefined)];
  if (additional.length > 0) checks.push(additionalSecretsCheck(additional));
  return checks;
}

function mainSecretCheck(secret: string | undefined, additional: number, keySet: boolean): Check {
  if (secret === undefined) {
    if (additional > 0) {
      return check('api-secret', 'warn', `${ENV.apiSecret} is not set: only ${ENV.additionalApiSecrets} verify service tokens, and "cube-dual-auth token" cannot mint any`);
    }
    // Without a secret and with a JWKS URL, the deployment is a valid key-set-only set-up.
    return keySet
      ? check('api-secret', 'ok', `${ENV.apiSecret} is not set: a key-set-only set-up, every service token (shared-secret path) is refused`)
      : check('api-secret', 'fail', `${ENV.apiSecret} is not set: every service token (shared-secret path) is refused`);
  }
  const weakness = secretWeakness(secret);
  if (weakness) return check('api-secret', 'fail', `${ENV.apiSecret} ${weakness}: ${SECRET_ADVICE}`);
  return check('api-secret', 'ok', `${ENV.apiSecret} is set (${keyMaterialBytes(secret)} bytes of key material)`);
}

function additionalSecretsCheck(secrets: readonly string[]): Check {
  return listedSecretsCheck('additional-api-secrets', ENV.additionalApiSecrets, secrets, 'more');
}

function listedSecretsCheck(id: CheckId, variable: string, secrets: readonly string[], what = secrets.length === 1 ? 'secret' : 'secrets'): Check {
  const weak = secrets.flatMap((secret, i) => {
    const weakness = secretWeakness(secret);
    return weakness ? [`secret ${i + 1} of ${secrets.length} ${weakness}`] : [];
  });
  if (weak.length > 0) return check(id, 'fail', `${variable}: ${weak.join('; ')}: ${SECRET_ADVICE}`);
  return check(id, 'ok', `${variable}: ${secrets.length} ${what}, each with at least ${MIN_SECRET_BYTES} bytes of key material`);
}

function originCheck(options: ResolvedOptions): Check {
  return check(
    'origin',
    'ok',
    `"Request-Origin: ${options.origin}" selects the shared-secret path, other requests the key-set path (${ENV.origin}, default "${DEFAULTS.origin}")`,
  );
}

function jwksUrlCheck(jwksUri: string | undefined): Check {
  if (jwksUri === undefined) {
    return check('jwks-url', 'warn', `${ENV.jwksUri} is not set: the key-set path refuses every identity-provider token`);
  }
  const url = new URL(jwksUri);
  if (url.protocol === 'http:' && !LOOPBACK.has(url.hostname)) {
    return check('jwks-url', 'warn', `${ENV.jwksUri} ${jwksUri} is plain http: whoever sits on the network path can swap the keys and forge tokens; use https`);
  }
  return check('jwks-url', 'ok', `${ENV.jwksUri} is ${jwksUri}`);
}

/** Loads the key set with the hook's own key store and settings, so reachability, timeout and key vetting are the runtime's. */
async function jwksKeysCheck(options: ResolvedOptions & { jwksUri: string }): Promise<Check> {
  const store = new KeyStore(keyStoreOptions(options));
  const started = performance.now();
  try {
    await store.prefetch();
  } catch (error) {
    return check('jwks-keys', 'fail', error instanceof DualAuthError ? error.detail : String(error));
  } finally {
    store.close();
  }
  const { kids, skippedKeys } = store.describe();
  const shown = kids.slice(0, MAX_KIDS_SHOWN).map((kid) => JSON.stringify(kid)).join(', ');
  const more = kids.length > MAX_KIDS_SHOWN ? ` and ${kids.length - MAX_KIDS_SHOWN} more` : '';
  const algorithms = options.algorithms.join(', ');
  const skipped = skippedKeys > 0 ? `; ${skippedKeys} other ${skippedKeys === 1 ? 'key' : 'keys'} skipped (encryption, or not for ${algorithms})` : '';
  const count = `${kids.length} signing ${kids.length === 1 ? 'key' : 'keys'}`;
  return check('jwks-keys', 'ok', `${count} for ${algorithms}: ${shown}${more}, answered in ${Math.round(performance.now() - started)} ms${skipped}`);
}

function claimCheck(id: 'audience' | 'issuer', values: readonly string[] | undefined): Check {
  const variable = id === 'audience' ? ENV.audience : ENV.issuer;
  if (values === undefined) {
    const risk = id === 'audience'
      ? 'tokens the identity provider issued for any other application are accepted too'
      : 'tokens are not checked for who issued them';
    return check(id, 'warn', `${variable} is not set: ${risk}`);
  }
  return check(id, 'ok', `${variable}: ${values.map((value) => JSON.stringify(value)).join(' or ')}`);
}

function versionOf(entry: string): string | undefined {
  for (let dir = dirname(entry); dir !== dirname(dir); dir = dirname(dir)) {
    try {
      const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: unknown; version?: unknown };
      if (manifest.name === GATEWAY) return typeof manifest.version === 'string' ? manifest.version : undefined;
    } catch {
      // No readable package.json at this level: keep climbing.
    }
  }
  return undefined;
}

/** The hook throws Cube's own error class only when it finds the host Cube; else Cube answers 500, not 403. */
function gatewayCheck(cwd: string): Check {
  let entry: string;
  try {
    entry = createRequire(join(cwd, 'package.json')).resolve(GATEWAY);
  } catch {
    return check(
      'cube-gateway',
      'warn',
      `${GATEWAY} does not resolve from ${cwd}: run doctor in the Cube project; if cube-dual-auth is not installed next to Cube, rejections become HTTP 500 instead of 403`,
    );
  }
  const version = versionOf(entry);
  return check('cube-gateway', 'ok', `${GATEWAY}${version ? ` ${version}` : ''} resolves from ${cwd}: rejections become HTTP 403`);
}

function configurationFailure(error: unknown): Check {
  if (!(error instanceof DualAuthConfigError)) throw error;
  return check('configuration', 'fail', error.message);
}

/**
 * Checks the environment a deployment would run with, and whether Cube resolves from `cwd`. Never throws
 * for a bad configuration: that is a `fail` check. Checks that need a valid configuration are left out
 * until it is valid.
 */
export async function diagnose(env: NodeJS.ProcessEnv, cwd: string): Promise<Diagnosis> {
  const checks: Check[] = [];
  let options: DualAuthOptions | undefined;
  let resolved: ResolvedOptions | undefined;
  try {
    options = optionsFromEnv(env);
    resolved = resolveOptions(options, ENV_NAMES);
    checks.push(check('configuration', 'ok', 'the checkAuth hook accepts this environment'));
  } catch (error) {
    checks.push(configurationFailure(error));
  }
  if (options) checks.push(...secretChecks(options, env));
  if (resolved) {
    const { jwksUri } = resolved;
    checks.push(originCheck(resolved), jwksUrlCheck(jwksUri));
    if (jwksUri !== undefined) {
      checks.push(await jwksKeysCheck({ ...resolved, jwksUri }), claimCheck('audience', resolved.audience), claimCheck('issuer', resolved.issuer));
    }
  }
  checks.push(gatewayCheck(cwd));
  return { ok: checks.every((c) => c.status !== 'fail'), checks };
}
