/** Durations as people write them (`30s`, `15m`, `1h`, `90d`): one spelling for the CLI and the variables. */

const UNIT_SECONDS = { s: 1, m: 60, h: 3600, d: 86_400 } as const;

/** What a duration looks like, for messages. */
export const DURATION_FORM = 'a whole number of s, m, h or d (e.g. 30s, 15m, 1h, 7d)';

/** `30s` / `15m` / `1h` / `7d` in seconds; undefined for any other text. */
export function durationSeconds(text: string): number | undefined {
  const match = /^([1-9][0-9]{0,8})([smhd])$/.exec(text);
  return match ? Number(match[1]) * UNIT_SECONDS[match[2] as keyof typeof UNIT_SECONDS] : undefined;
}

/** Seconds as the largest unit that divides them: `90d`, `36h`, `90s`. */
export function formatDuration(seconds: number): string {
  for (const [unit, size] of [
    ['d', 86_400],
    ['h', 3600],
    ['m', 60],
  ] as const)
    if (seconds >= size && seconds % size === 0) return `${seconds / size}${unit}`;
  return `${seconds}s`;
}
