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
const ISO_TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(?:Z|[+-](\d{2}):(\d{2}))$/;
/** A user name as written: bare when it holds no space and starts with no quote, else a JSON string in quotes. */
const USER_ENTRY = /^user\s+("(?:[^"\\]|\\.)*"|[^\s"]\S*)\s+before\s+(\S+)$/;
/** What a user name never holds, quoted or not: control characters and line separators. */
const NOT_IN_A_NAME = /[\p{Cc}\u2028\u2029]/u;
/** What a SQL key id is made of: `sql-key` mints UUIDs; a separator or anything else is a typo, never an id. */
export const SQL_KEY_ID = /^[A-Za-z0-9._~-]{1,128}$/;

/**
 * The revocations of a list of entries; another shape fails, as a misread revocation must never pass as none.
 * @example
 * revocationsOf(['3f2c…', 'user alice before 2026-05-01T09:00:00Z'], fail).users.get('alice') // 1777626000000
 */
export function revocationsOf(value: unknown, fail: Fail): Revocations {
  if (!Array.isArray(value)) fail('must be a list of SQL key ids or "user <name> before <ISO-8601 time>" entries');
  const entries = value as readonly unknown[];
  return revocationsNamed(entries, fail, { entry: (i) => `entry ${i + 1} of ${entries.length}` });
}

/** How messages name an entry ("entry 2 of 3", "line 5"), and whether one about a bad key id does too. */
export interface EntryNames {
  readonly entry: (index: number) => string;
  readonly nameBadIds?: boolean;
}

/**
 * The revocations of entries, each named in a message as `names` says (docs/rotation.md#revoke-a-sql-key).
 * @example
 * revocationsNamed(['k-1', 'user alice before x'], fail, { entry: (i) => `line ${i + 2}` }) // fails: "line 3 revokes…"
 */
export function revocationsNamed(entries: readonly unknown[], fail: Fail, names: EntryNames): Revocations {
  const ids = new Set<string>();
  const users = new Map<string, number>();
  entries.forEach((entry: unknown, i) => {
    const at = names.entry(i);
    if (typeof entry !== 'string' || entry.trim() === '') fail(`${at} is not a non-empty string`);
    const text = entry.trim();
    const byUser = USER_ENTRY.exec(text);
    if (byUser !== null) {
      const [, written, time] = byUser as unknown as [string, string, string];
      const user = userName(written, (problem) => fail(`${at} ${problem}`));
      const ms = momentOf(time, (problem) => fail(`${at} revokes the keys of user ${JSON.stringify(user)} ${problem}`));
      users.set(user, Math.max(ms, users.get(user) ?? ms));
    } else if (/^user\s.*\sbefore\s/.test(text)) {
      fail(
        `${at} names a user with a space or a quote, which is written as a JSON string in double quotes: user "<name>" before <ISO-8601 time>`,
      );
    } else if (/^user\s/.test(text) || /\s/.test(text)) {
      fail(`${at} is neither a key id nor "user <name> before <ISO-8601 time>"`);
    } else if (!SQL_KEY_ID.test(text)) {
      const shown = JSON.stringify(text.slice(0, 40));
      fail(
        names.nameBadIds === true
          ? `${at} holds ${shown}, which is no SQL key id: one id or "user <name> before <ISO-8601 time>" a line`
          : `holds ${shown}, which is no SQL key id: separate ids with commas, spaces or newlines`,
      );
    } else {
      ids.add(text);
    }
  });
  return { ids, users, size: entries.length };
}

/** The user name of an entry: as written, or the JSON string in its quotes; never empty, no control character. */
function userName(written: string, fail: Fail): string {
  let name: unknown = written;
  if (written.startsWith('"')) {
    try {
      name = JSON.parse(written);
    } catch {
      fail(`writes a user name in quotes that is no JSON string: ${written.slice(0, 40)}`);
    }
  }
  if (typeof name !== 'string' || name === '' || NOT_IN_A_NAME.test(name))
    fail('names a user that is empty or holds a control character, which no SQL user name holds');
  return name as string;
}

/** Days in each month of a common year. */
const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

const isLeapYear = (year: number): boolean => (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;

/**
 * The epoch ms of an ISO-8601 time with a zone. A date or time that does not exist (30 February, 24:00, a zone of
 * +25:00) is refused: `Date.parse` would carry it over into another day (docs/rotation.md#the-directory).
 */
function momentOf(time: string, fail: Fail): number {
  const parts = ISO_TIME.exec(time);
  if (parts === null) return fail('before a time that is not ISO 8601 with a zone');
  const impossible = impossibility(parts.slice(1).map((part) => Number(part ?? 0)));
  if (impossible !== undefined) return fail(`before ${time}, which does not exist: ${impossible}`);
  return Date.parse(time);
}

/** What makes a date, time and zone impossible; undefined when they are a moment. */
function impossibility([
  year = 0,
  month = 0,
  day = 0,
  hour = 0,
  minute = 0,
  second = 0,
  zoneHours = 0,
  zoneMinutes = 0,
]: number[]): string | undefined {
  const days = month === 2 && isLeapYear(year) ? 29 : DAYS_IN_MONTH[month - 1];
  if (days === undefined) return `there is no month ${month}`;
  if (day < 1 || day > days) return `that month has ${days} days, not a day ${day}`;
  if (hour > 23 || minute > 59 || second > 59) return 'a time of day is at most 23:59:59';
  if (zoneHours > 23 || zoneMinutes > 59) return 'a zone is at most ±23:59';
  return undefined;
}

/**
 * Whether a key (its id, user and `iat` in seconds, with the milliseconds the package mints it with) is revoked.
 */
export function isRevokedKey(
  revocations: Revocations | undefined,
  key: { readonly id: string; readonly user: string; readonly issuedAt: number },
): boolean {
  if (revocations === undefined) return false;
  if (revocations.ids.has(key.id)) return true;
  const before = revocations.users.get(key.user);
  return before !== undefined && Math.round(key.issuedAt * 1000) < before;
}
