/** The hook's metrics line (docs/metrics.md). */
import type { ResolvedOptions } from '../../config/options';
import { ENV, readEnv } from '../../config/env';
import { check, type Check } from '../check';

/** Cube's REST API port when `PORT` does not say: the port its own metrics listener must not take. */
const CUBE_DEFAULT_PORT = 4000;

/**
 * A metrics port that is Cube's own API port cannot work: one of the two listeners would not start. Undefined while
 * metrics are off, the default.
 */
export function metricsCheck(env: NodeJS.ProcessEnv, options: ResolvedOptions): Check | undefined {
  const { metricsPort, metricsHost, metrics } = options;
  if (metricsPort === undefined) {
    return metrics
      ? check(
          'metrics',
          'ok',
          `recorded without a listener (${ENV.metrics}=true): for OpenTelemetry, or the package's metrics served where you mount them`,
        )
      : undefined;
  }
  const cubePort = Number(readEnv(env, 'PORT') ?? CUBE_DEFAULT_PORT);
  if (metricsPort === cubePort) {
    return check(
      'metrics',
      'fail',
      `${ENV.metricsPort} is ${metricsPort}, Cube's own API port (PORT): give the metrics a port of their own`,
    );
  }
  const host = metricsHost.includes(':') ? `[${metricsHost}]` : metricsHost;
  return check(
    'metrics',
    'ok',
    `GET /metrics on ${host}:${metricsPort} (${ENV.metricsPort}, ${ENV.metricsHost}), a listener of its own beside Cube's API`,
  );
}
