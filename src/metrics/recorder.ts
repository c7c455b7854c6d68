/** Events of one hook turned into the metrics of the catalog. */
import type { SecretFileState } from '../config/secret-state';
import type { AuthEvent, AuthEventListener } from '../events';
import type { GaugeName, GaugeReading, RecordedName, Sink } from './catalog';

type Record1 = (value: number) => void;

/**
 * The series of every sink, bound once per label set: a request costs two map lookups and a call per sink, and no
 * string is built. Process-wide, so that every hook with metrics on adds to the same counters.
 */
export class Instruments {
  private readonly bound = new Map<RecordedName, Map<string, Map<string, Record1>>>();

  constructor(private readonly sinks: readonly Sink[]) {}

  /**
   * Records `value` into the series of `metric` labelled `first` (and `second`, and `third`, for metrics of two or
   * three labels).
   */
  record(metric: RecordedName, first: string, second: string | undefined, value: number, third?: string): void {
    let byFirst = this.bound.get(metric);
    if (byFirst === undefined) this.bound.set(metric, (byFirst = new Map()));
    let bySecond = byFirst.get(first);
    if (bySecond === undefined) byFirst.set(first, (bySecond = new Map()));
    // Label values are the package's own words, never a NUL.
    const key = third === undefined ? (second ?? '') : `${second ?? ''}\u0000${third}`;
    let series = bySecond.get(key);
    if (series === undefined) {
      const labels = [first, ...(second === undefined ? [] : [second]), ...(third === undefined ? [] : [third])];
      const each = this.sinks.map((sink) => sink.series(metric, labels));
      series = each.length === 1 ? (each[0] as Record1) : (value) => each.forEach((one) => one(value));
      bySecond.set(key, series);
    }
    series(value);
  }
}

/** What the gauges of one identity provider read. */
interface KeySetState {
  /** Clock seconds of the last successful fetch; undefined before the first. */
  refreshedAt: number | undefined;
  keys: number;
  servingStale: boolean;
}

interface RecorderOptions {
  /**
   * The label of each identity provider, by the issuer its key store names in events (`''` for a provider that
   * names none). Only these are ever labels: an event naming another issuer is not recorded.
   */
  readonly issuers: ReadonlyMap<string, string>;
  /** Whether the verified-token cache is on: without it there are no lookups to count. */
  readonly tokenCache: boolean;
  /** Monotonic seconds, read for the age of key sets (tests move a fake one). */
  readonly clock: () => number;
  /** What each secrets file holds (config/secret-state.ts), read when the metrics are collected. */
  readonly secrets?: { readings(): readonly SecretFileState[] };
}

/** The gauges of the secrets files, by the state each reads. */
const SECRET_GAUGES: Partial<Record<GaugeName, (state: SecretFileState) => GaugeReading | undefined>> = {
  secretInForce: ({ file, source, fingerprint }) =>
    fingerprint === undefined ? undefined : { labels: [file, source, fingerprint], value: 1 },
  secretKept: ({ file, keptSince }) => ({ labels: [file], value: keptSince === undefined ? 0 : 1 }),
  secretKeptSince: ({ file, keptSince }) => ({ labels: [file], value: keptSince ?? 0 }),
  secretGeneration: ({ file, generation }) => ({ labels: [file], value: generation }),
};

const OUTCOME_OK = 'ok';
/** The path label of a request that had no token, so no path was chosen. */
const NO_PATH = 'none';

/** One hook's metrics: its events into the shared instruments, its identity providers' state for the gauges. */
export class MetricsRecorder {
  readonly listener: AuthEventListener = (event) => this.record(event);
  private readonly keySets = new Map<string, KeySetState>();

  constructor(
    private readonly instruments: Instruments,
    private readonly options: RecorderOptions,
  ) {
    for (const label of options.issuers.values())
      this.keySets.set(label, { refreshedAt: undefined, keys: 0, servingStale: false });
  }

  private record(event: AuthEvent): void {
    const { instruments } = this;
    switch (event.type) {
      case 'accepted': {
        const { path } = event;
        instruments.record('requests', path, 'accepted', 1);
        instruments.record('verificationDuration', path, undefined, event.durationMs / 1000);
        if (this.options.tokenCache) instruments.record('tokenCache', path, event.cached ? 'hit' : 'miss', 1);
        return;
      }
      case 'rejected': {
        const path = event.path ?? NO_PATH;
        instruments.record('requests', path, 'refused', 1);
        instruments.record('refusals', path, event.code, 1);
        instruments.record('verificationDuration', path, undefined, event.durationMs / 1000);
        // A request without a token is refused before the cache is asked.
        if (this.options.tokenCache && event.path !== undefined) instruments.record('tokenCache', path, 'miss', 1);
        return;
      }
      case 'jwks-refreshed':
      case 'jwks-refresh-failed': {
        const label = this.options.issuers.get(event.issuer ?? '');
        const state = label === undefined ? undefined : this.keySets.get(label);
        if (label === undefined || state === undefined) return;
        const ok = event.type === 'jwks-refreshed';
        instruments.record('keySetFetches', label, ok ? OUTCOME_OK : event.code, 1);
        instruments.record('keySetFetchDuration', label, undefined, event.durationMs / 1000);
        if (ok) {
          state.refreshedAt = this.options.clock();
          state.keys = event.kids.length;
          state.servingStale = false;
        } else {
          state.servingStale = event.servingStale;
        }
        return;
      }
      case 'discovery': {
        const label = this.options.issuers.get(event.issuer);
        if (label !== undefined) instruments.record('discoveryFetches', label, event.code ?? OUTCOME_OK, 1);
        return;
      }
      case 'sql-login':
        instruments.record('sqlLogins', event.kind, event.outcome, 1);
        // A login refused for a reason of its own is Cube Core's password login: Postgres, by password.
        if (event.reason !== undefined) instruments.record('sqlRefusals', event.reason, 'postgres', 1, 'password');
        return;
      case 'sql-reauthenticated':
      case 'sql-reauthentication-refused':
        if (event.type === 'sql-reauthentication-refused' && event.reason !== undefined)
          instruments.record('sqlRefusals', event.reason, event.protocol, 1, event.method);
        instruments.record(
          'sqlReauthentications',
          event.type === 'sql-reauthenticated' ? 'accepted' : event.code,
          undefined,
          1,
        );
        return;
      case 'secret-reload':
        instruments.record('secretReloads', event.file, event.outcome, 1);
        return;
      case 'internal-error':
        // Counted where it is answered: a refusal with ERR_INTERNAL.
        return;
    }
  }

  /** The gauge's readings for this hook's identity providers or secrets files, read when the metrics are collected. */
  readings(metric: GaugeName): GaugeReading[] {
    const secret = SECRET_GAUGES[metric];
    if (secret !== undefined) {
      const states = this.options.secrets?.readings() ?? [];
      return states.flatMap((state) => secret(state) ?? []);
    }
    const now = this.options.clock();
    return [...this.keySets].flatMap(([label, state]): GaugeReading[] => {
      if (metric === 'keySetKeys') return [{ labels: [label], value: state.keys }];
      if (metric === 'keySetServingStale') return [{ labels: [label], value: state.servingStale ? 1 : 0 }];
      return state.refreshedAt === undefined ? [] : [{ labels: [label], value: now - state.refreshedAt }];
    });
  }
}
