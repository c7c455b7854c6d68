/**
 * How late this process ran while a timed step ran: a test that bounds a step's wall time allows the step's own time
 * plus this lateness, measured in the same run, so a machine busy with other work cannot fail it while a step that
 * waits too long still does (docs/development.md#timing-dependent-tests).
 */
import { performance } from 'node:perf_hooks';

/** Ticks this often; each tick that comes later than that adds its delay to the lateness. */
const TICK_MS = 5;

export interface LatenessWatch {
  /** Stops watching and returns the lateness in milliseconds: the sum of every tick's delay past its due time. */
  stop(): number;
}

/**
 * Starts watching this process's event loop. Its timer is unref'd, so it keeps nothing alive and is not among the
 * active resources a test counts (`process.getActiveResourcesInfo()`).
 */
export function watchLateness(): LatenessWatch {
  let late = 0;
  let last = performance.now();
  const tick = (): void => {
    const now = performance.now();
    late += Math.max(0, now - last - TICK_MS);
    last = now;
  };
  const timer = setInterval(tick, TICK_MS).unref();
  let stopped = false;
  return {
    stop(): number {
      if (!stopped) {
        clearInterval(timer);
        tick();
        stopped = true;
      }
      return late;
    },
  };
}
