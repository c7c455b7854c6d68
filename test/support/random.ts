/**
 * A seeded pseudo-random generator (mulberry32) for property tests: the same seed gives the same bodies on every run
 * and machine, so a failure replays.
 */
export interface Random {
  /** A float in [0, 1). */
  next(): number;
  /** An integer in [0, below). */
  int(below: number): number;
  /** One of `items`. */
  pick<T>(items: readonly T[]): T;
}

export function seeded(seed: number): Random {
  let state = seed >>> 0;
  const next = (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (below: number): number => Math.floor(next() * below);
  return { next, int, pick: (items) => items[int(items.length)] as (typeof items)[number] };
}

/** A string of `length` pieces drawn from `pieces`. */
export function randomText(random: Random, pieces: readonly string[], length: number): string {
  let text = '';
  for (let i = 0; i < length; i++) text += random.pick(pieces);
  return text;
}
