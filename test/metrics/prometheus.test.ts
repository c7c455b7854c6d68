// The Prometheus side records into plain numbers and writes the text format when scraped: what a scrape shows must be
// what prom-client's own instruments would show (cumulative buckets, +Inf, sum and count; counters that never count a
// request twice, however often they are scraped).
import { describe, expect, it } from 'vitest';
import { METRICS } from '../../src/metrics/catalog';
import { prometheusSink } from '../../src/metrics/prometheus';

/** The sample lines of a scrape, without HELP and TYPE. */
const samples = (text: string): string[] => text.split('\n').filter((line) => line !== '' && !line.startsWith('#'));

describe('the Prometheus sink', () => {
  it("shows a histogram as prom-client's own would: cumulative buckets, +Inf, sum and count", async () => {
    const sink = prometheusSink(() => []);
    const observe = sink.series('verificationDuration', ['shared-secret']);
    for (const seconds of [0.00005, 0.0003, 0.0001, 7]) observe(seconds);
    const lines = samples(await sink.registry.metrics()).filter((line) =>
      line.startsWith(METRICS.verificationDuration.name),
    );
    const bucket = (le: string) =>
      lines.find((line) =>
        line.startsWith(`${METRICS.verificationDuration.name}_bucket{path="shared-secret",le="${le}"} `),
      );
    expect(bucket('0.0001')).toMatch(/ 2$/);
    expect(bucket('0.00025')).toMatch(/ 2$/);
    expect(bucket('0.0005')).toMatch(/ 3$/);
    expect(bucket('5')).toMatch(/ 3$/);
    expect(bucket('+Inf')).toMatch(/ 4$/);
    expect(lines).toContain('cube_dual_auth_verification_duration_seconds_sum{path="shared-secret"} 7.00045');
    expect(lines).toContain('cube_dual_auth_verification_duration_seconds_count{path="shared-secret"} 4');
    // One line per bound, then +Inf, sum and count: nothing else.
    expect(lines).toHaveLength(METRICS.verificationDuration.buckets.length + 3);
  });

  it('counts each request once, however often it is scraped, and what came between two scrapes', async () => {
    const sink = prometheusSink(() => []);
    const accepted = sink.series('requests', ['key-set', 'accepted']);
    accepted(1);
    accepted(1);
    const line = 'cube_dual_auth_requests_total{path="key-set",outcome="accepted"}';
    expect(samples(await sink.registry.metrics())).toContain(`${line} 2`);
    expect(samples(await sink.registry.metrics())).toContain(`${line} 2`);
    accepted(1);
    expect(samples(await sink.registry.metrics())).toContain(`${line} 3`);
  });
});
