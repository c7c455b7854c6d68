// The README's "Cube 0.33, start to finish" on Cube 0.33.65 (see readme-paths-scenarios.ts).
import { readmePathScenarios } from './readme-paths-scenarios';

readmePathScenarios('0.33');
