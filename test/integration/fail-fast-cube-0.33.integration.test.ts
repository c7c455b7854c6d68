// A configuration that cannot work stops the real cubejs-server at start (test/integration/fail-fast-scenarios.ts), on Cube 0.33.65.
import { failFastScenarios } from './fail-fast-scenarios';

failFastScenarios('0.33');
