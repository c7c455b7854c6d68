/**
 * Path parameters: no input may change which path is requested. `.` and `..` (which URL handling
 * resolves against the path) and the empty string are refused, naming the parameter, before anything is
 * sent; every other value reaches the service percent-encoded, as exactly one path segment. The
 * contract server records the request target as it arrived, before any URL handling of its own.
 */
import { beforeEach, describe, expect, test } from 'vitest';
import {
  embeddableEndpoints,
  EmbeddableApiError,
  EmbeddableValidationError,
  type EmbeddableClient,
} from '../../src/service';
import type { ContractServer } from '../support/contract-server';
import { SECRET, withDashboard } from '../support/service-client';

let server: ContractServer;
let client: EmbeddableClient;

withDashboard((made) => ({ server, client } = made), { once: true });
beforeEach(() => server.dataProviders.clear());

/** Inputs, and the segment each must become; `undefined`: refused before sending. */
const INPUTS: ReadonlyArray<readonly [string, string | undefined]> = [
  ['', undefined],
  ['.', undefined],
  ['..', undefined],
  ['\ud800', undefined],
  ['a\udc00b', undefined],
  ['a/b', 'a%2Fb'],
  ['../x', '..%2Fx'],
  ['%2e%2e', '%252e%252e'],
  ['%2E', '%252E'],
  ['?x', '%3Fx'],
  ['#', '%23'],
  ['a%', 'a%25'],
  ['\\..', '%5C..'],
  ['...', '...'],
  ['.hidden', '.hidden'],
  ['a b', 'a%20b'],
  ['ünï', '%C3%BCn%C3%AF'],
  ['😀', '%F0%9F%98%80'],
  ['main', 'main'],
];

/** The refusal's field and message, or the path the builder made. */
function built(build: () => { path: string }, field: string): string | undefined {
  try {
    return build().path;
  } catch (error) {
    expect(error).toBeInstanceOf(EmbeddableValidationError);
    const refusal = error as EmbeddableValidationError;
    expect(refusal.field).toBe(field);
    expect(refusal.message.startsWith(`${field}: must `)).toBe(true);
    return undefined;
  }
}

describe('the endpoint builders (what every client method uses)', () => {
  const uuid = '3f2a0c1e-8b9d-4e5f-a6b7-c8d9e0f1a2b3';
  const builders: ReadonlyArray<
    readonly [string, string, (value: string) => { path: string }, (segment: string) => string]
  > = [
    [
      'listSavedVersions',
      'embeddableId',
      (v) => embeddableEndpoints.listSavedVersions(v),
      (s) => `/api/v1/embeddables/${s}/saved-versions`,
    ],
    [
      'getVersionDefinition',
      'embeddableId',
      (v) => embeddableEndpoints.getVersionDefinition(v, 'v1'),
      (s) => `/api/v1/embeddables/${s}/saved-versions/v1/metadata`,
    ],
    [
      'getVersionDefinition',
      'version',
      (v) => embeddableEndpoints.getVersionDefinition(uuid, v),
      (s) => `/api/v1/embeddables/${uuid}/saved-versions/${s}/metadata`,
    ],
    [
      'publishVersion',
      'embeddableId',
      (v) => embeddableEndpoints.publishVersion(v, 'v1'),
      (s) => `/api/v1/embeddables/${s}/saved-versions/v1/publish`,
    ],
    [
      'publishVersion',
      'version',
      (v) => embeddableEndpoints.publishVersion(uuid, v),
      (s) => `/api/v1/embeddables/${uuid}/saved-versions/${s}/publish`,
    ],
    [
      'updateDataProvider',
      'name',
      (v) => embeddableEndpoints.updateDataProvider(v),
      (s) => `/api/v1/data-providers/${s}`,
    ],
    ['getDataProvider', 'name', (v) => embeddableEndpoints.getDataProvider(v), (s) => `/api/v1/data-providers/${s}`],
    [
      'deleteDataProvider',
      'name',
      (v) => embeddableEndpoints.deleteDataProvider(v),
      (s) => `/api/v1/data-providers/${s}`,
    ],
  ];

  test.each(builders)(
    '%s: its %s is refused when empty, "." or "..", and is one encoded segment otherwise',
    (_name, field, build, expected) => {
      for (const [input, segment] of INPUTS) {
        expect({ input, path: built(() => build(input), field) }).toEqual({
          input,
          path: segment === undefined ? undefined : expected(segment),
        });
      }
    },
  );

  test('the refusal names the operation it was built for', () => {
    let error: unknown;
    try {
      embeddableEndpoints.deleteDataProvider('.', 'deleteDataProvider');
    } catch (caught) {
      error = caught;
    }
    expect(error).toMatchObject({
      field: 'name',
      operation: 'deleteDataProvider',
      message:
        'name: must not be empty, "." or ".." (it is a path parameter, and URL handling would turn it into another path), got "."',
    });
  });
});

describe('the data-provider methods: what reaches the service', () => {
  /** `refused` when the client refused before sending, otherwise the requests that reached the server. */
  async function requested(call: () => Promise<unknown>, operation: string): Promise<'refused' | string[]> {
    const before = server.requests.length;
    try {
      await call();
    } catch (error) {
      if (error instanceof EmbeddableValidationError) {
        expect(error).toMatchObject({ field: 'name', operation });
        expect(server.requests.length).toBe(before);
        return 'refused';
      }
      // The server may refuse an unknown name (404); what matters is the path that reached it.
      if (!(error instanceof EmbeddableApiError)) throw error;
    }
    return server.requests.slice(before).map((r) => `${r.method} ${r.target}`);
  }

  const calls: ReadonlyArray<readonly [string, (name: string) => Promise<unknown>, (segment: string) => string[]]> = [
    [
      'updateDataProvider',
      (name) => client.updateDataProvider(name, { version: 'v1.0.0' }),
      (s) => [`PUT /api/v1/data-providers/${s}`],
    ],
    ['getDataProvider', (name) => client.getDataProvider(name), (s) => [`GET /api/v1/data-providers/${s}`]],
    ['deleteDataProvider', (name) => client.deleteDataProvider(name), (s) => [`DELETE /api/v1/data-providers/${s}`]],
    [
      'upsertDataProvider',
      (name) =>
        client.upsertDataProvider({
          name,
          version: 'v1.0.0',
          credentials: { secretKey: SECRET, instanceUrl: 'https://cube.example.com' },
        }),
      (s) => [`PUT /api/v1/data-providers/${s}`, 'POST /api/v1/data-providers'],
    ],
  ];

  test.each(calls)('%s: refused before sending, or exactly the intended path', async (operation, call, expected) => {
    for (const [input, segment] of INPUTS) {
      server.dataProviders.clear();
      expect({ input, sent: await requested(() => call(input), operation) }).toEqual({
        input,
        sent: segment === undefined ? 'refused' : expected(segment),
      });
    }
  });
});
