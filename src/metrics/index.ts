/**
 * The hook's metrics: off unless `metricsPort` or `metrics` is set, and then OpenTelemetry's API (when installed) is
 * loaded; with metrics off nothing here is loaded past this file, and no listener is installed.
 */
import type { ResolvedOptions } from '../config/options';
import type { SecretStates } from '../config/secret-state';
import type { AuthEventListener } from '../events';
import { PROMETHEUS_CONTENT_TYPE, type GaugeName, type Sink } from './catalog';
import { openTelemetrySink } from './open-telemetry';
import { prometheusSink, type PrometheusSink } from './prometheus';
import { Instruments, MetricsRecorder } from './recorder';
import { listenForMetrics, type MetricsListener } from './server';

export { METRICS } from './catalog';

/** The hooks recording now, whose identity providers the gauges report. */
const recording = new Set<MetricsRecorder>();

let started: { readonly prometheus: PrometheusSink; readonly instruments: Instruments } | undefined;

/** Makes the instruments on first use: one set per process, which every hook with metrics on adds to. */
function sinks(): NonNullable<typeof started> {
  if (started === undefined) {
    const gauges = (metric: GaugeName) => [...recording].flatMap((recorder) => recorder.readings(metric));
    const prometheus = prometheusSink(gauges);
    const openTelemetry = openTelemetrySink(gauges);
    const all: Sink[] = openTelemetry === undefined ? [prometheus] : [prometheus, openTelemetry];
    started = { prometheus, instruments: new Instruments(all) };
  }
  return started;
}

/** One hook's metrics: the listener its events go to, and what its `close()` ends. */
export interface HookMetrics {
  readonly listener: AuthEventListener;
  close(): void;
}

/**
 * The label of each identity provider, by the issuer its key store reports: its configured issuer, or for the one
 * provider of a JWKS URL, the issuer required of its tokens when exactly one is; else empty.
 */
function issuerLabels(options: ResolvedOptions): Map<string, string> {
  return new Map(
    options.identityProviders.map((provider) => {
      const only = provider.issuers?.length === 1 ? provider.issuers[0] : undefined;
      return [provider.issuer ?? '', provider.issuer ?? only ?? ''];
    }),
  );
}

const monotonicSeconds = (): number => performance.now() / 1000;

/** What a hook's metrics read besides its events. */
export interface HookMetricsSetting {
  /** Monotonic seconds, for the age of key sets. */
  readonly clock?: () => number;
  /** What each secrets file holds: its fingerprints are computed from the start of the metrics on. */
  readonly secrets?: SecretStates;
}

/**
 * Starts a hook's metrics when its options turn them on (and its listener, with `metricsPort`); undefined when they
 * are off. Throws a `DualAuthConfigError` naming the port's or host's option when the listener cannot bind.
 * @example
 * const metrics = hookMetrics(resolved, { secrets: reload.states });
 */
export function hookMetrics(
  options: ResolvedOptions,
  { clock = monotonicSeconds, secrets }: HookMetricsSetting = {},
): HookMetrics | undefined {
  const { metricsPort, metricsHost, names } = options;
  if (!options.metrics && metricsPort === undefined) return undefined;
  let listener: MetricsListener | undefined;
  if (metricsPort !== undefined) {
    listener = listenForMetrics({
      host: metricsHost,
      port: metricsPort,
      names: { port: names.metricsPort, host: names.metricsHost },
      text: () => metrics.text(),
    });
  }
  const recorder = new MetricsRecorder(sinks().instruments, {
    issuers: issuerLabels(options),
    tokenCache: options.tokenCacheSize > 0,
    clock,
    ...(secrets !== undefined && { secrets }),
  });
  secrets?.computeFingerprints();
  recording.add(recorder);
  return {
    listener: recorder.listener,
    close() {
      recording.delete(recorder);
      listener?.close();
    },
  };
}

/**
 * The metrics of every hook in this process with metrics on, to serve yourself (from your own server or `initApp`):
 * `res.type(metrics.contentType).send(await metrics.text())`.
 */
export const metrics = {
  /** The Content-Type of {@link metrics.text}: the Prometheus text exposition format. */
  contentType: PROMETHEUS_CONTENT_TYPE,
  /** The metrics in the Prometheus text exposition format. */
  text: (): Promise<string> => sinks().prometheus.registry.metrics(),
};
