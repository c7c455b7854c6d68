// Types for the TypeScript tests (the module itself is plain ESM).
export declare function createRedactor(secrets?: readonly string[]): (line: string) => string;
