// Types for the TypeScript tests (the module itself is plain ESM).
import type { CubeLine } from './cube-lines.mjs';

export declare function prepareNaiveProject(line: CubeLine): string;
