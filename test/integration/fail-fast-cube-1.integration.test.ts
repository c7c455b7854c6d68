// A configuration that cannot work stops the real cubejs-server at start (test/integration/fail-fast-scenarios.ts), on Cube 1.7.43.
import { failFastScenarios } from './fail-fast-scenarios';

failFastScenarios('1');
