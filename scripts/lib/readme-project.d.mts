// Types for the TypeScript tests that set up a project as the README does (the module itself is plain ESM).

export declare function prepareReadmeProject(options: {
  lineDir: string;
  name: string;
  cubeJs: string;
  modelDir: string;
}): Promise<{ dir: string; database: string; remove(): void }>;

export declare function readmeEnvironment(
  identityProvider: { jwksUrl: string; issuer: string; audience: string },
  apiSecret: string,
  database: string,
): Record<string, string>;
