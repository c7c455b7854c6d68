// Metrics end to end, scraped by a real Prometheus (test/integration/metrics-scenarios.ts), on Cube 0.33.65.
import { metricsScenarios } from './metrics-scenarios';

metricsScenarios('0.33');
