/** The command's deadline as `doctor` meets it: a check under way when it passes is reported as not checked. */

/** What a check the deadline left says. */
export const NOT_CHECKED = 'not checked: the deadline passed';

/**
 * `promise`'s value, or `fallback` as soon as `signal` is aborted (at once when it already is). What `promise`
 * runs keeps its own timeout, so nothing it started outlives that.
 * @example `await unlessAborted(providerChecks(...), signal, [notCheckedLine])`
 */
export function unlessAborted<T>(promise: Promise<T>, signal: AbortSignal | undefined, fallback: T): Promise<T> {
  if (signal === undefined) return promise;
  if (signal.aborted) return Promise.resolve(fallback);
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => resolve(fallback);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}
