/**
 * When a secrets file has stopped changing: two reads a settle interval apart that agree. A reload waits for it in its
 * timers; a start waits for it synchronously, bounded (docs/rotation.md#only-a-whole-file-is-applied).
 */
import { modifiedAtOf } from './secret-file-open';
import type { SecretFileReading } from './secrets-dir';

/** A change is acted on once two reads this far apart agree (docs/rotation.md#only-a-whole-file-is-applied). */
export const SECRETS_SETTLE_MS = 500;

/** How long a start waits for a file being written to stop changing, before it stops naming the file. */
export const START_SETTLE_BOUND_MS = 5_000;

/** What tells one reading from another: its content, or why it has none. Never logged. */
export function signatureOf(reading: SecretFileReading): string {
  if (reading.state === 'absent') return 'absent';
  if (reading.state === 'invalid' && reading.text === undefined) return `unreadable:${reading.reason}`;
  return `text:${reading.text}`;
}

/** What two reads agree on when a file has stopped changing: its content and which file, written when. */
export const stampOf = (reading: SecretFileReading): string =>
  `${reading.state === 'absent' ? '' : (reading.identity ?? '')}|${signatureOf(reading)}`;

/** The one thread of a start sleeps on a word nobody wakes: Cube's start is seconds long, and waits for nothing else. */
function sleepSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/** The clocks of a start's settling: tests give both. */
export interface StartSettleClock {
  /** Epoch ms (the wall clock file modification times are on). @default Date.now */
  readonly now?: () => number;
  /** Blocks for `ms`. @default Atomics.wait on a SharedArrayBuffer */
  readonly sleep?: (ms: number) => void;
}

/** Whether a file was written within the settle interval (or in the future, by a skewed clock): it may be moving. */
function writtenJustNow(reading: SecretFileReading, now: number): boolean {
  if (reading.state === 'absent' || reading.identity === undefined) return false;
  return now - modifiedAtOf(reading.identity) < SECRETS_SETTLE_MS;
}

/**
 * Reads each file until it has stopped changing, as a start needs it: a file written longer than
 * {@link SECRETS_SETTLE_MS} ago whose two reads agree costs no wait (the usual case); any other is read again every
 * {@link SECRETS_SETTLE_MS} until two reads agree, for at most {@link START_SETTLE_BOUND_MS}. `stillWritten` names a
 * file that never agreed.
 * @example
 * settleAtStart(['apiSecret'], (option) => readSecretFile(dir, option)) // { readings: { apiSecret: … }, stillWritten: undefined }
 */
export function settleAtStart<K extends string>(
  keys: readonly K[],
  read: (key: K) => SecretFileReading,
  { now = Date.now, sleep = sleepSync }: StartSettleClock = {},
): { readonly readings: Record<K, SecretFileReading>; readonly stillWritten: K | undefined } {
  const readings = {} as Record<K, SecretFileReading>;
  let moving: K[] = [];
  for (const key of keys) {
    const first = read(key);
    readings[key] = first;
    if (writtenJustNow(first, now())) {
      moving.push(key);
      continue;
    }
    // A write begun between the first read's fstat and its read shows in a second read's identity.
    readings[key] = read(key);
    if (stampOf(readings[key]) !== stampOf(first)) moving.push(key);
  }
  for (let waited = 0; moving.length > 0; waited += SECRETS_SETTLE_MS) {
    if (waited >= START_SETTLE_BOUND_MS) return { readings, stillWritten: moving[0] };
    sleep(SECRETS_SETTLE_MS);
    moving = moving.filter((key) => {
      const next = read(key);
      const changed = stampOf(next) !== stampOf(readings[key]);
      readings[key] = next;
      return changed;
    });
  }
  return { readings, stillWritten: undefined };
}
