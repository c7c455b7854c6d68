/**
 * Waiting on a test server's own events, with no polling and no timer: `until(done)` resolves once `done()` holds,
 * checked again at every `wake()` the server calls when something it counts changes.
 */
export interface Conditions {
  /** Checks every pending condition again; the server calls it after each change it counts. */
  wake(): void;
  /** Resolves once `done()` holds: at once when it already does, else at the `wake()` after which it does. */
  until(done: () => boolean): Promise<void>;
}

export function conditions(): Conditions {
  const waiters = new Set<() => void>();
  return {
    wake: () => waiters.forEach((waiter) => waiter()),
    until: (done) =>
      new Promise((resolve) => {
        const check = (): void => {
          if (!done()) return;
          waiters.delete(check);
          resolve();
        };
        waiters.add(check);
        check();
      }),
  };
}
