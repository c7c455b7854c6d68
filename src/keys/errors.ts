import { DualAuthError, quote } from '../errors';
import type { KeySetRefreshFailedEvent } from '../events';

const PATH = 'key-set';

/** Codes of a failed key-set load: the IdP could not be reached, did not answer in time, or answered garbage. */
export type JwksFailureCode = KeySetRefreshFailedEvent['code'];

/** A {@link DualAuthError} that explains why no key set could be loaded. */
export type JwksFailure = DualAuthError & { readonly code: JwksFailureCode };

/** What a caller is told of each failure: the kind, never the JWKS URL or the network's answer. */
const PUBLIC: Readonly<Record<JwksFailureCode, string>> = {
  ERR_JWKS_UNREACHABLE: "The identity provider's key set could not be reached",
  ERR_JWKS_TIMEOUT: "The identity provider's key set did not answer in time",
  ERR_JWKS_INVALID: "The identity provider's key set answered something unusable",
};

function jwksFailure(code: JwksFailureCode, detail: string): JwksFailure {
  return new DualAuthError(code, PUBLIC[code], PATH, detail) as JwksFailure;
}

/** Connection-level failure; `cause` is a Node error code such as `ECONNREFUSED`, never response content. */
export function jwksUnreachable(jwksUri: string, cause: string): JwksFailure {
  return jwksFailure('ERR_JWKS_UNREACHABLE', `JWKS URL ${jwksUri} unreachable: ${cause}`);
}

function jwksTimedOut(jwksUri: string, timeoutMs: number): JwksFailure {
  return jwksFailure('ERR_JWKS_TIMEOUT', `JWKS request to ${jwksUri} timed out after ${timeoutMs} ms`);
}

export function jwksInvalid(jwksUri: string, reason: string): JwksFailure {
  return jwksFailure('ERR_JWKS_INVALID', `JWKS response from ${jwksUri} is invalid: ${reason}`);
}

/** How the failures of fetching one document are told: the operator's detail names the document and its URL. */
export interface FailureWording {
  unreachable(cause: string): JwksFailure;
  timedOut(timeoutMs: number): JwksFailure;
  invalid(reason: string): JwksFailure;
}

export function jwksWording(jwksUri: string): FailureWording {
  return {
    unreachable: (cause) => jwksUnreachable(jwksUri, cause),
    timedOut: (timeoutMs) => jwksTimedOut(jwksUri, timeoutMs),
    invalid: (reason) => jwksInvalid(jwksUri, reason),
  };
}

/** Discovery fails the key set as a JWKS would (same codes, same public messages); the detail says it was discovery. */
export function discoveryWording(documentUrl: string, issuer: string): FailureWording {
  const document = `discovery document of issuer ${JSON.stringify(issuer)} (${documentUrl})`;
  return {
    unreachable: (cause) => jwksFailure('ERR_JWKS_UNREACHABLE', `The ${document} is unreachable: ${cause}`),
    timedOut: (timeoutMs) => jwksFailure('ERR_JWKS_TIMEOUT', `The ${document} did not answer within ${timeoutMs} ms`),
    invalid: (reason) => jwksFailure('ERR_JWKS_INVALID', `The ${document} is unusable: ${reason}`),
  };
}

/** A new error per rejection: one shared instance would carry one stack and could be changed by any catcher. */
export function copyFailure(failure: JwksFailure): JwksFailure {
  return jwksFailure(failure.code, failure.detail);
}

export function isJwksFailure(error: unknown): error is JwksFailure {
  return (
    error instanceof DualAuthError &&
    (error.code === 'ERR_JWKS_UNREACHABLE' || error.code === 'ERR_JWKS_TIMEOUT' || error.code === 'ERR_JWKS_INVALID')
  );
}

/** Why an unknown kid was not looked up again, or why looking it up again did not help. */
interface KidUnknownContext {
  /** The refresh that was attempted for this kid (or the last one) failed. */
  readonly refreshFailure?: JwksFailure;
  /** A refetch is not allowed for this long (cooldown). */
  readonly retryInMs?: number;
}

export function kidUnknown(jwksUri: string, kid: string, context: KidUnknownContext = {}): DualAuthError {
  let detail = `No key for kid ${quote(kid)} in the JWKS at ${jwksUri}`;
  if (context.refreshFailure) detail += `; refreshing the key set failed: ${context.refreshFailure.detail}`;
  if (context.retryInMs !== undefined) detail += `; next refresh allowed in ${Math.ceil(context.retryInMs / 1000)} s`;
  return new DualAuthError(
    'ERR_KID_UNKNOWN',
    `No key for kid ${quote(kid)} in the identity provider's key set`,
    PATH,
    detail,
  );
}
