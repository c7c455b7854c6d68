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
 * Runs a `checkAuth` that must accept and returns the security context it set on the request. It must resolve to that
 * same object, or to `{ security_context: context }` when the context has a truthy `security_context` member: what
 * Cube ≥ 0.35 then takes as the context is the context either way.
 */
export async function contextOf(
  checkAuth: (req: unknown, auth?: unknown) => Promise<unknown>,
  req: object,
  auth?: unknown,
): Promise<unknown> {
  const resolved = await checkAuth(req, auth);
  const context = (req as FakeRequest).securityContext as { security_context?: unknown };
  if (context.security_context) {
    expect(resolved).toEqual({ security_context: context });
    expect((resolved as { security_context: unknown }).security_context).toBe(context);
  } else {
    expect(resolved).toBe(context);
  }
  return context;
}
