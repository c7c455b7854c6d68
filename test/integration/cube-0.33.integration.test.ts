// Cube 0.33.65, unpatched: the shared end-to-end scenarios (see real-cube-scenarios.ts).
import { realCubeScenarios } from './real-cube-scenarios';
import { severalProvidersScenarios } from './several-providers-scenarios';

realCubeScenarios('0.33');
severalProvidersScenarios('0.33');
