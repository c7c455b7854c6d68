import { inspect } from 'node:util';
import { describe, expect, test } from 'vitest';
import { createEmbeddableClient, EmbeddableValidationError, type EmbeddableClientOptions } from '../../src/service';
import { API_KEY, expectNoSecrets } from '../support/service-client';

function optionError(options: unknown): EmbeddableValidationError {
  try {
    createEmbeddableClient(options as EmbeddableClientOptions);
  } catch (error) {
    expect(error).toBeInstanceOf(EmbeddableValidationError);
    expectNoSecrets(error);
    return error as EmbeddableValidationError;
  }
  throw new Error('expected the options to be refused');
}

describe('createEmbeddableClient options', () => {
  test('region gives https://api.<region>.embeddable.com', () => {
    expect(createEmbeddableClient({ apiKey: API_KEY, region: 'us' }).baseUrl).toBe('https://api.us.embeddable.com');
  });

  test('serviceDomain overrides the domain used with region', () => {
    expect(createEmbeddableClient({ apiKey: API_KEY, region: 'eu', serviceDomain: 'example.net' }).baseUrl).toBe(
      'https://api.eu.example.net',
    );
  });

  test('baseUrl is used as given, without a trailing slash', () => {
    expect(createEmbeddableClient({ apiKey: API_KEY, baseUrl: 'https://proxy.example.com/embeddable/' }).baseUrl).toBe(
      'https://proxy.example.com/embeddable',
    );
  });

  test('plain http is allowed for localhost only', () => {
    expect(createEmbeddableClient({ apiKey: API_KEY, baseUrl: 'http://127.0.0.1:8080' }).baseUrl).toBe(
      'http://127.0.0.1:8080',
    );
    expect(optionError({ apiKey: API_KEY, baseUrl: 'http://api.us.embeddable.com' }).field).toBe('baseUrl');
  });

  test.each([
    ['no options', undefined, 'options'],
    ['missing key', { region: 'us' }, 'apiKey'],
    ['empty key', { apiKey: '', region: 'us' }, 'apiKey'],
    ['key with a newline', { apiKey: `${API_KEY}\n`, region: 'us' }, 'apiKey'],
    ['key with a space', { apiKey: `Bearer ${API_KEY}`, region: 'us' }, 'apiKey'],
    ['neither region nor baseUrl', { apiKey: API_KEY }, 'region'],
    ['both region and baseUrl', { apiKey: API_KEY, region: 'us', baseUrl: 'https://api.us.embeddable.com' }, 'baseUrl'],
    ['bad region', { apiKey: API_KEY, region: 'us/east' }, 'region'],
    ['bad service domain', { apiKey: API_KEY, region: 'us', serviceDomain: 'exa mple.com' }, 'serviceDomain'],
    [
      'service domain with baseUrl',
      { apiKey: API_KEY, baseUrl: 'https://a.example.com', serviceDomain: 'b.com' },
      'serviceDomain',
    ],
    ['relative baseUrl', { apiKey: API_KEY, baseUrl: 'api.us.embeddable.com' }, 'baseUrl'],
    ['non-string baseUrl', { apiKey: API_KEY, baseUrl: 42 }, 'baseUrl'],
    ['baseUrl with credentials', { apiKey: API_KEY, baseUrl: 'https://user:pw@api.us.embeddable.com' }, 'baseUrl'],
    ['baseUrl with a query', { apiKey: API_KEY, baseUrl: 'https://api.us.embeddable.com?x=1' }, 'baseUrl'],
    ['baseUrl ending in /api/v1', { apiKey: API_KEY, baseUrl: 'https://api.us.embeddable.com/api/v1/' }, 'baseUrl'],
    ['ftp baseUrl', { apiKey: API_KEY, baseUrl: 'ftp://api.us.embeddable.com' }, 'baseUrl'],
    ['zero timeout', { apiKey: API_KEY, region: 'us', timeoutMs: 0 }, 'timeoutMs'],
    ['fractional timeout', { apiKey: API_KEY, region: 'us', timeoutMs: 1.5 }, 'timeoutMs'],
    ['negative retries', { apiKey: API_KEY, region: 'us', retries: -1 }, 'retries'],
    ['string retry delay', { apiKey: API_KEY, region: 'us', retryDelayMs: '10' }, 'retryDelayMs'],
    ['fetch not a function', { apiKey: API_KEY, region: 'us', fetch: 'nope' }, 'fetch'],
    ['zero maxResponseBytes', { apiKey: API_KEY, region: 'us', maxResponseBytes: 0 }, 'maxResponseBytes'],
    ['fractional maxResponseBytes', { apiKey: API_KEY, region: 'us', maxResponseBytes: 1024.5 }, 'maxResponseBytes'],
    ['string maxResponseBytes', { apiKey: API_KEY, region: 'us', maxResponseBytes: '1024' }, 'maxResponseBytes'],
    [
      'maxResponseBytes over 256 MiB',
      { apiKey: API_KEY, region: 'us', maxResponseBytes: 256 * 1024 * 1024 + 1 },
      'maxResponseBytes',
    ],
  ])('%s is refused naming the option', (_name, options, field) => {
    const error = optionError(options);
    expect(error.field).toBe(field);
    expect(error.message.startsWith(`${field}: `)).toBe(true);
  });

  test('the key does not appear when the client is printed, inspected or serialised', () => {
    const client = createEmbeddableClient({ apiKey: API_KEY, region: 'us' });
    for (const text of [
      String(client),
      `${client}`,
      inspect(client, { showHidden: true, depth: 10 }),
      JSON.stringify(client),
    ]) {
      expect(text).not.toContain(API_KEY);
    }
    expect(String(client)).toBe('EmbeddableClient { baseUrl: "https://api.us.embeddable.com" }');
    expect(Object.isFrozen(client)).toBe(true);
  });
});
