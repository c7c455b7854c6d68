/** The last step of an accepted request: the security context Cube receives, shaped by the operator's function if any. */
import type { ResolvedOptions } from './config';
import { DualAuthError, faultMessage, type AuthPath } from './errors';
import { emit } from './events';
import type { Verified } from './paths/path';

/** A security context: the object Cube hands to `queryRewrite`, the data model and `contextToAppId`. */
export type SecurityContext = Record<string, unknown>;

function isPlainObject(value: unknown): value is SecurityContext {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The security context of a verified token: what its path made of it, or what the `securityContext` function
 * returns for it. A function that throws anything but a `DualAuthError` refuses the token and is reported.
 */
export function securityContextOf(
  options: ResolvedOptions,
): (verified: Verified, path: AuthPath) => SecurityContext | Promise<SecurityContext> {
  const { securityContext: mapper, onEvent } = options;
  if (mapper === undefined) return (verified) => verified.context;
  return async (verified, path) => {
    let result: unknown;
    try {
      result = await mapper(verified.context, { path, payload: verified.payload });
    } catch (error) {
      if (error instanceof DualAuthError) throw error;
      emit(onEvent, { type: 'internal-error', message: `securityContext function failed: ${faultMessage(error)}` });
      throw new DualAuthError('ERR_SECURITY_CONTEXT_INVALID', 'The securityContext function refused the token', path);
    }
    if (!isPlainObject(result)) {
      throw new DualAuthError('ERR_SECURITY_CONTEXT_INVALID', 'The securityContext function did not return an object', path);
    }
    return result;
  };
}
