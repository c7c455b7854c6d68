// Types for the TypeScript tests that start the demo's scene (the module itself is plain ESM).
import type { CubeLine } from './cube-lines.mjs';
import type { RunningCube } from './cube-server.mjs';
import type { RunningIdentityProvider } from './identity-provider.mjs';

export type { RunningCube, RunningIdentityProvider };
export declare const CUBE_AUDIENCE: string;
export declare const CLAIMS_NAMESPACE: string;
export declare const TENANT_CLAIMS: {
  readonly CUBE_DUAL_AUTH_TENANT_CLAIM: string;
  readonly CUBE_DUAL_AUTH_SERVICE_TENANT_CLAIM: string;
};
export declare const SERVICE_VIEWER: { readonly tenant: string };
export declare const CUSTOMER_APP: {
  readonly clientId: string;
  readonly claims: { readonly tenant: string; readonly region: string };
  readonly tokenLifetimeSeconds: number;
};
export declare const ORDERS_BY_TENANT_AND_REGION: {
  readonly measures: string[];
  readonly dimensions: string[];
  readonly order: Record<string, 'asc' | 'desc'>;
};

export interface Stack {
  readonly cube: RunningCube;
  readonly identityProvider: RunningIdentityProvider;
  /** The shared secret (CUBEJS_API_SECRET) of this run: random, never printed. */
  readonly apiSecret: string;
  /** The hook's settings Cube runs with (CUBEJS_API_SECRET, CUBEJS_JWK_URL, ...): never printed. */
  readonly authEnvironment: Readonly<Record<string, string>>;
  /** Masks tokens and the API secret in a line of text. */
  redact(line: string): string;
  serviceToken(securityContext?: Record<string, unknown>, options?: { expiresInSeconds?: number }): string;
  /** `{ 'Request-Origin': 'embeddable' }` */
  readonly serviceHeaders: Readonly<Record<string, string>>;
  customerToken(): Promise<string>;
  expiredCustomerToken(): Promise<string>;
  stop(): Promise<void>;
}

export declare function startStack(options: {
  projectDir: string;
  /** Holds the node_modules/ with Cube, when not projectDir (Cube's Docker image layout; give NODE_PATH in env). */
  cubeDir?: string;
  /** The Cube line installed in projectDir (default 1.7.43). */
  line?: CubeLine;
  onCubeLine?: (line: string) => void;
  /** More environment for Cube, over the stack's own; a function gets the stack's identity provider (to name its issuer). */
  env?: Record<string, string> | ((identityProvider: RunningIdentityProvider) => Promise<Record<string, string>>);
}): Promise<Stack>;
