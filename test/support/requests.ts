import { expect } from 'vitest';
import type { DualAuthError } from '../../src';

/** A request as Cube's HTTP gateway passes it: Node headers, lower-cased. */
export interface FakeRequest {
  headers: Record<string, string>;
  securityContext?: unknown;
}

/** A request from the service's backend: `Request-Origin: embeddable`. */
export function serviceRequest(origin = 'embeddable'): FakeRequest {
  return { headers: { 'request-origin': origin } };
}

/** A request from the customer's own app: no origin header. */
export function appRequest(): FakeRequest {
  return { headers: {} };
}

/** Awaits a promise that must reject with a rejection, and returns it for assertions. */
export async function rejectionOf(promise: Promise<unknown>): Promise<DualAuthError> {
  const outcome = await promise.then(
    (value) => ({ resolved: value }),
    (error: unknown) => ({ error }),
  );
  expect(outcome, 'expected a rejection').toHaveProperty('error');
  return (outcome as { error: DualAuthError }).error;
}

/**
 * Runs a `checkAuth` that must accept and returns the security context it set on the request: the hook resolves to
 * nothing, as Cube ≥ 0.35 would read a returned value's `security_context` field.
 */
export async function contextOf(
  checkAuth: (req: unknown, auth?: unknown) => Promise<void>,
  req: object,
  auth?: unknown,
): Promise<unknown> {
  await expect(checkAuth(req, auth)).resolves.toBeUndefined();
  return (req as FakeRequest).securityContext;
}
