// Types for the TypeScript tests that start Cube (the module itself is plain ESM).
import type { CubeLine } from './cube-lines.mjs';

export interface RunningCube {
  /** http://127.0.0.1:<port> */
  readonly url: string;
  /** http://127.0.0.1:<port>/cubejs-api/v1 */
  readonly apiUrl: string;
  /** ws://127.0.0.1:<port>/ */
  readonly webSocketUrl: string;
  readonly port: number;
  readonly pid: number;
  /** Resolves with the exit code (or signal) when cubejs-server exits. */
  readonly exited: Promise<number | string>;
  stop(): Promise<void>;
  /** The last lines Cube printed, tokens and secret masked. */
  recentLogs(): string;
}

export declare function exampleCubeEnvironment(): Record<string, string>;

export declare function startCube(options: {
  /** Where Cube runs: cube.js, model/. */
  projectDir: string;
  /** Holds the node_modules/ with Cube, when not projectDir (Cube's Docker image layout; give NODE_PATH in env). */
  cubeDir?: string;
  /** The Cube line installed in projectDir (default 1.7.43). */
  line?: CubeLine;
  env: Record<string, string>;
  redact: (line: string) => string;
  onLine?: (line: string) => void;
}): Promise<RunningCube>;
