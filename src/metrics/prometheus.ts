/**
 * The Prometheus side: each series holds plain numbers, bound once per label set, and a scrape writes them in
 * Prometheus' text exposition format. Why not prom-client's own Counter and Histogram: docs/performance.md, "Metrics
 * on and off".
 */
import { METRICS, type GaugeName, type GaugeSource, type MetricName, type MetricSpec, type Sink } from './catalog';

export interface PrometheusSink extends Sink {
  /** The package's own registry of every series (nothing global): `metrics()` is their text. */
  readonly registry: { metrics(): Promise<string> };
}

/**
 * One series: its labels' values, and a counter's value or a histogram's per-bucket counts (the last past every bound).
 */
interface Series {
  readonly labels: readonly string[];
  value: number;
  readonly counts: Float64Array;
  sum: number;
}

const escape = (text: string): string => text.replace(/\\/g, '\\\\').replace(/\n/g, '\\n');

const numberText = (value: number): string =>
  Number.isNaN(value) ? 'Nan' : Number.isFinite(value) ? `${value}` : value < 0 ? '-Inf' : '+Inf';

function labelText(names: readonly string[], values: readonly (string | number)[]): string {
  const pairs = names.map((name, i) => `${name}="${escape(String(values[i])).replace(/"/g, '\\"')}"`);
  return pairs.length === 0 ? '' : `{${pairs.join(',')}}`;
}

function histogramLines(spec: MetricSpec, { labels, counts, sum, value }: Series): string[] {
  const bounds = spec.buckets ?? [];
  const names = [...spec.labels, 'le'];
  let below = 0;
  const lines = bounds.map((le, i) => {
    below += counts[i] as number;
    return `${spec.name}_bucket${labelText(names, [...labels, le])} ${numberText(below)}`;
  });
  const named = labelText(spec.labels, labels);
  lines.push(`${spec.name}_bucket${labelText(names, [...labels, '+Inf'])} ${numberText(value)}`);
  lines.push(`${spec.name}_sum${named} ${numberText(sum)}`, `${spec.name}_count${named} ${numberText(value)}`);
  return lines;
}

/** A gauge's readings, one line per label set; a label set read twice shows its last value. */
function gaugeLines(spec: MetricSpec, readings: ReturnType<GaugeSource>): string[] {
  const byLabels = new Map<string, string>();
  for (const { labels, value } of readings) {
    byLabels.set(labels.join('\0'), `${spec.name}${labelText(spec.labels, labels)} ${numberText(value)}`);
  }
  return [...byLabels.values()];
}

export function prometheusSink(gauges: GaugeSource): PrometheusSink {
  const recorded = new Map<MetricName, Map<string, Series>>();

  function lines(key: MetricName, spec: MetricSpec): string[] {
    if (spec.kind === 'gauge') return gaugeLines(spec, gauges(key as GaugeName));
    const series = [...(recorded.get(key)?.values() ?? [])];
    if (spec.kind === 'histogram') return series.flatMap((one) => histogramLines(spec, one));
    return series.map(({ labels, value }) => `${spec.name}${labelText(spec.labels, labels)} ${numberText(value)}`);
  }

  const text = (): string => {
    const metrics = (Object.entries(METRICS) as [MetricName, MetricSpec][]).map(([key, spec]) => {
      const name = escape(spec.name);
      return [`# HELP ${name} ${escape(spec.help)}`, `# TYPE ${name} ${spec.kind}`, ...lines(key, spec)].join('\n');
    });
    return `${metrics.join('\n\n')}\n`;
  };

  return {
    registry: { metrics: async () => text() },
    series(metric, labels) {
      let byLabels = recorded.get(metric);
      if (byLabels === undefined) recorded.set(metric, (byLabels = new Map()));
      const key = labels.join('\0');
      let one = byLabels.get(key);
      const bounds = (METRICS[metric] as MetricSpec).buckets;
      if (one === undefined) {
        one = { labels, value: 0, counts: new Float64Array((bounds?.length ?? 0) + 1), sum: 0 };
        byLabels.set(key, one);
      }
      const series = one;
      if (bounds === undefined) {
        return (value) => {
          series.value += value;
        };
      }
      return (value) => {
        let bucket = 0;
        while (bucket < bounds.length && value > (bounds[bucket] as number)) bucket += 1;
        series.counts[bucket] = (series.counts[bucket] as number) + 1;
        series.sum += value;
        series.value += 1;
      };
    },
  };
}
