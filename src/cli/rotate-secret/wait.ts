/**
 * The waiting of `provider rotate-secret`: ask until the Cube accepts or the wait is over, on a clock that tests
 * drive. Bounded: no attempt starts, and none may outlast, the end of the wait (docs/rotation.md).
 */
import { performance } from 'node:perf_hooks';

/** Time as the waiting reads it: a monotonic clock, the wall clock for the times printed, and a way to wait. */
export interface Clock {
  /** Milliseconds on a monotonic clock. */
  now(): number;
  /** Milliseconds since the epoch, for the times a person reads. */
  epochMs(): number;
  /** Resolves after `ms` milliseconds. */
  sleep(ms: number): Promise<void>;
}

/** The process's clocks and timers. */
export const REAL_CLOCK: Clock = {
  now: () => performance.now(),
  epochMs: () => Date.now(),
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
};

export interface WaitPlan<T> {
  /** One attempt, which must settle within `timeoutMs`. */
  readonly attempt: (timeoutMs: number) => Promise<T>;
  readonly accepted: (outcome: T) => boolean;
  /** How long to keep asking, in ms, from the first attempt's start. */
  readonly waitMs: number;
  /** The pause after a refusal, in ms. */
  readonly retryMs: number;
  /** Longest an attempt may take, in ms; less when the wait ends sooner. */
  readonly attemptTimeoutMs: number;
  readonly clock: Clock;
  /** Told of each refusal, with the attempt's number from 1. */
  readonly onRefused?: (outcome: T, attempt: number) => void;
}

export interface WaitOutcome<T> {
  readonly accepted: boolean;
  /** The last attempt's outcome: the accepting one, or the last refusal. */
  readonly last: T;
  readonly attempts: number;
  /** Milliseconds from the first attempt's start to the end. */
  readonly ms: number;
}

/**
 * Attempts until one is accepted or `waitMs` has passed: the first at once, each next `retryMs` after the last one's
 * end, none started after the end of the wait, each given at most the time left, in whole milliseconds.
 * @example
 * await waitUntilAccepted({ attempt, accepted, waitMs: 60_000, retryMs: 1_000, attemptTimeoutMs: 5_000, clock });
 */
export async function waitUntilAccepted<T>(plan: WaitPlan<T>): Promise<WaitOutcome<T>> {
  const { clock } = plan;
  const start = clock.now();
  const end = start + plan.waitMs;
  let attempts = 0;
  for (;;) {
    // Whole milliseconds: a monotonic clock has fractions, and the deadline is printed.
    const last = await plan.attempt(Math.max(1, Math.floor(Math.min(plan.attemptTimeoutMs, end - clock.now()))));
    attempts += 1;
    if (plan.accepted(last)) return { accepted: true, last, attempts, ms: clock.now() - start };
    plan.onRefused?.(last, attempts);
    const left = end - clock.now();
    if (left <= plan.retryMs) return { accepted: false, last, attempts, ms: clock.now() - start };
    await clock.sleep(plan.retryMs);
  }
}
