import { expect } from 'vitest';
import { DualAuthError } from '../../src';

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

/**
 * Awaits a promise that must reject with an instance of `type`: a refusal, a {@link DualAuthError}, unless another
 * class is given (the service client's errors). Returns the error for assertions.
 */
export async function rejectionOf<E extends Error = DualAuthError>(
  promise: Promise<unknown>,
  type: abstract new (...args: never[]) => E = DualAuthError as unknown as abstract new (...args: never[]) => E,
): Promise<E> {
  const outcome = await promise.then(
    (value) => ({ resolved: value }),
    (error: unknown) => ({ error }),
  );
  expect(outcome, 'expected a rejection').toHaveProperty('error');
  const { error } = outcome as { error: unknown };
  expect(error).toBeInstanceOf(type);
  return error as E;
}

/** Runs `run`, which must throw a refusal (a {@link DualAuthError}) at once, and returns the refusal for assertions. */
export function refusalOf(run: () => unknown): DualAuthError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(DualAuthError);
    return error as DualAuthError;
  }
  throw new Error('expected a refusal');
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
