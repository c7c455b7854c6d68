// A steady, bounded load on the real Cube: callers that each send one request per interval until a
// deadline or a maximum count, every answer timed; and the hook's JSON event lines read back from
// Cube's log (CUBE_DUAL_AUTH_LOG=all).
import { setTimeout as sleep } from 'node:timers/promises';
import type { AuthEvent } from '../../src/events';

/** What one request got. `status` 0 means no HTTP answer at all (connection error or client deadline). */
export interface Answer {
  readonly status: number;
  /** The `error` field of a JSON answer, or why there was no answer. */
  readonly error?: string;
  /** The body's keys, to tell a refusal (`error` only) from anything else. */
  readonly bodyKeys: readonly string[];
  /** Rows of a Cube result. */
  readonly rows?: number;
  readonly latencyMs: number;
}

/** GET `url` with `headers`; never throws. */
export async function timedGet(url: string, headers: Record<string, string>, timeoutMs: number): Promise<Answer> {
  const started = performance.now();
  try {
    const response = await fetch(url, { headers, signal: AbortSignal.timeout(timeoutMs) });
    const text = await response.text();
    const latencyMs = performance.now() - started;
    const body = parseObject(text);
    const data = body['data'];
    return {
      status: response.status,
      error: typeof body['error'] === 'string' ? body['error'] : undefined,
      bodyKeys: Object.keys(body),
      rows: Array.isArray(data) ? data.length : undefined,
      latencyMs,
    };
  } catch (error) {
    return {
      status: 0,
      error: error instanceof Error ? error.message : String(error),
      bodyKeys: [],
      latencyMs: performance.now() - started,
    };
  }
}

function parseObject(text: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : {};
  } catch {
    return { unparsed: text.slice(0, 200) };
  }
}

export interface PaceOptions {
  /** One step per interval; a step that takes longer delays the next one, it never causes a burst. */
  readonly intervalMs: number;
  /** No step starts at or after this `performance.now()` value. */
  readonly until: number;
  /** And never more steps than this, whatever the clock says. */
  readonly maxSteps: number;
}

/** Runs `step` at a steady pace until the deadline or the maximum count; resolves with the number of steps. */
export async function paced(options: PaceOptions, step: (index: number) => Promise<void>): Promise<number> {
  let next = performance.now();
  let index = 0;
  while (index < options.maxSteps && performance.now() < options.until) {
    await step(index++);
    next = Math.max(next + options.intervalMs, performance.now());
    const wait = Math.min(next, options.until) - performance.now();
    if (wait > 0) await sleep(wait);
  }
  return index;
}

/**
 * An event of the hook, with when Cube wrote it on this process's `performance.now()` clock: from the line's own
 * wall-clock `time` (both processes read the same system clock), not from when the line came through the pipe, which
 * may be late by as long as this process's event loop was busy. Whole milliseconds on both sides: within 2 ms.
 */
export interface LoggedEvent {
  readonly at: number;
  readonly event: AuthEvent;
}

/** The hook's event in a line of Cube's log (`CUBE_DUAL_AUTH_LOG` writes one JSON object per line), if any. */
export function hookEvent(line: string): LoggedEvent | undefined {
  if (!line.startsWith('{') || !line.includes('"source":"cube-dual-auth"')) return undefined;
  let event: AuthEvent & { time?: unknown };
  try {
    event = JSON.parse(line) as AuthEvent & { time?: unknown };
  } catch {
    return undefined;
  }
  const written = typeof event.time === 'string' ? Date.parse(event.time) : Number.NaN;
  if (Number.isNaN(written)) return undefined;
  return { at: written - (Date.now() - performance.now()), event };
}

/** Median, 99th and 99.9th percentiles and maximum, in whole ms. */
export interface Spread {
  readonly p50: number;
  readonly p99: number;
  readonly p999: number;
  readonly max: number;
}

export function spread(values: readonly number[]): Spread {
  const at = (fraction: number) => Math.round(percentile(values, fraction));
  return { p50: at(0.5), p99: at(0.99), p999: at(0.999), max: Math.round(maxOf(values)) };
}

/** How many items fall under each key. */
export function tally<T>(items: Iterable<T>, key: (item: T) => string): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const item of items) counts[key(item)] = (counts[key(item)] ?? 0) + 1;
  return counts;
}

/** The value below which `fraction` of `values` lie (nearest rank); 0 for none. */
export function percentile(values: readonly number[], fraction: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(fraction * sorted.length) - 1)]!;
}

export function maxOf(values: Iterable<number>): number {
  let max = 0;
  for (const value of values) if (value > max) max = value;
  return max;
}
