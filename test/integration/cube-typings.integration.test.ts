// A cube.ts typed with Cube's CreateOptions compiles (test/integration/cube-typings-scenarios.ts), against the typings
// of each Cube line. The compiler reads the same files on every Node, so this runs once (docs/development.md#tests).
import { cubeTypingsScenarios } from './cube-typings-scenarios';

cubeTypingsScenarios('0.33');
cubeTypingsScenarios('1');
