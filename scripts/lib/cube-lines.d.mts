// Types for the TypeScript tests that choose a Cube line (the module itself is plain ESM).
export interface CubeLine {
  /** "0.33" or "1" */
  readonly id: string;
  /** The exact Cube version installed. */
  readonly version: string;
  readonly manifestDir: string;
  /** Where Cube is installed and runs (cube.js, model/, data/, node_modules/). */
  readonly projectDir: string;
  /** The `--require` preload, when the line needs one. */
  readonly preload: string | undefined;
  /** The least Node major the line's `cubejs-server` bin starts on (below it, the entry behind the bin's check runs). */
  readonly binNodeMajor: number | undefined;
  readonly env: Readonly<Record<string, string>>;
}

export declare const CUBE_LINES: Readonly<Record<string, CubeLine>>;
export declare const DEFAULT_CUBE_LINE: string;
export declare const EXAMPLE_FILES: readonly string[];
export declare const exampleProject: string;
export declare function cubeLine(id?: string): CubeLine;
export declare function serverCommand(line: CubeLine, nodeMajor?: number): { command: string; args: string[] };
