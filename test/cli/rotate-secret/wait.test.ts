/** The waiting of `provider rotate-secret`, on a clock the test drives: how often it asks, and that it ends. */
import { describe, expect, test } from 'vitest';
import { waitUntilAccepted, type Clock } from '../../../src/cli/rotate-secret/wait';
import { createClock } from '../../support/clock';

/** A driven clock whose sleep moves it at once, recording each pause. */
function drivenClock(): Clock & { readonly sleeps: number[]; advance(ms: number): void } {
  const clock = createClock(0);
  const sleeps: number[] = [];
  return {
    now: clock.now,
    epochMs: () => Date.parse('2026-01-01T00:00:00Z') + clock.now(),
    sleep: async (ms) => {
      sleeps.push(ms);
      clock.advance(ms);
    },
    advance: clock.advance,
    sleeps,
  };
}

/** An attempt that takes its whole deadline (a Cube that never answers), noting each deadline in `timeouts`. */
function neverAnswered(clock: ReturnType<typeof drivenClock>, timeouts: number[]) {
  return async (timeoutMs: number): Promise<string> => {
    timeouts.push(timeoutMs);
    clock.advance(timeoutMs);
    return 'no answer';
  };
}

describe('waitUntilAccepted', () => {
  test('asks every retry interval until the wait is over: 60 questions in 60 s, none after its end', async () => {
    const clock = drivenClock();
    const started: number[] = [];
    const outcome = await waitUntilAccepted({
      attempt: async () => {
        started.push(clock.now());
        return 'refused';
      },
      accepted: (answer) => answer === 'accepted',
      waitMs: 60_000,
      retryMs: 1_000,
      attemptTimeoutMs: 5_000,
      clock,
    });
    expect(outcome).toEqual({ accepted: false, last: 'refused', attempts: 60, ms: 59_000 });
    expect(started).toEqual(Array.from({ length: 60 }, (_, i) => i * 1_000));
    expect(clock.sleeps).toEqual(Array(59).fill(1_000));
  });

  test('stops at the first acceptance and tells each refusal before it', async () => {
    const clock = drivenClock();
    const answers = ['refused', 'refused', 'accepted', 'refused'];
    const told: Array<[string, number]> = [];
    const outcome = await waitUntilAccepted({
      attempt: async () => answers.shift() as string,
      accepted: (answer) => answer === 'accepted',
      waitMs: 60_000,
      retryMs: 1_000,
      attemptTimeoutMs: 5_000,
      clock,
      onRefused: (answer, attempt) => told.push([answer, attempt]),
    });
    expect(outcome).toEqual({ accepted: true, last: 'accepted', attempts: 3, ms: 2_000 });
    expect(told).toEqual([
      ['refused', 1],
      ['refused', 2],
    ]);
  });

  test('gives an attempt no more than the time left, and slow attempts end the wait on time', async () => {
    const clock = drivenClock();
    const timeouts: number[] = [];
    const outcome = await waitUntilAccepted({
      attempt: neverAnswered(clock, timeouts),
      accepted: () => false,
      waitMs: 12_000,
      retryMs: 1_000,
      attemptTimeoutMs: 5_000,
      clock,
    });
    // 0–5 s, 6–11 s, then 1 s is left: no time for a pause and another question.
    expect(timeouts).toEqual([5_000, 5_000]);
    expect(outcome.attempts).toBe(2);
    expect(outcome.ms).toBe(11_000);
    expect(outcome.ms).toBeLessThanOrEqual(12_000);
  });

  test('gives the time left in whole milliseconds, rounded down, on a clock with fractions', async () => {
    const clock = drivenClock();
    clock.advance(0.25);
    const timeouts: number[] = [];
    await waitUntilAccepted({
      attempt: neverAnswered(clock, timeouts),
      accepted: () => false,
      waitMs: 7_000.5,
      retryMs: 1_000,
      attemptTimeoutMs: 5_000,
      clock,
    });
    expect(timeouts).toEqual([5_000, 1_000]);
  });

  test('a wait shorter than one attempt still asks once, within it', async () => {
    const clock = drivenClock();
    const timeouts: number[] = [];
    const outcome = await waitUntilAccepted({
      attempt: async (timeoutMs) => {
        timeouts.push(timeoutMs);
        return 'refused';
      },
      accepted: () => false,
      waitMs: 300,
      retryMs: 1_000,
      attemptTimeoutMs: 5_000,
      clock,
    });
    expect(timeouts).toEqual([300]);
    expect(outcome.attempts).toBe(1);
    expect(clock.sleeps).toEqual([]);
  });
});
