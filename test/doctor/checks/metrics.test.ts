import { describe, expect, it } from 'vitest';
import { diagnose } from '../../../src/doctor';
import { randomSecret } from '../../support/claims';
import { diagnoseFixture } from '../../support/diagnose';

const SECRET = randomSecret();
const fixture = diagnoseFixture();

describe('diagnose: metrics', () => {
  const metricsOf = async (env: NodeJS.ProcessEnv) =>
    (await diagnose({ CUBEJS_API_SECRET: SECRET, ...env }, fixture.cubeProject)).checks.find(
      ({ id }) => id === 'metrics',
    );

  it('says nothing of them while they are off, the default', async () => {
    expect(await metricsOf({})).toBeUndefined();
    expect(await metricsOf({ CUBE_DUAL_AUTH_METRICS: 'false' })).toBeUndefined();
  });

  it('says where GET /metrics is served, or that they are recorded without a listener', async () => {
    expect(await metricsOf({ CUBE_DUAL_AUTH_METRICS_PORT: '9464' })).toEqual({
      id: 'metrics',
      status: 'ok',
      message:
        "GET /metrics on 127.0.0.1:9464 (CUBE_DUAL_AUTH_METRICS_PORT, CUBE_DUAL_AUTH_METRICS_HOST), a listener of its own beside Cube's API",
    });
    expect(
      (await metricsOf({ CUBE_DUAL_AUTH_METRICS_PORT: '9464', CUBE_DUAL_AUTH_METRICS_HOST: '::1' }))?.message,
    ).toContain('GET /metrics on [::1]:9464 ');
    expect(await metricsOf({ CUBE_DUAL_AUTH_METRICS: 'true' })).toMatchObject({
      status: 'ok',
      message: expect.stringMatching(/^recorded without a listener \(CUBE_DUAL_AUTH_METRICS=true\)/),
    });
  });

  it("fails a metrics port that is Cube's own API port (PORT, 4000 unless set)", async () => {
    expect(await metricsOf({ CUBE_DUAL_AUTH_METRICS_PORT: '4000' })).toMatchObject({
      status: 'fail',
      message: "CUBE_DUAL_AUTH_METRICS_PORT is 4000, Cube's own API port (PORT): give the metrics a port of their own",
    });
    expect(await metricsOf({ CUBE_DUAL_AUTH_METRICS_PORT: '8080', PORT: '8080' })).toMatchObject({ status: 'fail' });
    expect(await metricsOf({ CUBE_DUAL_AUTH_METRICS_PORT: '4000', PORT: '8080' })).toMatchObject({ status: 'ok' });
  });
});
