/**
 * The Prometheus side: prom-client's registry (the package's own, not prom-client's global one, which an application
 * may fill with its own metrics and serve itself) and its text format. Loaded only when metrics are on.
 *
 * A request records into plain numbers held here, and prom-client reads them when scraped: its own `inc` and
 * `observe` check and hash the labels on every call, which with metrics on took the repeated-token benchmark past its
 * limit (docs/performance.md, "Metrics on and off"). Counters are prom-client's, brought up
 * to date in their `collect`; histograms are collectors of the shape prom-client's registry reads (`get()`), since
 * prom-client has no way to set a histogram's buckets.
 */
import type { Counter, Registry } from 'prom-client';
import {
  METRICS,
  type GaugeName,
  type GaugeSource,
  type MetricName,
  type MetricSpec,
  type RecordedName,
  type Sink,
} from './catalog';

export interface PrometheusSink extends Sink {
  readonly registry: Registry;
}

/** One counter series: what requests added, and what prom-client has been told of it. */
interface CounterSeries {
  readonly labels: readonly string[];
  value: number;
  told: number;
}

/** One histogram series: a count per bucket (not cumulative; the last is past every bound), the sum and the count. */
interface HistogramSeries {
  readonly labels: readonly string[];
  readonly counts: Float64Array;
  sum: number;
  count: number;
}

type Labelled = Record<string, string | number>;

const labelsOf = (spec: MetricSpec, values: readonly string[]): Labelled =>
  Object.fromEntries(spec.labels.map((name, i) => [name, values[i] as string]));

/** A histogram as prom-client's registry reads a metric: its name, help and type, and `get()` for the samples. */
function histogramCollector(spec: MetricSpec, series: readonly HistogramSeries[]) {
  const bounds = spec.buckets ?? [];
  return {
    name: spec.name,
    help: spec.help,
    type: 'histogram',
    aggregator: 'sum',
    get() {
      const values = series.flatMap(({ labels, counts, sum, count }) => {
        const named = labelsOf(spec, labels);
        let below = 0;
        const buckets = bounds.map((le, i) => {
          below += counts[i] as number;
          return { metricName: `${spec.name}_bucket`, labels: { ...named, le }, value: below };
        });
        return [
          ...buckets,
          { metricName: `${spec.name}_bucket`, labels: { ...named, le: '+Inf' }, value: count },
          { metricName: `${spec.name}_sum`, labels: named, value: sum },
          { metricName: `${spec.name}_count`, labels: named, value: count },
        ];
      });
      return { name: spec.name, help: spec.help, type: 'histogram', aggregator: 'sum', values };
    },
    reset() {
      for (const one of series) {
        one.counts.fill(0);
        one.sum = 0;
        one.count = 0;
      }
    },
  };
}

export function prometheusSink(gauges: GaugeSource): PrometheusSink {
  // Required here, not at the top: `require('cube-dual-auth')` must not pay for prom-client while metrics are off.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const client = require('prom-client') as typeof import('prom-client');
  const registry = new client.Registry();
  const counters = new Map<MetricName, CounterSeries[]>();
  const histograms = new Map<MetricName, HistogramSeries[]>();
  for (const [key, spec] of Object.entries(METRICS) as [MetricName, MetricSpec][]) {
    const common = { name: spec.name, help: spec.help, labelNames: spec.labels, registers: [registry] };
    if (spec.kind === 'counter') {
      const series: CounterSeries[] = [];
      counters.set(key, series);
      new client.Counter({
        ...common,
        collect(this: Counter) {
          for (const one of series) {
            if (one.value === one.told) continue;
            this.labels(...one.labels).inc(one.value - one.told);
            one.told = one.value;
          }
        },
      });
    } else if (spec.kind === 'histogram') {
      const series: HistogramSeries[] = [];
      histograms.set(key, series);
      // The registry takes any object it can read as a metric; prom-client's types name only its own classes.
      registry.registerMetric(histogramCollector(spec, series) as unknown as Counter);
    } else {
      const metric = key as GaugeName;
      new client.Gauge({
        ...common,
        // Read when scraped: the age of a key set grows between events, and a closed hook's providers must go.
        collect() {
          this.reset();
          for (const { labels, value } of gauges(metric)) this.labels(...labels).set(value);
        },
      });
    }
  }
  return {
    registry,
    series(metric: RecordedName, labels) {
      const counterSeries = counters.get(metric);
      if (counterSeries !== undefined) {
        const one: CounterSeries = { labels, value: 0, told: 0 };
        counterSeries.push(one);
        return (value) => {
          one.value += value;
        };
      }
      const bounds = (METRICS[metric] as MetricSpec).buckets ?? [];
      const one: HistogramSeries = { labels, counts: new Float64Array(bounds.length + 1), sum: 0, count: 0 };
      (histograms.get(metric) as HistogramSeries[]).push(one);
      return (value) => {
        let bucket = 0;
        while (bucket < bounds.length && value > (bounds[bucket] as number)) bucket += 1;
        one.counts[bucket] = (one.counts[bucket] as number) + 1;
        one.sum += value;
        one.count += 1;
      };
    },
  };
}
