/** The shared-secret path's lines: the API secrets in force, judged as the hook judges them, and the origin. */
import { DEFAULTS, type ResolvedOptions } from '../../config/options';
import { ENV, type ApiSecret } from '../../config/env';
import {
  describeStrength,
  MIN_SECRET_BYTES,
  SECRET_ADVICE,
  secretStrength,
  secretWeakness,
} from '../../config/secret-strength';
import { check, type Check, type CheckId } from '../check';

/**
 * The secrets in force, as the hook reads them (`apiSecretsInForce`), checked per variable: the main setting
 * (Cube's rotation list CUBEJS_API_SECRETS when set, else CUBEJS_API_SECRET) under `api-secret`, the package's
 * additional ones under `additional-api-secrets`.
 */
/** What decides a secret's verdict besides the secret: the weak-secret opt-in, and whether a key set is configured. */
export interface SecretSetting {
  readonly weakAllowed: boolean;
  readonly keySet: boolean;
}

export function secretChecks(secrets: readonly ApiSecret[], setting: SecretSetting): Check[] {
  const of = (variable: string) => secrets.filter((secret) => secret.variable === variable).map(({ value }) => value);
  const additional = of(ENV.additionalApiSecrets);
  const cubeList = of(ENV.apiSecrets);
  const checks = [
    cubeList.length > 0
      ? listedSecretsCheck('api-secret', ENV.apiSecrets, cubeList, setting)
      : mainSecretCheck(of(ENV.apiSecret)[0], additional.length, setting),
  ];
  if (additional.length > 0)
    checks.push(listedSecretsCheck('additional-api-secrets', ENV.additionalApiSecrets, additional, setting, 'more'));
  return checks;
}

/** The hook refuses to start with a weak secret unless the opt-in is set, and then it starts, still guessable. */
function weakSecretOutcome(weakAllowed: boolean): string {
  return weakAllowed
    ? `Cube starts with it only because ${ENV.allowWeakSecret} is set; ${SECRET_ADVICE}`
    : `Cube will not start with it; ${SECRET_ADVICE}, or (not recommended) set ${ENV.allowWeakSecret}=true to start anyway`;
}

export function mainSecretCheck(
  secret: string | undefined,
  additional: number,
  { weakAllowed, keySet }: SecretSetting,
): Check {
  if (secret === undefined) {
    if (additional > 0) {
      return check(
        'api-secret',
        'warn',
        `${ENV.apiSecret} is not set, nor ${ENV.apiSecrets}: only ${ENV.additionalApiSecrets} verify service tokens, and "cube-dual-auth token" cannot mint any`,
      );
    }
    // Without a secret and with a JWKS URL, the deployment is a valid key-set-only set-up.
    return keySet
      ? check(
          'api-secret',
          'ok',
          `${ENV.apiSecret} is not set, nor ${ENV.apiSecrets}: a key-set-only set-up, every service token (shared-secret path) is refused`,
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

export function listedSecretsCheck(
  id: CheckId,
  variable: string,
  secrets: readonly string[],
  { weakAllowed }: Pick<SecretSetting, 'weakAllowed'>,
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

export function originCheck(options: ResolvedOptions): Check {
  return check(
    'origin',
    'ok',
    `"Request-Origin: ${options.origin}" selects the shared-secret path, other requests the key-set path (${ENV.origin}, default "${DEFAULTS.origin}")`,
  );
}
