/**
 * One import path for the options, which the floors above use: the public types, the table and the resolution live in
 * option-types.ts, option-table.ts and resolve-options.ts.
 */
export type {
  DualAuthOptions,
  IdentityProviderOptions,
  SecurityContextInfo,
  SecurityContextMapper,
} from './option-types';
export {
  ANY_SQL_USER,
  DEFAULTS,
  ENV_NAMES,
  OPTION_NAMES,
  OPTIONS,
  SQL_KEY_MAX_AGE_LIMIT,
  type EnvFormat,
  type OptionNames,
  type OptionSpec,
} from './option-table';
export { resolveOptions, type ResolvedOptions } from './resolve-options';
