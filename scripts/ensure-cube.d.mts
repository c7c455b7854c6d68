// Types for the TypeScript tests that call the install step (the script itself is plain ESM).
import type { CubeLine } from './lib/cube-lines.mjs';
import type { NativeBinaryStatus } from './lib/cube-native.mjs';

export declare const repoRoot: string;
export declare const exampleProject: string;

export interface EnsureCubeResult {
  readonly projectDir: string;
  readonly line: CubeLine;
  /** Cube was (re)installed and sqlite3 built. */
  readonly installedCube: boolean;
  /** The current package build was packed and installed into the example. */
  readonly installedPackage: boolean;
  /** With `nativeBinary: true`, for a line that runs behind a preload: whether Cube's native binary is installed and loads. */
  readonly nativeBinary?: NativeBinaryStatus;
}

export declare function ensureCube(options?: {
  /** "1" (default) or "0.33". */
  line?: string;
  out?: NodeJS.WritableStream & { isTTY?: boolean };
  /** Also try to install Cube's native binary, for a line that runs behind a preload (the demo does). */
  nativeBinary?: boolean;
}): Promise<EnsureCubeResult>;

/** `npm pack` of the current build (dist/ must be built) into `destination`, emptied first; resolves with the tarball's path. */
export declare function packPackage(destination: string): Promise<string>;
