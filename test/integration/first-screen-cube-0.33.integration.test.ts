// The README's first screen on Cube 0.33.65 (see first-screen-scenarios.ts).
import { firstScreenScenarios } from './first-screen-scenarios';

firstScreenScenarios('0.33');
