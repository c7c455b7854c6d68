/** Revoked SQL keys, by id or by user and time (docs/rotation.md#revoke-a-sql-key). */
import type { Fail } from './option-checks';

/** The revocations in force, as `sqlKeysRevoked` gives them to the SQL login. */
export interface Revocations {
  readonly ids: ReadonlySet<string>;
  /** By user name: epoch ms before which every key of that user issued is revoked. */
  readonly users: ReadonlyMap<string, number>;
  /** How many entries were given (ids and users), for `doctor` and the logs: counts only. */
  readonly size: number;
}

/** An ISO-8601 time with a date, a time and a zone: a moment everyone reads the same, whatever the server's zone. */
const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:\d{2})$/;
const USER_ENTRY = /^user\s+(\S+)\s+before\s+(\S+)$/;
/** What a SQL key id is made of: `sql-key` mints UUIDs; a separator or anything else is a typo, never an id. */
export const SQL_KEY_ID = /^[A-Za-z0-9._~-]{1,128}$/;

/**
 * The revocations of a list of entries; another shape fails, as a misread revocation must never pass as none.
 * @example
 * revocationsOf(['3f2c…', 'user alice before 2026-05-01T09:00:00Z'], fail).users.get('alice') // 1777626000000
 */
export function revocationsOf(value: unknown, fail: Fail): Revocations {
  if (!Array.isArray(value)) fail('must be a list of SQL key ids or "user <name> before <ISO-8601 time>" entries');
  const ids = new Set<string>();
  const users = new Map<string, number>();
  value.forEach((entry: unknown, i) => {
    const at = `entry ${i + 1} of ${value.length}`;
    if (typeof entry !== 'string' || entry.trim() === '') fail(`${at} is not a non-empty string`);
    const text = entry.trim();
    const byUser = USER_ENTRY.exec(text);
    if (byUser !== null) {
      const [, user, time] = byUser as unknown as [string, string, string];
      const ms = ISO_TIME.test(time) ? Date.parse(time) : Number.NaN;
      if (!Number.isFinite(ms))
        fail(`${at} revokes the keys of user ${JSON.stringify(user)} before a time that is not ISO 8601 with a zone`);
      users.set(user, Math.max(ms, users.get(user) ?? ms));
    } else if (/^user\s/.test(text) || /\s/.test(text)) {
      fail(`${at} is neither a key id nor "user <name> before <ISO-8601 time>"`);
    } else if (!SQL_KEY_ID.test(text)) {
      const shown = JSON.stringify(text.slice(0, 40));
      fail(`holds ${shown}, which is no SQL key id: separate ids with commas, spaces or newlines`);
    } else {
      ids.add(text);
    }
  });
  return { ids, users, size: value.length };
}

/** Whether a key (its id, user and `iat` in seconds) is revoked. */
export function isRevokedKey(
  revocations: Revocations | undefined,
  key: { readonly id: string; readonly user: string; readonly issuedAt: number },
): boolean {
  if (revocations === undefined) return false;
  if (revocations.ids.has(key.id)) return true;
  const before = revocations.users.get(key.user);
  return before !== undefined && key.issuedAt * 1000 < before;
}
