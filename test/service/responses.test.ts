/**
 * Maps read from the service's answers hold the answer's own members only. A `"__proto__"` member
 * (sent as raw JSON text: JSON.parse makes it an own key, which plain assignment would then turn into
 * a prototype) is an ordinary key: it never makes a missing tag look set, and a tag so named is kept.
 */
import { describe, expect, test } from 'vitest';
import { EmbeddableStateError, type EmbeddableClient } from '../../src/service';
import { definitionAt, type ContractServer } from '../support/contract-server';
import { withDashboard } from '../support/service-client';
import { rejectionOf } from '../support/requests';

let server: ContractServer;
let id: string;
let client: EmbeddableClient;

withDashboard((made) => ({ server, id, client } = made), { versions: 5 });

const AT = '2024-03-01T10:00:00.000Z';

/** The list answer (part 4.1) with the raw JSON text `tags` and versions v1..v5 saved a minute apart. */
function listText(tags: string): string {
  const versions = [5, 4, 3, 2, 1].map(
    (n) => `{"version":"v${n}","saved-at":"2024-03-01T09:0${n}:00.000Z","saved-by":"a@example.com"}`,
  );
  return `{"tags":${tags},"saved-versions":[${versions.join(',')}]}`;
}

/** The next answer to `method` on a path containing `path` is `text`, verbatim. */
function answerWith(method: string, path: string, text: string): void {
  server.fail({
    method,
    path,
    times: 1,
    action: { status: 200, body: text, headers: { 'content-type': 'application/json' } },
  });
}

async function refusedAbsent(promise: Promise<unknown>, tag: string): Promise<void> {
  const error = await rejectionOf(promise, Error);
  expect(error).toBeInstanceOf(EmbeddableStateError);
  expect(error).toMatchObject({ code: 'ERR_TAG_ABSENT' });
  expect(error.message).toContain(`${tag} is not set on this dashboard`);
}

describe('a "__proto__" member of a tag map', () => {
  test('promote from a tag that is only inside "__proto__" is refused as not set; nothing is published', async () => {
    answerWith(
      'GET',
      '/saved-versions',
      listText(`{"__proto__":{"version":"v2","updated-at":"${AT}","staging":{"version":"v4","updated-at":"${AT}"}}}`),
    );
    await refusedAbsent(client.promoteVersion(id, 'staging', ['production']), 'staging');
    expect(server.requestsTo('POST', '/publish')).toHaveLength(0);
  });

  test('rollback of a tag that is only inside "__proto__" is refused as not set; nothing is published', async () => {
    answerWith(
      'GET',
      '/saved-versions',
      listText(
        `{"__proto__":{"version":"v2","updated-at":"${AT}","production":{"version":"v4","updated-at":"${AT}"}}}`,
      ),
    );
    await refusedAbsent(client.rollbackTag(id, 'production'), 'production');
    expect(server.requestsTo('POST', '/publish')).toHaveLength(0);
  });

  test('a "__proto__" tag that is set is an own key like any other, in the list and in the publish answer', async () => {
    answerWith(
      'GET',
      '/saved-versions',
      listText(`{"__proto__":{"version":"v3","updated-at":"${AT}"},"staging":{"version":"v4","updated-at":"${AT}"}}`),
    );
    const list = await client.listSavedVersions(id);
    expect(Object.keys(list.tags)).toEqual(['__proto__', 'staging']);
    expect(Object.hasOwn(list.tags, '__proto__')).toBe(true);
    expect(list.tags['__proto__']).toEqual({ version: 'v3', updatedAt: AT });
    expect(list.tags.production).toBeUndefined();

    // The same map in a promotion: staging is promoted as usual, and "__proto__" stays a member of the answer.
    answerWith(
      'GET',
      '/saved-versions',
      listText(`{"__proto__":{"version":"v3","updated-at":"${AT}"},"staging":{"version":"v4","updated-at":"${AT}"}}`),
    );
    answerWith(
      'POST',
      '/publish',
      `{"tags":{"__proto__":{"version":"v3","updatedAt":"${AT}"},"staging":{"version":"v4","updatedAt":"${AT}"},"production":{"version":"v4","updatedAt":"${AT}"}}}`,
    );
    const promotion = await client.promoteVersion(id, 'staging', ['production']);
    expect(promotion).toMatchObject({ version: 'v4', previous: { production: null } });
    expect(server.requestsTo('POST', '/publish').map((r) => [r.path, r.body])).toEqual([
      [`/api/v1/embeddables/${id}/saved-versions/v4/publish`, { tags: ['production'] }],
    ]);
    expect(Object.keys(promotion.tags)).toEqual(['__proto__', 'staging', 'production']);
    expect(promotion.tags['__proto__']).toEqual({ version: 'v3', updatedAt: AT });
  });
});

describe('definition fields named like members of Object.prototype', () => {
  test('"constructor" and "__proto__" added in the second version are reported as added, not as changed from an inherited value', async () => {
    const before = definitionAt('v1');
    const after = JSON.parse(
      JSON.stringify({ ...definitionAt('v1'), title: 'Renamed' }).replace(
        /^\{/,
        '{"constructor":"x","__proto__":{"a":1},',
      ),
    ) as Record<string, unknown>;
    server.setDefinition(id, 'v1', before);
    server.setDefinition(id, 'v2', after);
    const forward = await client.diffVersions(id, 'v1', 'v2');
    expect(forward.dashboard).toEqual([
      { field: 'title', before: 'Sales overview (v1)', after: 'Renamed' },
      { field: 'constructor', after: 'x' },
      { field: '__proto__', after: { a: 1 } },
    ]);
    const backward = await client.diffVersions(id, 'v2', 'v1');
    expect(backward.dashboard).toEqual([
      { field: 'constructor', before: 'x' },
      { field: '__proto__', before: { a: 1 } },
      { field: 'title', before: 'Renamed', after: 'Sales overview (v1)' },
    ]);
  });
});
