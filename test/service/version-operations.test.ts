import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { MAX_LISTED_VERSIONS, type EmbeddableClient } from '../../src/service';
import { createClock, type FakeClock } from '../support/clock';
import type { ContractServer } from '../support/contract-server';
import { API_KEY, clientFor, serverWithDashboard } from '../support/service-client';

let server: ContractServer;
let id: string;
let client: EmbeddableClient;
/** The service's clock: the times it writes move only when a test moves it. */
let clock: FakeClock;

beforeEach(async () => {
  clock = createClock(Date.parse('2024-03-02T09:00:00.000Z'));
  ({ server, id } = await serverWithDashboard(35, { clock: clock.now }));
  client = clientFor(server);
});
afterEach(() => server.close());

describe('saved versions', () => {
  test('list returns the last 30 versions newest first, with unknown fields kept', async () => {
    const list = await client.listSavedVersions(id);
    expect(list.savedVersions).toHaveLength(MAX_LISTED_VERSIONS);
    expect(list.savedVersions.map((v) => v.version).slice(0, 3)).toEqual(['v35', 'v34', 'v33']);
    expect(list.savedVersions.at(-1)?.version).toBe('v6');
    const times = list.savedVersions.map((v) => v['saved-at'] as string);
    expect([...times].sort().reverse()).toEqual(times);
    expect(list.savedVersions[0]).toMatchObject({
      'saved-by': 'author2@example.com',
      description: 'Change number 35',
      'cube-version': '1.2.3',
    });
    expect(list.tags).toEqual({});
  });

  test('every request carries the JSON headers and the bearer key', async () => {
    await client.listSavedVersions(id);
    const [request] = server.requests;
    expect(request?.headers).toMatchObject({
      authorization: `Bearer ${API_KEY}`,
      accept: 'application/json',
      'content-type': 'application/json',
    });
    expect(request?.path).toBe(`/api/v1/embeddables/${id}/saved-versions`);
  });

  test('the definition is returned whole, unknown fields included', async () => {
    const definition = await client.getVersionDefinition(id, 'v7');
    expect(definition.title).toBe('Sales overview (v7)');
    expect(definition.widgets[0]?.inputs[0]?.value).toBe('orders.count');
    expect(definition.layoutHints).toEqual({ columns: 12 });
    expect(server.requests[0]?.path).toBe(`/api/v1/embeddables/${id}/saved-versions/v7/metadata`);
  });

  test('publish sends the tags, returns the tag map and moves only the named tags', async () => {
    const first = await client.publishVersion(id, 'v3', ['production', 'staging', 'production']);
    expect(server.requests[0]).toMatchObject({
      method: 'POST',
      path: `/api/v1/embeddables/${id}/saved-versions/v3/publish`,
      body: { tags: ['production', 'staging'] },
    });
    expect(first.production?.version).toBe('v3');
    expect(first.staging?.version).toBe('v3');

    const moved = await client.publishVersion(id, 'v4', ['production']);
    expect(moved.production?.version).toBe('v4');
    expect(moved.staging).toEqual(first.staging);
    expect(moved.development).toBeUndefined();
  });

  test('the tag map has one field name, updatedAt, in both the list and the publish answer', async () => {
    const published = await client.publishVersion(id, 'v2', ['development']);
    const listed = await client.listSavedVersions(id);
    expect(listed.tags).toEqual(published);
    expect(listed.tags.development).toEqual({
      version: 'v2',
      updatedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT.*Z$/),
    });
    expect(Object.keys(listed.tags.development ?? {})).not.toContain('updated-at');
  });

  test('publishing again is idempotent: the tag and its time stay the same', async () => {
    const once = await client.publishVersion(id, 'v5', ['production']);
    clock.advance(5);
    const twice = await client.publishVersion(id, 'v5', ['production']);
    expect(twice).toEqual(once);
  });
});
