/**
 * Promote and rollback as a library, against the contract server: what is read and published, how many
 * requests, and the refusals (tag not set, no older version, bad input, service errors).
 */
import { describe, expect, test } from 'vitest';
import {
  EmbeddableApiError,
  EmbeddableResponseError,
  EmbeddableStateError,
  EmbeddableValidationError,
  type EmbeddableClient,
} from '../../src/service';
import type { ContractServer } from '../support/contract-server';
import { expectNoSecrets, withDashboard } from '../support/service-client';
import { rejectionOf } from '../support/requests';

let server: ContractServer;
let id: string;
let client: EmbeddableClient;

withDashboard((made) => ({ server, id, client } = made), { versions: 8 });

/** The requests sent since the test's own set-up, as `METHOD path-after-the-dashboard`. */
function sent(from = 0): string[] {
  return server.requests.slice(from).map((r) => `${r.method} ${r.path.replace(`/api/v1/embeddables/${id}`, '')}`);
}

/** A refusal of our own, before any request. */
async function invalid(call: Promise<unknown>, field: string, code?: string): Promise<void> {
  const error = await rejectionOf(call, Error);
  expect(error).toBeInstanceOf(EmbeddableValidationError);
  expect(error).toMatchObject({ field, code });
  expect(server.requests).toHaveLength(0);
}

/** A refusal because of the dashboard's tags: the list was read, nothing published. */
async function stateRefusal(call: () => Promise<unknown>, code: string): Promise<EmbeddableStateError> {
  const published = server.requestsTo('POST', '/publish').length;
  const error = await rejectionOf(call(), Error);
  expect(error).toBeInstanceOf(EmbeddableStateError);
  expect((error as EmbeddableStateError).code).toBe(code);
  expectNoSecrets(error);
  expect(server.requestsTo('POST', '/publish')).toHaveLength(published);
  return error as EmbeddableStateError;
}

describe('promoteVersion', () => {
  test('publishes the version the from tag points to onto the to tags: one list, one publish', async () => {
    await client.publishVersion(id, 'v6', ['production']);
    await client.publishVersion(id, 'v8', ['staging']);
    const before = server.requests.length;

    const promotion = await client.promoteVersion(id, 'staging', ['production', 'development']);

    expect(sent(before)).toEqual(['GET /saved-versions', 'POST /saved-versions/v8/publish']);
    expect(server.requests.at(-1)?.body).toEqual({ tags: ['production', 'development'] });
    expect(promotion).toMatchObject({
      version: 'v8',
      from: 'staging',
      to: ['production', 'development'],
      previous: { production: 'v6', development: null },
    });
    expect(promotion.tags).toEqual({
      staging: { version: 'v8', updatedAt: expect.any(String) },
      production: { version: 'v8', updatedAt: expect.any(String) },
      development: { version: 'v8', updatedAt: expect.any(String) },
    });
    expect(server.dashboards.get(id)?.tags.get('production')?.version).toBe('v8');
  });

  test('run again, it changes nothing (publish is idempotent)', async () => {
    await client.publishVersion(id, 'v8', ['staging']);
    const first = await client.promoteVersion(id, 'staging', ['production']);
    const second = await client.promoteVersion(id, 'staging', ['production']);
    expect(second.tags).toEqual(first.tags);
    expect(second.previous).toEqual({ production: 'v8' });
  });

  test('refuses when the from tag is not set, after reading the list only', async () => {
    await client.publishVersion(id, 'v3', ['production']);
    const before = server.requests.length;
    const error = await stateRefusal(() => client.promoteVersion(id, 'staging', ['production']), 'ERR_TAG_ABSENT');
    expect(error.message).toBe(
      'promoteVersion refused: staging is not set on this dashboard (no version was published to it), so there is nothing to promote; publish a version to it first',
    );
    expect(sent(before)).toEqual(['GET /saved-versions']);
    expect(server.dashboards.get(id)?.tags.get('production')?.version).toBe('v3');
  });

  test.each([
    ['not-a-uuid', 'staging', ['production'], 'embeddableId', undefined],
    [undefined, 'qa', ['production'], 'from', undefined],
    [undefined, 'v3', ['production'], 'from', undefined],
    [undefined, 'staging', [], 'to', 'BUILDER-996'],
    [undefined, 'staging', ['production', 'qa'], 'to', 'BUILDER-117'],
    [undefined, 'staging', ['staging', 'production'], 'to', undefined],
  ])('dashboard %j, from %j, to %j: refused before sending (%s)', async (badId, from, to, field, code) => {
    await invalid(client.promoteVersion(badId ?? id, from, to), field, code);
  });

  test('a service error while publishing is reported under promoteVersion', async () => {
    await client.publishVersion(id, 'v8', ['staging']);
    server.fail({
      method: 'POST',
      path: '/publish',
      times: 1,
      action: { status: 401, body: '{"errorCode":"BUILDER-998"}' },
    });
    const error = await rejectionOf(client.promoteVersion(id, 'staging', ['production']), Error);
    expect(error).toBeInstanceOf(EmbeddableApiError);
    expect(error).toMatchObject({ operation: 'promoteVersion', status: 401, code: 'BUILDER-998' });
    expectNoSecrets(error);
  });

  test('a failing list is retried like any list; no publish without it', async () => {
    await client.publishVersion(id, 'v8', ['staging']);
    const before = server.requests.length;
    server.fail({ method: 'GET', times: 3, action: { status: 503 } });
    const error = await rejectionOf(client.promoteVersion(id, 'staging', ['production']), Error);
    expect(error).toMatchObject({ operation: 'promoteVersion', status: 503, attempts: 3 });
    expect(sent(before)).toEqual(['GET /saved-versions', 'GET /saved-versions', 'GET /saved-versions']);
  });
});

describe('rollbackTag', () => {
  test('without a target: to the newest version saved before the current one; one list, one publish', async () => {
    await client.publishVersion(id, 'v8', ['production', 'staging']);
    const before = server.requests.length;
    const rollback = await client.rollbackTag(id, 'production');
    expect(rollback).toEqual({
      tag: 'production',
      from: 'v8',
      to: 'v7',
      tags: expect.objectContaining({ production: expect.objectContaining({ version: 'v7' }) }),
    });
    expect(rollback.tags.staging?.version).toBe('v8');
    expect(sent(before)).toEqual(['GET /saved-versions', 'POST /saved-versions/v7/publish']);
    expect(server.requests.at(-1)?.body).toEqual({ tags: ['production'] });
    // Not idempotent: each run goes one further back.
    expect((await client.rollbackTag(id, 'production')).to).toBe('v6');
  });

  test('with a target: to that version, whatever its age', async () => {
    await client.publishVersion(id, 'v5', ['production']);
    expect(await client.rollbackTag(id, 'production', 'v2')).toMatchObject({ from: 'v5', to: 'v2' });
    expect(await client.rollbackTag(id, 'production', 'v2')).toMatchObject({ from: 'v2', to: 'v2' });
  });

  test('the previous version is chosen by saved-at, not by label or list position', async () => {
    const list = {
      tags: { production: { version: 'v9', 'updated-at': '2024-04-01T00:00:00.000Z' } },
      'saved-versions': [
        { version: 'v4', 'saved-at': '2024-03-05T00:00:00.000Z' },
        { version: 'v9', 'saved-at': '2024-03-04T00:00:00.000Z' },
        { version: 'v2', 'saved-at': '2024-03-01T00:00:00.000Z' },
        { version: 'v7', 'saved-at': '2024-03-03T12:00:00.000Z' },
        { version: 'v8', 'saved-at': '2024-03-04T00:00:00.000Z' },
      ],
    };
    server.fail({ method: 'GET', times: 1, action: { status: 200, body: JSON.stringify(list) } });
    server.fail({
      method: 'POST',
      times: 1,
      action: {
        status: 200,
        body: JSON.stringify({ tags: { production: { version: 'v7', updatedAt: '2024-04-02T00:00:00.000Z' } } }),
      },
    });
    expect(await client.rollbackTag(id, 'production')).toMatchObject({ from: 'v9', to: 'v7' });
    expect(server.requests.at(-1)?.path).toContain('/saved-versions/v7/publish');
  });

  test('refuses when the tag is not set', async () => {
    await client.publishVersion(id, 'v8', ['staging']);
    const error = await stateRefusal(() => client.rollbackTag(id, 'production'), 'ERR_TAG_ABSENT');
    expect(error.message).toContain('production is not set on this dashboard');
    // A target does not make a rollback of a tag that was never set: that is a publish.
    await stateRefusal(() => client.rollbackTag(id, 'production', 'v3'), 'ERR_TAG_ABSENT');
  });

  test('refuses when no saved version is older', async () => {
    await client.publishVersion(id, 'v1', ['production']);
    const error = await stateRefusal(() => client.rollbackTag(id, 'production'), 'ERR_NO_OLDER_VERSION');
    expect(error.message).toBe(
      'rollbackTag refused: production points at v1, and no saved version is older than it; there is nothing to roll back to',
    );
  });

  test('refuses when the tag points at a version older than the 30 listed, whose predecessor is unknown', async () => {
    const old = server.addDashboard(35);
    await client.publishVersion(old, 'v3', ['production']);
    const error = await stateRefusal(() => client.rollbackTag(old, 'production'), 'ERR_NO_OLDER_VERSION');
    expect(error.message).toContain('production points at v3, which is older than the 30 listed saved versions');
    expect(await client.rollbackTag(old, 'production', 'v2')).toMatchObject({ from: 'v3', to: 'v2' });
  });

  test('refuses at the oldest of a full list: older versions may exist that are not listed', async () => {
    const full = server.addDashboard(31);
    await client.publishVersion(full, 'v2', ['production']);
    const error = await stateRefusal(() => client.rollbackTag(full, 'production'), 'ERR_NO_OLDER_VERSION');
    expect(error.message).toBe(
      'rollbackTag refused: production points at v2, the oldest of the 30 listed saved versions; older ones are not listed, so name the version to roll back to',
    );
  });

  test('a listed version without a saved-at is an unexpected answer, not a guess', async () => {
    const list = {
      tags: { production: { version: 'v2' } },
      'saved-versions': [{ version: 'v2' }, { version: 'v1', 'saved-at': '2024-03-01T00:00:00.000Z' }],
    };
    server.fail({ method: 'GET', times: 1, action: { status: 200, body: JSON.stringify(list) } });
    const error = await rejectionOf(client.rollbackTag(id, 'production'), Error);
    expect(error).toBeInstanceOf(EmbeddableResponseError);
    expect(error.message).toContain('saved version "v2" has no ISO 8601 saved-at');
    expect(server.requestsTo('POST', '/publish')).toHaveLength(0);
  });

  test.each([
    ['not-a-uuid', 'production', undefined, 'embeddableId', undefined],
    [undefined, 'qa', undefined, 'tag', 'BUILDER-117'],
    [undefined, 'production', 'staging', 'to', 'BUILDER-172'],
    [undefined, 'production', '7', 'to', undefined],
  ])('dashboard %j, tag %j, to %j: refused before sending (%s)', async (badId, tag, to, field, code) => {
    await invalid(client.rollbackTag(badId ?? id, tag, to), field, code);
  });

  test('a target that does not exist is refused by the service with BUILDER-120', async () => {
    await client.publishVersion(id, 'v5', ['production']);
    const error = await rejectionOf(client.rollbackTag(id, 'production', 'v99'), Error);
    expect(error).toMatchObject({ operation: 'rollbackTag', status: 404, code: 'BUILDER-120' });
    expect(server.dashboards.get(id)?.tags.get('production')?.version).toBe('v5');
  });
});
