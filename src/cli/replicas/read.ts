/** Each replica's metrics, read at once, each bounded in time (the command's deadline) and size (probe's GET). */
import { UsageError } from '../io';
import { checkedUrl } from '../../http/url';
import { NOT_CHECKED, type Deadline } from '../deadline';
import { get } from '../probe/http';
import type { ReplicaAnswer } from './compare';
import { heldOf } from './held';

/** One request's bound, cut to what is left of the command's deadline. */
const REQUEST_TIMEOUT_MS = 5_000;
/** How many replicas one command reads: a fleet, not a scan. */
export const MAX_REPLICA_URLS = 100;

/**
 * A replica's metrics URL: http or https, no credentials; a URL without a path gets `/metrics`, where the hook's
 * listener serves them (CUBE_DUAL_AUTH_METRICS_PORT).
 */
export function metricsUrl(text: string, flag: string): URL {
  const url = checkedUrl(
    text,
    {
      'not-a-url': `${flag} ${JSON.stringify(text.slice(0, 80))} is not a URL (e.g. http://10.0.0.7:9464/metrics)`,
      scheme: `${flag} ${JSON.stringify(text.slice(0, 80))} must be an http or https URL`,
      credentials: `${flag} must not hold a user name or password`,
      'query-or-fragment': `${flag} must not hold a query or fragment`,
    },
    (message) => {
      throw new UsageError(message);
    },
  );
  if (url.pathname === '/') url.pathname = '/metrics';
  return url;
}

/** The URLs as given, checked; none, too many or one twice is a usage error. */
export function metricsUrls(texts: readonly string[], flag: string): URL[] {
  if (texts.length === 0) throw new UsageError(`give at least one ${flag}: a replica's metrics URL`);
  if (texts.length > MAX_REPLICA_URLS)
    throw new UsageError(`at most ${MAX_REPLICA_URLS} ${flag}s, got ${texts.length}`);
  const urls = texts.map((text) => metricsUrl(text, flag));
  const twice = urls.find((url, i) => urls.findIndex((other) => other.href === url.href) !== i);
  if (twice !== undefined) throw new UsageError(`${twice.href} is given twice`);
  return urls;
}

/** How a replica is named in reports: its host and port, with its path when that is not /metrics. */
export const replicaName = (url: URL): string =>
  url.pathname === '/metrics' ? url.host : `${url.host}${url.pathname}`;

/** Reads every replica at once; never rejects: a replica that cannot be read is unreachable, with the reason. */
export function readReplicas(
  urls: readonly URL[],
  { env, deadline }: { readonly env: NodeJS.ProcessEnv; readonly deadline: Deadline },
): Promise<ReplicaAnswer[]> {
  return Promise.all(
    urls.map(async (url): Promise<ReplicaAnswer> => {
      const name = replicaName(url);
      const answer = await get(url, {
        headers: { accept: 'text/plain' },
        timeoutMs: deadline.within(REQUEST_TIMEOUT_MS),
        env,
        signal: deadline.signal,
      });
      if (answer.kind === 'unanswered')
        return {
          url: name,
          unreachable:
            answer.reason === NOT_CHECKED || deadline.passed
              ? `no answer within the deadline (${deadline.ms} ms)`
              : answer.reason,
        };
      if (answer.status !== 200) return { url: name, unreachable: `its metrics endpoint answered ${answer.status}` };
      const held = heldOf(answer.text);
      if (held === undefined)
        return {
          url: name,
          unreachable:
            "it serves no cube_dual_auth_secret_* metrics (not the hook's metrics endpoint, or a version before them)",
        };
      return { url: name, held };
    }),
  );
}
