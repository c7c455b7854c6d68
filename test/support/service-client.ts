/** The service client's tests: a contract server with a dashboard, a client for it, and the secrets no error may show. */
import { inspect } from 'node:util';
import { afterAll, afterEach, beforeAll, beforeEach, expect } from 'vitest';
import { createEmbeddableClient, type EmbeddableClient, type EmbeddableClientOptions } from '../../src/service';
import { startContractServer, type ContractServer, type ContractServerOptions } from './contract-server';

export const API_KEY = 'emb_test_9f8e7d6c5b4a39281706f5e4d3c2b1a0';
export const SECRET = 'cube-secret-Zq81LmA0pX7rT2';

/** A running contract server (with `options`) with one dashboard of `versions` saved versions. */
export async function serverWithDashboard(
  versions = 5,
  options: Omit<ContractServerOptions, 'apiKey'> = {},
): Promise<{ server: ContractServer; id: string }> {
  const server = await startContractServer({ ...options, apiKey: API_KEY });
  return { server, id: server.addDashboard(versions) };
}

/** A client for the server, with fast retries so that tests do not wait. */
export function clientFor(server: ContractServer, options: Partial<EmbeddableClientOptions> = {}) {
  return createEmbeddableClient({ apiKey: API_KEY, baseUrl: server.baseUrl, retryDelayMs: 1, ...options });
}

/** A contract server with one dashboard, and a client for it. */
export interface Dashboard {
  readonly server: ContractServer;
  readonly id: string;
  readonly client: EmbeddableClient;
}

/**
 * Gives the calling file or `describe` block a contract server with one dashboard of `versions` saved versions and a
 * client for it, handed to `use` before each test (with `once`, before all of them: a suite that only reads), and
 * closes the server after.
 */
export function withDashboard(
  use: (dashboard: Dashboard) => void,
  { versions = 5, once = false }: { versions?: number; once?: boolean } = {},
): void {
  let server: ContractServer | undefined;
  (once ? beforeAll : beforeEach)(async () => {
    const made = await serverWithDashboard(versions);
    server = made.server;
    use({ ...made, client: clientFor(made.server) });
  });
  (once ? afterAll : afterEach)(() => server?.close());
}

/** Asserts that no rendering of the error (message, stack, inspect with causes) contains a secret. */
export function expectNoSecrets(error: unknown, secrets: readonly string[] = [API_KEY, SECRET]): void {
  const renderings = [
    String(error),
    (error as Error).stack ?? '',
    inspect(error, { depth: 10 }),
    JSON.stringify(error),
  ];
  for (const secret of secrets) for (const text of renderings) expect(text).not.toContain(secret);
}
