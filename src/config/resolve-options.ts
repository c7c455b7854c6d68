/** Resolution of the options: validated against the table, defaults applied, secrets turned into keys once. */
import { createSecretKey, type KeyObject } from 'node:crypto';
import { DualAuthConfigError } from '../errors';
import { authorizationOf, type Authorization, type AuthorizationSettings } from './authorization';
import { identityProvidersOf, type IdentityProvider, type ProviderSettings } from './identity-providers';
import type { Fail } from './option-checks';
import {
  KEYS,
  OPTION_NAMES,
  OPTIONS,
  type Checked,
  type Defaulted,
  type OptionNames,
  type OptionSpec,
} from './option-table';
import type { DualAuthOptions, OptionKey } from './option-types';
import { MIN_SECRET_BYTES, SECRET_ADVICE, secretWeakness } from './secret-strength';

/** Options after validation, with defaults applied and secrets turned into keys once. */
export type ResolvedOptions = {
  readonly [K in Exclude<OptionKey, 'apiSecret' | 'sqlKeySecrets'>]: K extends Defaulted
    ? Checked<K>
    : Checked<K> | undefined;
} & {
  readonly secretKeys: readonly KeyObject[];
  /** The SQL key secrets as keys, the signing one first; empty when SQL keys are off. */
  readonly sqlKeyKeys: readonly KeyObject[];
  /** The identity providers of the key-set path, with inherited settings applied; empty when it has none. */
  readonly identityProviders: readonly IdentityProvider[];
  /**
   * Why an API secret is too weak for HS256 (never the secret itself), for one warning at start; set only when
   * `allowWeakSecret` let it through (without it, a weak secret is a configuration error).
   */
  readonly secretWeakness: string | undefined;
  /** How messages name each option (environment variables when the options came from the environment). */
  readonly names: OptionNames;
  /** The tenant and groups to give the security context; undefined when no authorization option is set. */
  readonly authorization: Authorization | undefined;
};

/**
 * Cube's own fallback on the REST API: in dev mode a token `checkAuth` refused is verified once more, HS256, with this
 * secret (docs/troubleshooting.md, "Cube's Playground is refused in dev mode"), so a SQL key signed with it would pass there.
 */
const PLAYGROUND_SECRET = 'CUBEJS_PLAYGROUND_AUTH_SECRET';

/**
 * The SQL key secrets as keys, each judged as an API secret is but with no opt-out: a key is a stored password that
 * lives for weeks. One equal to an API secret would let a SQL key pass the shared-secret path, so that stops the start
 * too (docs/security.md, "SQL keys"). Messages number a secret, never show it.
 */
function sqlKeySecretKeys(
  secrets: readonly string[],
  apiSecrets: readonly string[],
  names: OptionNames,
): readonly KeyObject[] {
  // Cube reads its own variable from the process's environment, whatever options the hook was given.
  const playground = process.env[PLAYGROUND_SECRET]?.trim();
  secrets.forEach((secret, i) => {
    const which = secrets.length > 1 ? `(secret ${i + 1} of ${secrets.length}) ` : '';
    const weakness = secretWeakness(secret);
    if (weakness !== undefined)
      throw new DualAuthConfigError(
        names.sqlKeySecrets,
        `${which}${weakness}: a SQL key is a password that lasts for weeks, so use at least ` +
          `${MIN_SECRET_BYTES} random bytes (openssl rand -hex 32)`,
      );
    if (apiSecrets.includes(secret))
      throw new DualAuthConfigError(
        names.sqlKeySecrets,
        `${which}is also an API secret (${names.apiSecret}): a SQL key would then pass as a service ` +
          `token; give SQL keys a secret of their own`,
      );
    if (secret === playground)
      throw new DualAuthConfigError(
        names.sqlKeySecrets,
        `${which}is also ${PLAYGROUND_SECRET}, with which Cube itself accepts HS256 tokens that ` +
          `checkAuth refused: give SQL keys a secret of their own`,
      );
  });
  return secrets.map((secret) => createSecretKey(Buffer.from(secret, 'utf8')));
}

/** Validates options, applies defaults and prepares keys. Throws {@link DualAuthConfigError} naming the option. */
export function resolveOptions(options: DualAuthOptions, given: Partial<OptionNames> = OPTION_NAMES): ResolvedOptions {
  const names: OptionNames = { ...OPTION_NAMES, ...given };
  if (typeof options !== 'object' || options === null) throw new DualAuthConfigError('options', 'must be an object');
  const unknown = Object.keys(options).find((key) => !Object.hasOwn(OPTIONS, key));
  if (unknown !== undefined)
    throw new DualAuthConfigError(`option "${unknown}"`, 'is not an option of createCheckAuth');
  const checked: { [K in OptionKey]?: Checked<K> } = {};
  for (const key of KEYS) {
    const spec: OptionSpec<unknown> = OPTIONS[key];
    const value = options[key] ?? spec.default;
    const fail: Fail = (problem) => {
      throw new DualAuthConfigError(names[key], problem);
    };
    // Each row's check gives that option's type; TypeScript cannot follow the key through the loop.
    (checked as Record<OptionKey, unknown>)[key] = value === undefined ? undefined : spec.check(value, fail);
  }
  for (const other of ['jwksUri', 'issuer'] as const) {
    if (checked.providers !== undefined && checked[other] !== undefined) {
      throw new DualAuthConfigError(
        names.providers,
        `and ${names[other]} are both set: with several identity providers, each names its own issuer and JWKS URL`,
      );
    }
  }
  const { apiSecret, sqlKeySecrets, ...rest } = checked;
  const identityProviders = identityProvidersOf(rest as ProviderSettings, names);
  const authorization = authorizationOf(
    options as Readonly<Record<string, unknown>>,
    rest as AuthorizationSettings,
    names,
  );
  const secrets = apiSecret ?? [];
  if (secrets.length === 0 && identityProviders.length === 0) {
    throw new DualAuthConfigError(
      names.apiSecret,
      `and ${names.jwksUri} are both unset (and no ${names.providers}, nor an issuer URL in ${names.issuer} to ` +
        `discover the JWKS from): set at least one, or no token can be accepted`,
    );
  }
  const secretKeys = secrets.map((secret) => createSecretKey(Buffer.from(secret, 'utf8')));
  const weak = secrets.map(secretWeakness).findIndex((weakness) => weakness !== undefined);
  let secretWeaknessFound: string | undefined;
  if (weak >= 0) {
    const weakness = secretWeakness(secrets[weak] as string) as string;
    const which = secrets.length > 1 ? `secret ${weak + 1} of ${secrets.length}` : undefined;
    // Anyone can choose the shared-secret path: a guessable secret lets anyone mint tokens, so it stops the start.
    if (rest.allowWeakSecret !== true) {
      throw new DualAuthConfigError(
        names.apiSecret,
        `${which ? `(${which}) ` : ''}${weakness}: ${SECRET_ADVICE}; to run with it anyway, set ` +
          `${names.allowWeakSecret} to true`,
      );
    }
    secretWeaknessFound = `${which ? `${which} of ` : ''}${names.apiSecret} ${weakness}`;
  }
  const sqlKeyKeys = sqlKeySecretKeys(sqlKeySecrets ?? [], secrets, names);
  // Every defaulted option was filled from the table above, which the type of ResolvedOptions promises.
  return {
    ...rest,
    names,
    identityProviders,
    authorization,
    secretKeys,
    sqlKeyKeys,
    secretWeakness: secretWeaknessFound,
  } as ResolvedOptions;
}
