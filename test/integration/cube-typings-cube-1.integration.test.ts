// A cube.ts typed with Cube's CreateOptions compiles (test/integration/cube-typings-scenarios.ts), on Cube 1.7.43.
import { cubeTypingsScenarios } from './cube-typings-scenarios';

cubeTypingsScenarios('1');
