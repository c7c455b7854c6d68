// The same instruments through OpenTelemetry: with a meter provider registered (the SDK's, read by a reader of the
// test's own), a hook with metrics on records there what it records for Prometheus; without one, or without the API
// installed, nothing there.
import { execFileSync } from 'node:child_process';
import { metrics as openTelemetry } from '@opentelemetry/api';
import { MeterProvider, MetricReader, type ResourceMetrics } from '@opentelemetry/sdk-metrics';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCheckAuth, metrics, type CheckAuth } from '../../src';
import { randomSecret } from '../support/claims';
import { generateKeyPair, jwks } from '../support/keys';
import { startJwksServer } from '../support/jwks-server';
import { signToken } from '../support/tokens';

const ISSUER = 'https://idp.example/';

/** Collects on demand, as an exporter's periodic reader would on its schedule. */
class TestReader extends MetricReader {
  protected override async onShutdown(): Promise<void> {}
  protected override async onForceFlush(): Promise<void> {}
}

const secret = randomSecret();
const reader = new TestReader();
let checkAuth: CheckAuth;

beforeAll(() => {
  openTelemetry.setGlobalMeterProvider(new MeterProvider({ readers: [reader] }));
  checkAuth = createCheckAuth({ apiSecret: secret, metrics: true });
});

afterAll(() => {
  checkAuth?.close();
  openTelemetry.disable();
});

/** Each data point of the collection as `name{labels}` and its value (a histogram's count). */
async function points(): Promise<Record<string, number>> {
  const { resourceMetrics } = (await reader.collect()) as { resourceMetrics: ResourceMetrics };
  const found: Record<string, number> = {};
  for (const scope of resourceMetrics.scopeMetrics) {
    expect(scope.scope.name).toBe('cube-dual-auth');
    for (const metric of scope.metrics) {
      for (const point of metric.dataPoints) {
        const labels = Object.entries(point.attributes)
          .map(([name, value]) => `${name}="${String(value)}"`)
          .join(',');
        const value = point.value as number | { count: number };
        found[`${metric.descriptor.name}{${labels}}`] = typeof value === 'number' ? value : value.count;
      }
    }
  }
  return found;
}

describe('metrics through OpenTelemetry', () => {
  it('records the requests, refusals and durations the Prometheus side records, under the same names', async () => {
    const now = Math.floor(Date.now() / 1000);
    const token = signToken({ tenant: 'acme', iat: now, exp: now + 60 }, { alg: 'HS256', key: secret });
    const service = { headers: { 'request-origin': 'embeddable' } };
    await checkAuth(service, token);
    await checkAuth(service, token);
    await checkAuth({}, undefined).catch(() => undefined);

    const recorded = Object.entries(await points()).filter(([name]) => !name.startsWith('cube_dual_auth_secret_'));
    expect(Object.fromEntries(recorded)).toEqual({
      'cube_dual_auth_requests{path="shared-secret",outcome="accepted"}': 2,
      'cube_dual_auth_requests{path="none",outcome="refused"}': 1,
      'cube_dual_auth_refusals{path="none",code="ERR_TOKEN_MISSING"}': 1,
      'cube_dual_auth_verification_duration_seconds{path="shared-secret"}': 2,
      'cube_dual_auth_verification_duration_seconds{path="none"}': 1,
      'cube_dual_auth_token_cache_lookups{path="shared-secret",result="miss"}': 1,
      'cube_dual_auth_token_cache_lookups{path="shared-secret",result="hit"}': 1,
    });
    const prometheus = await metrics.text();
    expect(prometheus).toMatch(/^cube_dual_auth_requests_total\{path="shared-secret",outcome="accepted"\} 2$/m);
  });

  it('reports what each secrets file holds, as the Prometheus side does', async () => {
    // The API secret's fingerprint is a scrypt on the thread pool: its series comes once it is computed.
    const inForce =
      /^cube_dual_auth_secret_in_force\{file="api-secrets",source="environment",fingerprint="([0-9a-f]{16})"\} 1$/m;
    let prometheus = await metrics.text();
    while (!inForce.test(prometheus)) {
      await new Promise((resolve) => setTimeout(resolve, 10));
      prometheus = await metrics.text();
    }
    const fingerprint = inForce.exec(prometheus)?.[1];
    expect(await points()).toMatchObject({
      [`cube_dual_auth_secret_in_force{file="api-secrets",source="environment",fingerprint="${fingerprint}"}`]: 1,
      'cube_dual_auth_secret_in_force{file="sql-password",source="none",fingerprint=""}': 1,
      'cube_dual_auth_secret_kept{file="api-secrets"}': 0,
      'cube_dual_auth_secret_kept_since_seconds{file="api-secrets"}': 0,
      'cube_dual_auth_secret_generation{file="api-secrets"}': 0,
    });
  });

  it("reports an identity provider's key set: its fetches, their duration, the keys held, and its gauges", async () => {
    const key = generateKeyPair('RS256');
    const server = await startJwksServer(jwks(key));
    const hook = createCheckAuth({ providers: [{ issuer: ISSUER, jwksUri: server.url }], metrics: true });
    try {
      await hook.prefetch();
      const found = await points();
      expect(found).toMatchObject({
        [`cube_dual_auth_key_set_fetches{issuer="${ISSUER}",outcome="ok"}`]: 1,
        [`cube_dual_auth_key_set_fetch_duration_seconds{issuer="${ISSUER}"}`]: 1,
        [`cube_dual_auth_key_set_keys{issuer="${ISSUER}"}`]: 1,
        [`cube_dual_auth_key_set_serving_stale{issuer="${ISSUER}"}`]: 0,
      });
      expect(found[`cube_dual_auth_key_set_age_seconds{issuer="${ISSUER}"}`]).toBeGreaterThanOrEqual(0);
    } finally {
      hook.close();
      await server.close();
    }
  });
});

describe('metrics through OpenTelemetry, without a registered meter provider', () => {
  it("records nothing there: the API's no-op meter would cost every request for nothing", async () => {
    const { openTelemetrySink } = await import('../../src/metrics/open-telemetry');
    expect(openTelemetrySink(() => [])).toBeDefined();
    openTelemetry.disable();
    try {
      expect(openTelemetrySink(() => [])).toBeUndefined();
    } finally {
      openTelemetry.setGlobalMeterProvider(new MeterProvider({ readers: [new TestReader()] }));
    }
  });
});

describe("metrics through OpenTelemetry, with @opentelemetry/api out of the package's reach", () => {
  it('records for Prometheus as ever, and skips the OpenTelemetry side without an error', () => {
    // The API is an optional peer, absent unless the user adds it. A fresh process with the built package laid out
    // so: the package's require of the API fails as Node fails for a package not installed.
    const script = `
      const Module = require('node:module');
      const { join } = require('node:path');
      const resolve = Module._resolveFilename;
      const ours = join(process.cwd(), 'dist');
      let asked = 0;
      Module._resolveFilename = function (request, parent, ...rest) {
        if (/^@opentelemetry\\/api(\\/|$)/.test(request) && parent?.filename?.startsWith(ours)) {
          asked++;
          throw Object.assign(new Error("Cannot find module '" + request + "'"), { code: 'MODULE_NOT_FOUND' });
        }
        return resolve.call(this, request, parent, ...rest);
      };
      const { createCheckAuth, metrics } = require('./dist/index.js');
      const hook = createCheckAuth({ apiSecret: ${JSON.stringify(secret)}, metrics: true });
      const token = ${JSON.stringify(signToken({ tenant: 'acme', iat: Math.floor(Date.now() / 1000), exp: Math.floor(Date.now() / 1000) + 300 }, { alg: 'HS256', key: secret }))};
      Promise.all([hook({ headers: { 'request-origin': 'embeddable' } }, token), hook({}, undefined).catch(() => {})])
        .then(() => metrics.text())
        .then((text) => {
          const series = text.split('\\n').filter((line) => /^cube_dual_auth_requests_total/.test(line));
          process.stdout.write(JSON.stringify({ asked, series }));
          hook.close();
        });`;
    expect(JSON.parse(execFileSync(process.execPath, ['-e', script], { encoding: 'utf8' })) as unknown).toEqual({
      asked: 1,
      series: [
        'cube_dual_auth_requests_total{path="shared-secret",outcome="accepted"} 1',
        'cube_dual_auth_requests_total{path="none",outcome="refused"} 1',
      ],
    });
  });
});
