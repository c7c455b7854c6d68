/**
 * A millisecond clock that moves only forward and only when told to, for code that takes a `clock: () => number` (a
 * monotonic clock from 0, or epoch milliseconds from `start`), so that no test moves the system's time or sleeps.
 */
export interface FakeClock {
  /** The current time; a plain function, so it can be passed as the clock itself. */
  readonly now: () => number;
  /** Moves the time forward by `ms` (never back: the clocks it stands for are monotonic). */
  advance(ms: number): void;
}

export function createClock(start = 0): FakeClock {
  let time = start;
  return {
    now: () => time,
    advance(ms: number): void {
      if (!(ms >= 0)) throw new RangeError(`a monotonic clock cannot move by ${ms} ms`);
      time += ms;
    },
  };
}
