// Types for the TypeScript tests (the module itself is plain ESM).
export declare function writePrivateFile(file: string, content: string): string;
export declare function demoEnvText(variables: Readonly<Record<string, string>>, comments?: readonly string[]): string;
export declare function writeDemoEnv(file: string, variables: Readonly<Record<string, string>>): string;
export declare const CUBE_API_URL: string;
export declare function demoCliCommands(
  paths: { readonly envFile: string; readonly serviceTokenFile: string; readonly customerTokenFile: string },
  serviceClaims: object,
  cli?: string,
): string[];
