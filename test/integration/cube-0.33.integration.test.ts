// Cube 0.33.65, unpatched: the shared end-to-end scenarios (see real-cube-scenarios.ts).
import { realCubeScenarios } from './real-cube-scenarios';

realCubeScenarios('0.33');
