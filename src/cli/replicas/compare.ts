/**
 * Which replicas agree on what each secrets file holds, and how each other one differs: kept at its last good
 * content, a generation behind, in force from another source, other content, or unreachable.
 */
import type { SecretFile } from '../../config/secrets-dir';
import type { SecretSource } from '../../config/secret-state';
import { isoSeconds, plural } from '../format';
import { FILES, type FileHeld } from './held';

/** One replica as read: what its metrics show, or why they could not be read. */
export type ReplicaAnswer =
  | { readonly url: string; readonly held: Partial<Record<SecretFile, FileHeld>> }
  | { readonly url: string; readonly unreachable: string };

/** How one replica differs from the others on one file. */
export type Difference =
  | { readonly how: 'unreachable'; readonly reason: string }
  | { readonly how: 'kept'; readonly since: number | undefined }
  | { readonly how: 'source'; readonly source: SecretSource; readonly expected: SecretSource }
  | { readonly how: 'behind'; readonly generation: number | undefined; readonly expected: number }
  | { readonly how: 'other'; readonly fingerprint: string; readonly generation: number | undefined }
  | { readonly how: 'computing' }
  | { readonly how: 'missing' };

/** What most replicas hold of a file. */
export interface InForce {
  readonly source: SecretSource;
  readonly fingerprint: string;
  /** The highest generation among them (replicas started later count fewer changes). */
  readonly generation: number | undefined;
}

export interface FileVerdict {
  readonly file: SecretFile;
  /** Every replica answered and holds the same, none kept at its last good content. */
  readonly agree: boolean;
  /** What most replicas hold; undefined when no replica shows it. */
  readonly inForce: InForce | undefined;
  readonly agreeing: readonly string[];
  readonly differing: readonly ({ readonly url: string; readonly words: string } & Difference)[];
}

const SOURCE_RANK: Record<SecretSource, number> = { file: 0, environment: 1, none: 2 };
const keyOf = (held: Pick<FileHeld, 'source' | 'fingerprint'>): string => `${held.source}\u0000${held.fingerprint}`;

/** The content most replicas hold; a tie goes to a file over the environment, then to the most changes applied. */
function mostHeld(helds: readonly FileHeld[]): InForce | undefined {
  const groups = new Map<string, FileHeld[]>();
  for (const held of helds) {
    if (held.source === undefined || held.fingerprint === undefined) continue;
    groups.set(keyOf(held), [...(groups.get(keyOf(held)) ?? []), held]);
  }
  const generation = (group: FileHeld[]) => Math.max(...group.map((one) => one.generation ?? -1));
  const [best] = [...groups.values()].sort(
    (a, b) =>
      b.length - a.length ||
      SOURCE_RANK[a[0]?.source as SecretSource] - SOURCE_RANK[b[0]?.source as SecretSource] ||
      generation(b) - generation(a),
  );
  if (best === undefined) return undefined;
  const [first] = best as [FileHeld];
  const highest = generation(best);
  return {
    source: first.source as SecretSource,
    fingerprint: first.fingerprint as string,
    generation: highest < 0 ? undefined : highest,
  };
}

/** The difference of one replica's `held` from `inForce`, or undefined when it holds the same and is current. */
function differenceOf(held: FileHeld | undefined, inForce: InForce | undefined): Difference | undefined {
  if (held === undefined) return { how: 'missing' };
  if (held.kept === true) return { how: 'kept', since: held.keptSince };
  if (held.source === undefined || held.fingerprint === undefined) return { how: 'computing' };
  if (inForce === undefined || keyOf(held) === keyOf(inForce)) return undefined;
  if (held.source !== inForce.source) return { how: 'source', source: held.source, expected: inForce.source };
  const expected = inForce.generation;
  if (expected !== undefined && (held.generation ?? -1) < expected)
    return { how: 'behind', generation: held.generation, expected };
  return { how: 'other', fingerprint: held.fingerprint, generation: held.generation };
}

const FROM: Record<SecretSource, string> = {
  file: 'from the file',
  environment: 'from the environment',
  none: 'from nowhere (no value)',
};

/** A difference in words, for the text report. */
export function wordsOf(difference: Difference): string {
  switch (difference.how) {
    case 'unreachable':
      return `unreachable: ${difference.reason}`;
    case 'kept':
      return `kept at its last good content${difference.since === undefined ? '' : ` since ${isoSeconds(difference.since)}`}`;
    case 'source':
      return `in force ${FROM[difference.source]} rather than ${FROM[difference.expected].replace(/^from /, '')}`;
    case 'behind': {
      const behind = difference.expected - (difference.generation ?? 0);
      const at = difference.generation === undefined ? 'shows no generation' : `at generation ${difference.generation}`;
      return `${behind === 1 ? 'a generation' : plural(behind, 'generation')} behind (${at}, the others at ${difference.expected})`;
    }
    case 'other':
      return `holds other content (fingerprint ${difference.fingerprint || 'none'}, generation ${difference.generation ?? 'not shown'})`;
    case 'computing':
      return 'its fingerprint is still being computed: ask again in a second';
    case 'missing':
      return 'its metrics show nothing of this file (another version of cube-dual-auth?)';
  }
}

/**
 * Each file's verdict across `answers`, in the order of the metrics.
 * @example
 * compareReplicas(answers).every((verdict) => verdict.agree) // every replica holds the same, none kept
 */
export function compareReplicas(answers: readonly ReplicaAnswer[]): FileVerdict[] {
  return FILES.map((file) => {
    const reached = answers.flatMap((answer) => ('held' in answer ? [answer] : []));
    const inForce = mostHeld(reached.flatMap(({ held }) => held[file] ?? []));
    const agreeing: string[] = [];
    const differing: FileVerdict['differing'][number][] = [];
    for (const answer of answers) {
      const difference: Difference | undefined =
        'held' in answer
          ? differenceOf(answer.held[file], inForce)
          : { how: 'unreachable', reason: answer.unreachable };
      if (difference === undefined) agreeing.push(answer.url);
      else differing.push({ url: answer.url, words: wordsOf(difference), ...difference });
    }
    return { file, agree: differing.length === 0 && inForce !== undefined, inForce, agreeing, differing };
  });
}
