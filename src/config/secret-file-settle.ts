/** When a secrets file has stopped changing: two reads that agree (docs/rotation.md#only-a-whole-file-is-applied). */
import { modifiedAtOf } from './secret-file-open';

/** A change is acted on once two reads this far apart agree. */
export const SECRETS_SETTLE_MS = 500;

/** How long a start waits for a file being written to stop changing, before it stops naming the file. */
export const START_SETTLE_BOUND_MS = 5_000;

/** What the settling compares of one reading of a file (secrets-dir.ts's `SecretFileReading`). */
export type SettlingReading =
  | { readonly state: 'absent' }
  | {
      readonly state: 'read' | 'invalid';
      readonly text: string | undefined;
      readonly reason?: string;
      readonly identity?: string;
    };

/** What tells one reading from another: its content, or why it has none. Never logged. */
export function signatureOf(reading: SettlingReading): string {
  if (reading.state === 'absent') return 'absent';
  if (reading.state === 'invalid' && reading.text === undefined) return `unreadable:${reading.reason}`;
  return `text:${reading.text}`;
}

/** What two reads agree on when a file has stopped changing: its content and which file, written when. */
export const stampOf = (reading: SettlingReading): string =>
  `${reading.state === 'absent' ? '' : (reading.identity ?? '')}|${signatureOf(reading)}`;

/** A start's one thread sleeps on a word nobody wakes: Cube's start is seconds long and waits for nothing else. */
const sleepSync = (ms: number): void => void Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);

/** The clocks of a start's settling: `now` (epoch ms, as files' times), and a blocking `sleep` (Atomics.wait). */
export interface StartSettleClock {
  readonly now?: () => number;
  readonly sleep?: (ms: number) => void;
}

/** Written within the settle interval, or in the future by a skewed clock: it may still be moving. */
const writtenJustNow = (reading: SettlingReading, now: number): boolean =>
  reading.state !== 'absent' &&
  reading.identity !== undefined &&
  now - modifiedAtOf(reading.identity) < SECRETS_SETTLE_MS;

/**
 * Reads each file as a start needs it: an old file whose two reads agree costs no wait; any other is read again every
 * {@link SECRETS_SETTLE_MS} until two reads agree, at most {@link START_SETTLE_BOUND_MS} (`stillWritten` if not).
 * @example
 * settleAtStart(['apiSecret'], (option) => readSecretFile(dir, option)) // { readings: { apiSecret: … } }
 */
export function settleAtStart<K extends string, R extends SettlingReading>(
  keys: readonly K[],
  read: (key: K) => R,
  { now = Date.now, sleep = sleepSync }: StartSettleClock = {},
): { readonly readings: Record<K, R>; readonly stillWritten: K | undefined } {
  const readings = {} as Record<K, R>;
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
