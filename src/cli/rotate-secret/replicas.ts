/**
 * `provider rotate-secret`'s view of the replicas: `--replica-metrics` waits until every replica holds the new
 * `api-secrets`; `--k8s-selector` prints kubelet's sync annotation (docs/rotation.md, "Faster on Kubernetes").
 */
import { UsageError, type CliIO } from '../io';
import { Deadline } from '../deadline';
import { compareReplicas, type FileVerdict } from '../replicas/compare';
import { metricsUrls, readReplicas } from '../replicas/read';
import { waitUntilAccepted, type Clock } from './wait';

export const REPLICA_OPTIONS = {
  'replica-metrics': { type: 'string', multiple: true },
  'k8s-selector': { type: 'string' },
} as const;

/** The annotation whose change makes kubelet sync a pod's volumes now rather than at its next sync (60–90 s). */
export const SYNC_ANNOTATION = 'cube-dual-auth/secrets-synced-at';
/** A label selector as kubectl takes it, and nothing a shell would read: `app=cube-api,tier in (api)`. */
const SELECTOR = /^[A-Za-z0-9._/=!,() -]{1,256}$/;
/** The pause between two readings of the replicas. */
const REREAD_MS = 1_000;
const READ_TIMEOUT_MS = 5_000;

export interface ReplicaWatch {
  /** Each replica's metrics URL; empty without `--replica-metrics`. */
  readonly urls: readonly URL[];
  /** The pods' label selector, for the annotation patch. */
  readonly selector: string | undefined;
}

/** The options' values, checked: a URL as `replicas` takes it, a selector kubectl takes and a shell cannot misread. */
export function replicaWatch(values: { readonly 'replica-metrics'?: string[]; readonly 'k8s-selector'?: string }) {
  const given = values['replica-metrics'] ?? [];
  const selector = values['k8s-selector'];
  if (selector !== undefined && !SELECTOR.test(selector))
    throw new UsageError(
      '--k8s-selector must be a label selector (e.g. app=cube-api), of letters, digits and . _ / = ! , ( ) - and spaces',
    );
  const urls = given.length === 0 ? [] : metricsUrls(given, '--replica-metrics');
  return { urls, selector } satisfies ReplicaWatch;
}

/**
 * The command that makes kubelet write the changed Secret into every selected pod at once, or '' without a selector.
 * @example
 * syncStep({ urls: [], selector: 'app=cube-api' }, Date.now())
 * // "kubectl annotate pods -l 'app=cube-api' cube-dual-auth/secrets-synced-at=2026-12-01T10:00:00Z --overwrite"
 */
export function syncStep(watch: ReplicaWatch, epochMs: number): string {
  if (watch.selector === undefined) return '';
  const at = new Date(epochMs).toISOString().replace(/\.\d{3}Z$/, 'Z');
  return `kubectl annotate pods -l '${watch.selector}' ${SYNC_ANNOTATION}=${at} --overwrite`;
}

/** One reading of every replica: the verdict on `api-secrets`. */
async function readApiSecrets(watch: ReplicaWatch, io: CliIO, timeoutMs: number): Promise<FileVerdict> {
  const deadline = new Deadline(timeoutMs, io.timers);
  const answers = await readReplicas(watch.urls, { env: io.env, deadline }).finally(() => deadline.dispose());
  return compareReplicas(answers)[0] as FileVerdict;
}

/** The replicas that differ, in words, for a message. */
export const differingOf = (verdict: FileVerdict): string =>
  verdict.differing.map(({ url, words }) => `${url} ${words}`).join('; ');

/** Reads the replicas until all hold one `api-secrets` (none kept) or `waitMs` passes; undefined without URLs. */
export async function waitForReplicas(
  watch: ReplicaWatch,
  { io, clock, waitMs }: { readonly io: CliIO; readonly clock: Clock; readonly waitMs: number },
): Promise<{ readonly agree: boolean; readonly verdict: FileVerdict } | undefined> {
  if (watch.urls.length === 0) return undefined;
  const waited = await waitUntilAccepted({
    attempt: (timeoutMs) => readApiSecrets(watch, io, timeoutMs),
    accepted: (verdict) => verdict.agree,
    waitMs,
    retryMs: REREAD_MS,
    attemptTimeoutMs: READ_TIMEOUT_MS,
    clock,
    onRefused: (verdict, attempt) => {
      if (attempt !== 1) return;
      const sync = syncStep(watch, clock.epochMs());
      io.stderr.write(
        `Not every replica holds the new api-secrets yet: ${differingOf(verdict)}.\nReading their metrics again every ${REREAD_MS / 1000} s${sync === '' ? '' : `; to have kubelet sync the Secret now: ${sync}`}\n`,
      );
    },
  });
  return { agree: waited.accepted, verdict: waited.last };
}
