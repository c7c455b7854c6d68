/** Cube's `logger` option: Cube's default logger, with token-shaped values masked (`[token]`). */
import { mayHoldToken, maskTokens } from './errors';
import { exportsOf, findCubeLogger } from './host-cube';

export type CubeLogger = (message: string, params: Record<string, unknown>) => void;

/** Cube's logger module: 1.x has `createLogger`, 0.33 only the two loggers it chooses between. */
interface LoggerModule {
  readonly createLogger?: (production: boolean, level?: string) => CubeLogger;
  readonly devLogger?: (level?: string) => CubeLogger;
  readonly prodLogger?: (level?: string) => CubeLogger;
}

/** Outside Cube (a script, a test): the line Cube's production logger writes. */
const jsonLines: CubeLogger = (message, params) => console.log(JSON.stringify({ message, ...params }));

/** Cube's default logger, made as Cube makes it: level from `CUBEJS_LOG_LEVEL`, production by `NODE_ENV`. */
function cubeDefaultLogger(): CubeLogger {
  const found = findCubeLogger(process.cwd());
  let module: LoggerModule | undefined;
  try {
    module = found === undefined ? undefined : (exportsOf(found) as LoggerModule);
  } catch {
    // A logger module that does not load is no Cube that runs.
  }
  const production = process.env.NODE_ENV === 'production';
  const level = process.env.CUBEJS_LOG_LEVEL || undefined;
  if (typeof module?.createLogger === 'function') return module.createLogger(production, level);
  const chosen = production ? module?.prodLogger : module?.devLogger;
  return typeof chosen === 'function' ? chosen(level) : jsonLines;
}

/** A copy of `value` with token-shaped text masked: arrays, objects and errors copied (cycles end); else as is. */
function masked(value: unknown, seen = new Map<object, unknown>()): unknown {
  if (typeof value === 'string') return maskTokens(value);
  if (typeof value !== 'object' || value === null) return value;
  if (seen.has(value)) return seen.get(value);
  if (value instanceof Error) {
    const copy = Object.create(Object.getPrototypeOf(value) as object) as Error;
    seen.set(value, copy);
    for (const key of ['message', 'stack'] as const) {
      if (typeof value[key] === 'string')
        Object.defineProperty(copy, key, { value: maskTokens(value[key]), writable: true, configurable: true });
    }
    for (const [key, member] of Object.entries(value))
      (copy as unknown as Record<string, unknown>)[key] = masked(member, seen);
    return copy;
  }
  if (Array.isArray(value)) {
    const copy: unknown[] = [];
    seen.set(value, copy);
    for (const item of value) copy.push(masked(item, seen));
    return copy;
  }
  const prototype: unknown = Object.getPrototypeOf(value);
  if (prototype !== Object.prototype && prototype !== null) return value;
  const copy: Record<string, unknown> = Object.create(prototype) as Record<string, unknown>;
  seen.set(value, copy);
  for (const [key, member] of Object.entries(value)) {
    // Assigning is faster (docs/performance.md#the-logger); assigning "__proto__" would set the prototype instead.
    if (key === '__proto__')
      Object.defineProperty(copy, key, {
        value: masked(member, seen),
        writable: true,
        enumerable: true,
        configurable: true,
      });
    else copy[key] = masked(member, seen);
  }
  return copy;
}

/** Deeper than this, {@link holdsToken} answers yes: `masked` then copies the value, and a cycle ends there. */
const MAX_SCANNED_DEPTH = 64;

/** Whether {@link masked} would change `value`, without copying, which costs less (docs/performance.md). */
function holdsToken(value: unknown, depth = 0): boolean {
  if (typeof value === 'string') return mayHoldToken(value);
  if (typeof value !== 'object' || value === null) return false;
  if (depth === MAX_SCANNED_DEPTH) return true;
  if (Array.isArray(value)) return value.some((item) => holdsToken(item, depth + 1));
  if (value instanceof Error) {
    if (
      (typeof value.message === 'string' && mayHoldToken(value.message)) ||
      (typeof value.stack === 'string' && mayHoldToken(value.stack))
    )
      return true;
  } else {
    const prototype: unknown = Object.getPrototypeOf(value);
    if (prototype !== Object.prototype && prototype !== null) return false;
  }
  return Object.keys(value).some((key) => holdsToken((value as Record<string, unknown>)[key], depth + 1));
}

let cubeLogger: CubeLogger | undefined;

/** Cube's `logger` option: message and params masked, written by Cube's own default logger, made at the first line. */
export function logger(message: string, params: Record<string, unknown> = {}): void {
  cubeLogger ??= cubeDefaultLogger();
  cubeLogger(maskTokens(String(message)), holdsToken(params) ? (masked(params) as Record<string, unknown>) : params);
}
