/** "Did you mean ...?" for a misspelt command, action or option. */

/**
 * Edit distance between two words: insertions, deletions, substitutions and swaps of two neighbouring
 * letters each count 1 (the optimal-string-alignment distance), so `promte` and `verfiy` are one edit away.
 */
export function editDistance(a: string, b: string): number {
  // rows[i][j]: distance between the first i letters of a and the first j of b.
  const rows: number[][] = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  const at = (i: number, j: number) => rows[i]?.[j] ?? Number.POSITIVE_INFINITY;
  for (let i = 1; i <= a.length; i += 1) {
    const row = rows[i] as number[];
    for (let j = 1; j <= b.length; j += 1) {
      const substitution = at(i - 1, j - 1) + (a[i - 1] === b[j - 1] ? 0 : 1);
      let best = Math.min(at(i - 1, j) + 1, at(i, j - 1) + 1, substitution);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, at(i - 2, j - 2) + 1);
      row[j] = best;
    }
  }
  return at(a.length, b.length);
}

/**
 * The candidate closest to `given`, when it is close enough to be what was meant: one edit for every three
 * letters of the longer word, at least one. Ties go to the earlier candidate. Comparison ignores case.
 */
export function closest(given: string, candidates: readonly string[]): string | undefined {
  let best: { name: string; distance: number } | undefined;
  for (const name of candidates) {
    const distance = editDistance(given.toLowerCase(), name.toLowerCase());
    const allowed = Math.max(1, Math.floor(Math.max(given.length, name.length) / 3));
    if (distance <= allowed && (best === undefined || distance < best.distance)) best = { name, distance };
  }
  return best?.name;
}

/** `; did you mean "verify"?`, or nothing when no candidate is close. */
export function didYouMean(given: string, candidates: readonly string[]): string {
  const match = closest(given, candidates);
  return match === undefined ? '' : `; did you mean ${JSON.stringify(match)}?`;
}
