import { inspect } from 'node:util';
import { dataProviderOperations } from './data-provider-operations';
import type { EmbeddableClient } from './embeddable-client';
import { resolveClientSettings, type EmbeddableClientOptions } from './options';
import { securityTokenOperation } from './security-token-operation';
import { createSender } from './transport';
import { versionOperations } from './version-operations';

export type { EmbeddableClient } from './embeddable-client';

/**
 * Creates a client. The options are checked here, so a missing key or a bad region fails at start-up with an
 * {@link EmbeddableValidationError} naming the option, not at the first request.
 * @example
 * const client = createEmbeddableClient({ apiKey: process.env.EMBEDDABLE_API_KEY!, region: 'us' });
 * await client.publishVersion(dashboardId, 'v7', ['production']);
 */
export function createEmbeddableClient(options: EmbeddableClientOptions): EmbeddableClient {
  const settings = resolveClientSettings(options);
  const send = createSender(settings);
  const description = `EmbeddableClient { baseUrl: ${JSON.stringify(settings.baseUrl)} }`;

  const client: EmbeddableClient = {
    baseUrl: settings.baseUrl,
    ...versionOperations(send),
    ...dataProviderOperations(send),
    ...securityTokenOperation(send),
  };

  // Printing or inspecting the client shows the base URL and nothing else; the key lives in `send` only.
  Object.defineProperties(client, {
    toString: { value: () => description },
    [inspect.custom]: { value: () => description },
  });
  return Object.freeze(client);
}
