// Types for the TypeScript tests of Cube's native binary handling (the module itself is plain ESM).
import type { CubeLine } from './cube-lines.mjs';

export type NativeBinaryStatus = { readonly available: true } | { readonly available: false; readonly reason: string };

export declare function nativeBinaryStatus(projectDir: string): Promise<NativeBinaryStatus>;
export declare function ensureNativeBinary(projectDir: string): Promise<NativeBinaryStatus>;
export declare function withNativeBinary(line: CubeLine): CubeLine;
