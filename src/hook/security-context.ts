/**
 * The last step of an accepted request: the security context Cube receives, shaped by the operator's function if
 * any (within a deadline), given the tenant and groups when authorization is configured, and holding every required
 * claim.
 */
import type { ResolvedOptions } from '../config/options';
import { DualAuthError, faultMessage, type AuthPath } from '../errors';
import { emit } from '../events';
import { isObject } from '../http/json';
import type { Verified } from './paths/path';
import { tenantAndGroupsOf, withTenantAndGroups, type TenantAndGroups } from './tenant-and-groups';

/** A security context: the object Cube hands to `queryRewrite`, the data model and `contextToAppId`. */
export type SecurityContext = Record<string, unknown>;

type Shape = (verified: Verified, path: AuthPath) => SecurityContext | Promise<SecurityContext>;

/**
 * The security context of a verified token: what its path made of it, or what the `securityContext` function
 * returns for it; then the tenant and groups are written, when authorization is configured, and the required claims
 * are checked (so `tenant` may be one of them). Synchronous unless there is a function to await. The tenant and
 * groups are read, and a token refused for them, before the function runs: it never sees a token refused for its
 * tenant, and neither the token nor the function can replace them.
 */
export function securityContextShaper(options: ResolvedOptions): Shape {
  const { authorization, requiredClaims } = options;
  const read = (verified: Verified, path: AuthPath): TenantAndGroups | undefined =>
    authorization === undefined ? undefined : tenantAndGroupsOf(authorization, verified, path);
  const complete = (context: SecurityContext, path: AuthPath, found: TenantAndGroups | undefined): SecurityContext => {
    const done = found === undefined ? context : withTenantAndGroups(context, found);
    const missing = requiredClaims?.find((claim) => !Object.hasOwn(done, claim));
    if (missing !== undefined) {
      throw new DualAuthError(
        'ERR_CLAIM_MISSING',
        `The security context has no ${JSON.stringify(missing)} claim, which this deployment requires`,
        path,
      );
    }
    return done;
  };
  if (options.securityContext === undefined)
    return (verified, path) => complete(verified.context, path, read(verified, path));
  const map = mapped(options);
  return async (verified, path) => {
    const found = read(verified, path);
    return complete(await map(verified, path), path, found);
  };
}

/** The operator's function, within `securityContextTimeoutMs`; anything it throws but a `DualAuthError` is reported. */
function mapped(options: ResolvedOptions): (verified: Verified, path: AuthPath) => Promise<SecurityContext> {
  const { securityContext: mapper, securityContextTimeoutMs: timeoutMs, onEvent } = options;
  const refuse = (path: AuthPath, why: string, problem: string): never => {
    emit(onEvent, { type: 'internal-error', message: `securityContext function ${why}` });
    throw new DualAuthError('ERR_SECURITY_CONTEXT_INVALID', problem, path);
  };
  return async (verified, path) => {
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        emit(onEvent, {
          type: 'internal-error',
          message: `securityContext function did not settle within ${timeoutMs} ms`,
        });
        reject(
          new DualAuthError(
            'ERR_SECURITY_CONTEXT_TIMEOUT',
            'The securityContext function did not answer in time',
            path,
            `The securityContext function did not answer within ${timeoutMs} ms (securityContextTimeoutMs)`,
          ),
        );
      }, timeoutMs);
    });
    let result: unknown;
    try {
      result = await Promise.race([
        (mapper as NonNullable<typeof mapper>)(verified.context, { path, payload: verified.payload }),
        deadline,
      ]);
    } catch (error) {
      if (error instanceof DualAuthError) throw error;
      return refuse(path, `failed: ${faultMessage(error)}`, 'The securityContext function refused the token');
    } finally {
      clearTimeout(timer);
    }
    if (!isObject(result))
      return refuse(path, 'did not return an object', 'The securityContext function did not return an object');
    return result;
  };
}
