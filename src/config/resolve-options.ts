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
  /** Why an API secret is weak (never the secret), for the one warning `allowWeakSecret` asks for. */
  readonly secretWeakness: string | undefined;
  readonly names: OptionNames;
  /** The tenant and groups to give the security context; undefined when no authorization option is set. */
  readonly authorization: Authorization | undefined;
};

/** The line of each value of a secrets file, by the option it replaces: what messages name a secret by. */
export type SecretLines = Partial<Record<'apiSecret' | 'sqlKeySecrets', readonly number[]>>;

/** How a message names the i-th secret, never shown: by its line in its file, else by its place in a list of several. */
function secretAt(i: number, count: number, lines: readonly number[] | undefined): { label?: string; prefix: string } {
  const line = lines?.[i];
  if (line !== undefined) return { label: `line ${line}`, prefix: `line ${line} ` };
  if (count < 2) return { prefix: '' };
  const label = `secret ${i + 1} of ${count}`;
  return { label, prefix: `(${label}) ` };
}

/** Cube's dev-mode second try of a refused token (docs/troubleshooting.md#cubes-playground-is-refused-in-dev-mode). */
const PLAYGROUND_SECRET = 'CUBEJS_PLAYGROUND_AUTH_SECRET';

/**
 * The SQL key secrets as keys, judged as API secrets are with no opt-out, and never equal to one: a SQL key must not
 * pass as a service token (docs/security.md#sql-keys). Messages number a secret, never show it.
 */
function sqlKeySecretKeys(
  secrets: readonly string[],
  apiSecrets: readonly string[],
  names: OptionNames,
  lines: readonly number[] | undefined,
): readonly KeyObject[] {
  const playground = process.env[PLAYGROUND_SECRET]?.trim();
  // A set, not a list: two files of 64 KiB hold a thousand secrets each
  // (docs/performance.md#a-reload-blocks-the-event-loop-for).
  const api = new Set(apiSecrets);
  secrets.forEach((secret, i) => {
    const which = secretAt(i, secrets.length, lines).prefix;
    const weakness = secretWeakness(secret);
    if (weakness !== undefined)
      throw new DualAuthConfigError(
        names.sqlKeySecrets,
        `${which}${weakness}: a SQL key is a password that lasts for weeks, so use at least ${MIN_SECRET_BYTES} random bytes (openssl rand -hex 32)`,
      );
    if (api.has(secret))
      throw new DualAuthConfigError(
        names.sqlKeySecrets,
        `${which}is also an API secret (${names.apiSecret}): a SQL key would then pass as a service token; give SQL keys a secret of their own`,
      );
    if (secret === playground)
      throw new DualAuthConfigError(
        names.sqlKeySecrets,
        `${which}is also ${PLAYGROUND_SECRET}, with which Cube itself accepts HS256 tokens that checkAuth refused: give SQL keys a secret of their own`,
      );
  });
  return secrets.map((secret) => createSecretKey(Buffer.from(secret, 'utf8')));
}

/** Validates options, applies defaults and prepares keys. Throws {@link DualAuthConfigError} naming the option. */
export function resolveOptions(
  options: DualAuthOptions,
  given: Partial<OptionNames> = OPTION_NAMES,
  { lines = {} }: { readonly lines?: SecretLines } = {},
): ResolvedOptions {
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
      `and ${names.jwksUri} are both unset (and no ${names.providers}, nor an issuer URL in ${names.issuer} to discover the JWKS from): set at least one, or no token can be accepted`,
    );
  }
  const secretKeys = secrets.map((secret) => createSecretKey(Buffer.from(secret, 'utf8')));
  const weak = secrets.map(secretWeakness).findIndex((weakness) => weakness !== undefined);
  let secretWeaknessFound: string | undefined;
  if (weak >= 0) {
    const weakness = secretWeakness(secrets[weak] as string) as string;
    const which = secretAt(weak, secrets.length, lines.apiSecret);
    if (rest.allowWeakSecret !== true) {
      throw new DualAuthConfigError(
        names.apiSecret,
        `${which.prefix}${weakness}: ${SECRET_ADVICE}; to run with it anyway, set ${names.allowWeakSecret} to true`,
      );
    }
    secretWeaknessFound = `${which.label ? `${which.label} of ` : ''}${names.apiSecret} ${weakness}`;
  }
  const sqlKeyKeys = sqlKeySecretKeys(sqlKeySecrets ?? [], secrets, names, lines.sqlKeySecrets);
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
