/** Options that cannot work, as the tests of the configuration see them refused. */
import { expect } from 'vitest';
import { resolveOptions, type DualAuthOptions } from '../../src/config/options';
import { DualAuthConfigError } from '../../src/errors';

/**
 * The `DualAuthConfigError` that resolving `options` throws, the options named by `names` (default: as options);
 * fails the test when they resolve or something else is thrown. `options` is unknown: the refusals of values no
 * type allows are tested too.
 */
export function configError(options: unknown, names = {}): DualAuthConfigError {
  try {
    resolveOptions(options as DualAuthOptions, names);
  } catch (error) {
    expect(error).toBeInstanceOf(DualAuthConfigError);
    return error as DualAuthConfigError;
  }
  throw new Error('expected a configuration error');
}
