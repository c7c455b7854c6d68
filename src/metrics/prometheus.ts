/**
 * The Prometheus side: prom-client's instruments in a registry of the package's own (not prom-client's global one,
 * which an application may fill with its own metrics and serve itself). Loaded only when metrics are on.
 */
import type { Counter, Histogram, Registry } from 'prom-client';
import { METRICS, type GaugeName, type GaugeSource, type MetricName, type Sink } from './catalog';

export interface PrometheusSink extends Sink {
  readonly registry: Registry;
}

export function prometheusSink(gauges: GaugeSource): PrometheusSink {
  // Required here, not at the top: `require('cube-dual-auth')` must not pay for prom-client while metrics are off.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const client = require('prom-client') as typeof import('prom-client');
  const registry = new client.Registry();
  const instruments = new Map<MetricName, Counter | Histogram>();
  for (const [key, spec] of Object.entries(METRICS) as [MetricName, (typeof METRICS)[MetricName]][]) {
    const common = { name: spec.name, help: spec.help, labelNames: spec.labels, registers: [registry] };
    if (spec.kind === 'counter') instruments.set(key, new client.Counter(common));
    else if (spec.kind === 'histogram') instruments.set(key, new client.Histogram({ ...common, buckets: [...spec.buckets] }));
    else {
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
    series(metric, labels) {
      const instrument = instruments.get(metric) as Counter | Histogram;
      if (METRICS[metric].kind === 'counter') {
        const child = (instrument as Counter).labels(...labels);
        return (value) => child.inc(value);
      }
      const child = (instrument as Histogram).labels(...labels);
      return (value) => child.observe(value);
    },
  };
}
