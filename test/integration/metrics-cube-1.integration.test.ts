// Metrics end to end, scraped by a real Prometheus (test/integration/metrics-scenarios.ts), on Cube 1.7.43.
import { metricsScenarios } from './metrics-scenarios';

metricsScenarios('1');
