/**
 * The OpenTelemetry side: the same instruments, recorded through `@opentelemetry/api` (an optional peer dependency)
 * into whatever meter provider the process registered. Nothing is loaded when the API is not installed.
 */
import { METRICS, type GaugeName, type GaugeSource, type MetricName, type Sink } from './catalog';

/** The few parts of `@opentelemetry/api` used here, so that its types are not needed to build or use the package. */
interface Attributes {
  readonly [name: string]: string;
}
interface Meter {
  createCounter(
    name: string,
    options: { description: string; unit?: string },
  ): { add(value: number, attributes: Attributes): void };
  createHistogram(
    name: string,
    options: { description: string; unit?: string; advice?: { explicitBucketBoundaries: number[] } },
  ): { record(value: number, attributes: Attributes): void };
  createObservableGauge(
    name: string,
    options: { description: string; unit?: string },
  ): { addCallback(callback: (result: { observe(value: number, attributes: Attributes): void }) => void): void };
}
interface OpenTelemetryApi {
  readonly metrics: { getMeter(name: string, version?: string): Meter };
  createNoopMeter(): Meter;
}

/** The API as installed beside the package, or undefined when it is not. */
function openTelemetryApi(): OpenTelemetryApi | undefined {
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    return require('@opentelemetry/api') as OpenTelemetryApi;
  } catch {
    return undefined;
  }
}

function attributesOf(metric: MetricName, labels: readonly string[]): Attributes {
  return Object.fromEntries(METRICS[metric].labels.map((name, i) => [name, labels[i] as string]));
}

/**
 * A sink on the global meter provider, or undefined without the API or without a registered provider. A meter asked
 * for before the application registers its provider is the API's no-op one for good, so register it before `cube.js`
 * takes the hook; recording into the no-op meter would cost every request for nothing.
 */
export function openTelemetrySink(gauges: GaugeSource): Sink | undefined {
  const api = openTelemetryApi();
  if (api === undefined) return undefined;
  const meter = api.metrics.getMeter('cube-dual-auth');
  if (meter === api.createNoopMeter()) return undefined;
  const counters = new Map<MetricName, ReturnType<Meter['createCounter']>>();
  const histograms = new Map<MetricName, ReturnType<Meter['createHistogram']>>();
  for (const [key, spec] of Object.entries(METRICS) as [MetricName, (typeof METRICS)[MetricName]][]) {
    const description = spec.help;
    if (spec.kind === 'counter')
      counters.set(key, meter.createCounter(spec.name.replace(/_total$/, ''), { description }));
    else if (spec.kind === 'histogram') {
      histograms.set(
        key,
        meter.createHistogram(spec.name, {
          description,
          unit: 's',
          advice: { explicitBucketBoundaries: [...spec.buckets] },
        }),
      );
    } else {
      const metric = key as GaugeName;
      meter.createObservableGauge(spec.name, { description }).addCallback((result) => {
        for (const { labels, value } of gauges(metric)) result.observe(value, attributesOf(metric, labels));
      });
    }
  }
  return {
    series(metric, labels) {
      const attributes = attributesOf(metric, labels);
      const counter = counters.get(metric);
      if (counter !== undefined) return (value) => counter.add(value, attributes);
      const histogram = histograms.get(metric) as ReturnType<Meter['createHistogram']>;
      return (value) => histogram.record(value, attributes);
    },
  };
}
