/**
 * A whole command's deadline (`--deadline`), beside each request's `--timeout`: what is not done when it passes is
 * reported as not checked, and the command ends with status 1 (docs/cli.md, "Faults and limits").
 */
import { performance } from 'node:perf_hooks';

/** The clock and timers a deadline runs on: the process's, or a test's. */
export interface Timers {
  /** Milliseconds on a monotonic clock. */
  now(): number;
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export const SYSTEM_TIMERS: Timers = {
  now: () => performance.now(),
  setTimeout: (callback, ms) => setTimeout(callback, ms),
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

/** The longest deadline a command takes: an hour. */
export const MAX_DEADLINE_MS = 3_600_000;

/** What is written for whatever the deadline left undone (doctor's checks say it alike). */
export { NOT_CHECKED } from '../doctor/deadline';

/**
 * One command's deadline: its signal is aborted when it passes, which ends any request under way.
 * @example `get(url, { signal: deadline.signal, timeoutMs: deadline.within(5_000) })`, then `deadline.dispose()`
 */
export class Deadline {
  private readonly stop = new AbortController();
  private readonly started: number;
  private readonly handle: unknown;

  constructor(
    readonly ms: number,
    private readonly timers: Timers = SYSTEM_TIMERS,
  ) {
    this.started = timers.now();
    this.handle = timers.setTimeout(() => this.stop.abort(), ms);
  }

  /** Aborted when the deadline passes. */
  get signal(): AbortSignal {
    return this.stop.signal;
  }

  get passed(): boolean {
    if (!this.stop.signal.aborted && this.timers.now() - this.started >= this.ms) this.stop.abort();
    return this.stop.signal.aborted;
  }

  /** A request's timeout, cut to what is left of the deadline (at least 1 ms). */
  within(timeoutMs: number): number {
    return Math.max(1, Math.min(timeoutMs, Math.ceil(this.ms - (this.timers.now() - this.started))));
  }

  /** Clears the timer, so that it keeps nothing alive. */
  dispose(): void {
    this.timers.clearTimeout(this.handle);
  }
}
