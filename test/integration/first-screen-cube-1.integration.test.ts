// The README's first screen on Cube 1.7.43 (see first-screen-scenarios.ts).
import { firstScreenScenarios } from './first-screen-scenarios';

firstScreenScenarios('1');
