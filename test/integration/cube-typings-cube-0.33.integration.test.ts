// A cube.ts typed with Cube's CreateOptions compiles (test/integration/cube-typings-scenarios.ts), on Cube 0.33.65.
import { cubeTypingsScenarios } from './cube-typings-scenarios';

cubeTypingsScenarios('0.33');
