// Types for the TypeScript tests (the module itself is plain ESM).
/** A TCP port of 127.0.0.1 that is free right now and that no other caller of this function got in the last minute. */
export declare function freePort(): Promise<number>;
