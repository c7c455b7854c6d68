// Types for the TypeScript tests (the module itself is plain ESM).
export declare const CLI_REFERENCE: string;
export declare function cliReference(dist?: string): Promise<string>;
