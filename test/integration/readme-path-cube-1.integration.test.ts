// The README's "Cube 1.x, start to finish" on Cube 1.7.43 (see readme-paths-scenarios.ts).
import { readmePathScenarios } from './readme-paths-scenarios';

readmePathScenarios('1');
