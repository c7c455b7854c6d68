// Events into metrics, with a sink that keeps what it is given: the labels each event gives, the key-set gauges read
// from a fake clock (no waiting), and nothing from a provider nobody configured.
import { describe, expect, it } from 'vitest';
import type { RecordedName, Sink } from '../../src/metrics/catalog';
import { Instruments, MetricsRecorder } from '../../src/metrics/recorder';
import type { AuthEvent } from '../../src/events';
import { createClock } from '../support/clock';

const ISSUER = 'https://idp.example/';

function recorder(tokenCache = true) {
  const recorded: Array<[RecordedName, readonly string[], number]> = [];
  const bindings: string[] = [];
  const sink: Sink = {
    series(metric, labels) {
      bindings.push(`${metric}${JSON.stringify(labels)}`);
      return (value) => recorded.push([metric, labels, value]);
    },
  };
  const clock = createClock(1_000);
  const seconds = () => clock.now() / 1000;
  const metrics = new MetricsRecorder(new Instruments([sink]), {
    issuers: new Map([[ISSUER, ISSUER]]),
    tokenCache,
    clock: seconds,
  });
  const send = (...events: AuthEvent[]) => events.forEach((event) => metrics.listener(event));
  return { recorded, bindings, clock, metrics, send };
}

describe('MetricsRecorder', () => {
  it('counts an accepted request by path, its duration in seconds and whether the cache answered', () => {
    const { recorded, send } = recorder();
    send({ type: 'accepted', path: 'key-set', kid: 'k1', issuer: ISSUER, cached: false, durationMs: 2 });
    send({ type: 'accepted', path: 'shared-secret', cached: true, durationMs: 0.5 });
    expect(recorded).toEqual([
      ['requests', ['key-set', 'accepted'], 1],
      ['verificationDuration', ['key-set'], 0.002],
      ['tokenCache', ['key-set', 'miss'], 1],
      ['requests', ['shared-secret', 'accepted'], 1],
      ['verificationDuration', ['shared-secret'], 0.0005],
      ['tokenCache', ['shared-secret', 'hit'], 1],
    ]);
  });

  it("counts the SQL API's re-authentications: accepted, or refused by code; nothing else is recorded for them", () => {
    const { recorded, send } = recorder();
    send({ type: 'sql-reauthenticated', durationMs: 0.1 });
    send({
      type: 'sql-reauthentication-refused',
      code: 'ERR_TOKEN_EXPIRED',
      message: 'm',
      durationMs: 0.1,
      protocol: 'postgres',
      method: 'password',
    });
    expect(recorded).toEqual([
      ['sqlReauthentications', ['accepted'], 1],
      ['sqlReauthentications', ['ERR_TOKEN_EXPIRED'], 1],
    ]);
  });

  it('counts the reloads of the secrets directory by file and outcome', () => {
    const { recorded, send } = recorder();
    send({ type: 'secret-reload', file: 'api-secrets', outcome: 'applied', values: 2 });
    send({ type: 'secret-reload', file: 'sql-password', outcome: 'invalid', reason: 'holds 2 lines' });
    expect(recorded).toEqual([
      ['secretReloads', ['api-secrets', 'applied'], 1],
      ['secretReloads', ['sql-password', 'invalid'], 1],
    ]);
  });

  it('counts a refusal that keeps one user name to one identity by reason, protocol and method', () => {
    const { recorded, send } = recorder();
    const refused = {
      type: 'sql-reauthentication-refused',
      code: 'ERR_FORBIDDEN',
      message: 'm',
      durationMs: 0.1,
    } as const;
    send({ ...refused, protocol: 'xmla', method: 'ntlm', reason: 'protocol' });
    send({ ...refused, protocol: 'postgres', method: 'password', reason: 'drift' });
    send({ type: 'sql-login', kind: 'token', outcome: 'refused', code: 'ERR_FORBIDDEN', reason: 'capacity' });
    expect(recorded).toEqual([
      ['sqlRefusals', ['protocol', 'xmla', 'ntlm'], 1],
      ['sqlReauthentications', ['ERR_FORBIDDEN'], 1],
      ['sqlRefusals', ['drift', 'postgres', 'password'], 1],
      ['sqlReauthentications', ['ERR_FORBIDDEN'], 1],
      ['sqlLogins', ['token', 'refused'], 1],
      ['sqlRefusals', ['capacity', 'postgres', 'password'], 1],
    ]);
  });

  it('counts a refusal by path and code; a request without a token under path "none", which never asked the cache', () => {
    const { recorded, send } = recorder();
    send({ type: 'rejected', path: 'shared-secret', code: 'ERR_SIGNATURE_INVALID', message: 'm', durationMs: 1 });
    send({ type: 'rejected', code: 'ERR_TOKEN_MISSING', message: 'm', durationMs: 1 });
    expect(recorded).toEqual([
      ['requests', ['shared-secret', 'refused'], 1],
      ['refusals', ['shared-secret', 'ERR_SIGNATURE_INVALID'], 1],
      ['verificationDuration', ['shared-secret'], 0.001],
      ['tokenCache', ['shared-secret', 'miss'], 1],
      ['requests', ['none', 'refused'], 1],
      ['refusals', ['none', 'ERR_TOKEN_MISSING'], 1],
      ['verificationDuration', ['none'], 0.001],
    ]);
  });

  it('counts no cache lookups while the cache is off', () => {
    const { recorded, send } = recorder(false);
    send({ type: 'accepted', path: 'shared-secret', cached: false, durationMs: 1 });
    expect(recorded.map(([metric]) => metric)).not.toContain('tokenCache');
  });

  it('binds each series once, however many requests it counts', () => {
    const { bindings, send } = recorder();
    for (let i = 0; i < 100; i++)
      send({
        type: 'rejected',
        path: 'key-set',
        code: 'ERR_KID_UNKNOWN',
        message: 'm',
        kid: `kid-${i}`,
        durationMs: 1,
      });
    expect(bindings).toEqual([
      'requests["key-set","refused"]',
      'refusals["key-set","ERR_KID_UNKNOWN"]',
      'verificationDuration["key-set"]',
      'tokenCache["key-set","miss"]',
    ]);
  });

  it("reports a provider's key set: fetches by outcome, keys held, seconds since the last success by the clock, stale while served after a failure", () => {
    const { recorded, clock, metrics, send } = recorder();
    const gauges = () => ({
      age: metrics.readings('keySetAge'),
      keys: metrics.readings('keySetKeys'),
      stale: metrics.readings('keySetServingStale'),
    });
    expect(gauges()).toEqual({
      age: [],
      keys: [{ labels: [ISSUER], value: 0 }],
      stale: [{ labels: [ISSUER], value: 0 }],
    });

    send({ type: 'jwks-refreshed', jwksUri: 'u', issuer: ISSUER, kids: ['a', 'b'], skipped: 0, durationMs: 40 });
    clock.advance(90_000);
    expect(gauges()).toEqual({
      age: [{ labels: [ISSUER], value: 90 }],
      keys: [{ labels: [ISSUER], value: 2 }],
      stale: [{ labels: [ISSUER], value: 0 }],
    });

    send({
      type: 'jwks-refresh-failed',
      jwksUri: 'u',
      issuer: ISSUER,
      code: 'ERR_JWKS_UNREACHABLE',
      message: 'm',
      servingStale: true,
      durationMs: 5,
    });
    clock.advance(10_000);
    expect(gauges()).toEqual({
      age: [{ labels: [ISSUER], value: 100 }],
      keys: [{ labels: [ISSUER], value: 2 }],
      stale: [{ labels: [ISSUER], value: 1 }],
    });

    send({ type: 'jwks-refreshed', jwksUri: 'u', issuer: ISSUER, kids: ['b'], skipped: 0, durationMs: 40 });
    expect(gauges()).toEqual({
      age: [{ labels: [ISSUER], value: 0 }],
      keys: [{ labels: [ISSUER], value: 1 }],
      stale: [{ labels: [ISSUER], value: 0 }],
    });
    expect(recorded.filter(([metric]) => metric === 'keySetFetches')).toEqual([
      ['keySetFetches', [ISSUER, 'ok'], 1],
      ['keySetFetches', [ISSUER, 'ERR_JWKS_UNREACHABLE'], 1],
      ['keySetFetches', [ISSUER, 'ok'], 1],
    ]);
    expect(recorded.filter(([metric]) => metric === 'keySetFetchDuration')).toEqual([
      ['keySetFetchDuration', [ISSUER], 0.04],
      ['keySetFetchDuration', [ISSUER], 0.005],
      ['keySetFetchDuration', [ISSUER], 0.04],
    ]);
  });

  it('counts discovery by issuer and outcome', () => {
    const { recorded, send } = recorder();
    send({ type: 'discovery', issuer: ISSUER, jwksUri: 'u', durationMs: 3 });
    send({ type: 'discovery', issuer: ISSUER, code: 'ERR_JWKS_TIMEOUT', durationMs: 3 });
    expect(recorded).toEqual([
      ['discoveryFetches', [ISSUER, 'ok'], 1],
      ['discoveryFetches', [ISSUER, 'ERR_JWKS_TIMEOUT'], 1],
    ]);
  });

  it('records nothing for an issuer that was not configured: no label comes from anywhere else', () => {
    const { recorded, metrics, send } = recorder();
    send({
      type: 'jwks-refreshed',
      jwksUri: 'u',
      issuer: 'https://other.example/',
      kids: ['a'],
      skipped: 0,
      durationMs: 1,
    });
    send({ type: 'discovery', issuer: 'https://other.example/', durationMs: 1 });
    expect(recorded).toEqual([]);
    expect(metrics.readings('keySetKeys')).toEqual([{ labels: [ISSUER], value: 0 }]);
  });
});
