import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createCheckAuth, DualAuthConfigError } from '../../src';
import { isRevokedKey, revocationsOf } from '../../src/config/revocations';
import { parseSecretFile } from '../../src/config/secrets-dir';
import { randomSecret } from '../support/claims';
import { scratchDirs } from '../support/scratch';

const fail = (problem: string): never => {
  throw new DualAuthConfigError('sql-keys-revoked', problem);
};
const T = Date.parse('2026-05-01T09:00:00Z');

describe('revocationsOf', () => {
  it('reads key ids and "user <name> before <ISO-8601 time>" entries, the later time of a user winning', () => {
    const revocations = revocationsOf(
      [
        '3f2c9a1e-0000-4000-8000-000000000001',
        'user alice before 2026-05-01T09:00:00Z',
        'user alice before 2026-04-01T00:00:00+02:00',
        'user bob@acme.example before 2026-05-01T11:00:00.250+02:00',
      ],
      fail,
    );
    expect([...revocations.ids]).toEqual(['3f2c9a1e-0000-4000-8000-000000000001']);
    expect(revocations.users).toEqual(
      new Map([
        ['alice', T],
        ['bob@acme.example', T + 250],
      ]),
    );
    expect(revocations.size).toBe(4);
  });

  it('takes an empty list as no revocation', () => {
    expect(revocationsOf([], fail)).toMatchObject({ size: 0 });
  });

  it.each([
    ['user alice before 2026-05-01', 'entry 1 of 1 revokes the keys of user "alice" before a time that is not ISO'],
    ['user alice before yesterday', 'before a time that is not ISO 8601 with a zone'],
    ['user alice before 2026-05-01T09:00:00', 'before a time that is not ISO 8601 with a zone'],
    ['user alice after 2026-05-01T09:00:00Z', 'entry 1 of 1 is neither a key id nor "user <name> before'],
    ['two ids', 'entry 1 of 1 is neither a key id nor'],
  ])('refuses %j, naming the entry', (entry, message) => {
    expect(() => revocationsOf([entry], fail)).toThrow(message);
  });

  it.each([
    [
      'user alice before 2026-02-30T09:00:00Z',
      'before 2026-02-30T09:00:00Z, which does not exist: that month has 28 days, not a day 30',
    ],
    ['user alice before 2027-02-29T09:00:00Z', 'that month has 28 days, not a day 29'],
    ['user alice before 2026-04-31T09:00:00Z', 'that month has 30 days, not a day 31'],
    ['user alice before 2026-13-01T09:00:00Z', 'there is no month 13'],
    ['user alice before 2026-00-10T09:00:00Z', 'there is no month 0'],
    ['user alice before 2026-05-00T09:00:00Z', 'not a day 0'],
    ['user alice before 2026-05-01T24:00:00Z', 'a time of day is at most 23:59:59'],
    ['user alice before 2026-05-01T09:60:00Z', 'a time of day is at most 23:59:59'],
    ['user alice before 2026-05-01T09:00:60Z', 'a time of day is at most 23:59:59'],
    ['user alice before 2026-05-01T09:00:00+24:00', 'a zone is at most ±23:59'],
  ])('refuses the impossible date of %j, which Date.parse would carry into another day', (entry, message) => {
    expect(() => revocationsOf(['k-1', entry], fail)).toThrow(`entry 2 of 2 revokes the keys of user "alice" `);
    expect(() => revocationsOf(['k-1', entry], fail)).toThrow(message);
  });

  it('takes 29 February of a leap year, and a zone that is a moment', () => {
    const revocations = revocationsOf(
      ['user alice before 2028-02-29T09:00:00Z', 'user bob before 2026-05-01T09:00:00+14:00'],
      fail,
    );
    expect(revocations.users.get('alice')).toBe(Date.parse('2028-02-29T09:00:00Z'));
    expect(revocations.users.get('bob')).toBe(Date.parse('2026-04-30T19:00:00Z'));
  });

  it('reads a user name with a space, or one that starts with a quote, as a JSON string in double quotes', () => {
    const revocations = revocationsOf(
      [
        'user "Alice Smith" before 2026-05-01T09:00:00Z',
        'user "\\"quoted\\" \\u00e9" before 2026-05-01T09:00:00Z',
        'user o"brien before 2026-05-01T09:00:00Z',
      ],
      fail,
    );
    expect([...revocations.users.keys()]).toEqual(['Alice Smith', '"quoted" é', 'o"brien']);
  });

  it.each([
    [
      'user Alice Smith before 2026-05-01T09:00:00Z',
      'entry 1 of 1 names a user with a space or a quote, which is written as a JSON string in double quotes: user "<name>" before <ISO-8601 time>',
    ],
    ['user "Alice before 2026-05-01T09:00:00Z', 'names a user with a space or a quote'],
    ['user "bad \\x" before 2026-05-01T09:00:00Z', 'entry 1 of 1 writes a user name in quotes that is no JSON string'],
    ['user "" before 2026-05-01T09:00:00Z', 'entry 1 of 1 names a user that is empty or holds a control character'],
    ['user "a\\tb" before 2026-05-01T09:00:00Z', 'names a user that is empty or holds a control character'],
  ])('refuses %j, saying how a name is written', (entry, message) => {
    expect(() => revocationsOf([entry], fail)).toThrow(message);
  });

  it('judges a key by its id, or its user and iat (seconds) strictly before the time', () => {
    const revocations = revocationsOf(['k-1', 'user alice before 2026-05-01T09:00:00Z'], fail);
    const key = (id: string, user: string, issuedAt: number) => ({ id, user, issuedAt });
    expect(isRevokedKey(revocations, key('k-1', 'bob', T / 1000 + 99))).toBe(true);
    expect(isRevokedKey(revocations, key('k-2', 'alice', T / 1000 - 1))).toBe(true);
    expect(isRevokedKey(revocations, key('k-2', 'alice', T / 1000))).toBe(false);
    expect(isRevokedKey(revocations, key('k-2', 'bob', 0))).toBe(false);
    expect(isRevokedKey(undefined, key('k-1', 'alice', 0))).toBe(false);
  });

  it('judges the milliseconds of a minted iat: a key made 50 ms after the cut still signs in', () => {
    const cut = Date.parse('2026-05-01T09:00:00.700Z');
    const revocations = revocationsOf(['user alice before 2026-05-01T09:00:00.700Z'], fail);
    const key = (issuedAtMs: number) => ({ id: 'k', user: 'alice', issuedAt: issuedAtMs / 1000 });
    expect(isRevokedKey(revocations, key(cut - 1))).toBe(true);
    expect(isRevokedKey(revocations, key(cut))).toBe(false);
    expect(isRevokedKey(revocations, key(cut + 50))).toBe(false);
  });
});

describe('sql-keys-revoked in the secrets directory', () => {
  const scratch = scratchDirs('cube-dual-auth-revoked-');

  it('stops the start on an impossible date, naming the file and the line', () => {
    const dir = scratch();
    writeFileSync(join(dir, 'sql-keys-revoked'), '# lost laptop\nk-1\nuser alice before 2026-02-30T09:00:00Z\n');
    const start = () =>
      createCheckAuth({ jwksUri: 'https://idp.example/jwks', sqlKeySecrets: [randomSecret()], secretsDir: dir });
    expect(start).toThrow(DualAuthConfigError);
    expect(start).toThrow(
      `${join(dir, 'sql-keys-revoked')} line 3 revokes the keys of user "alice" before 2026-02-30T09:00:00Z, which does not exist`,
    );
  });

  it.each([
    ['\\n', '\n'],
    ['\\r\\n', '\r\n'],
    ['a lone \\r', '\r'],
  ])('counts every line, comments and blank ones too, where lines end at %s', (_, end) => {
    const lines = ['# revoked 2026-05', '', 'k-1', '   ', '# alice left', 'user alice before yesterday', 'k-2'];
    const parsed = parseSecretFile('sqlKeysRevoked', lines.join(end) + end);
    expect(parsed).toEqual({
      reason: 'line 6 revokes the keys of user "alice" before a time that is not ISO 8601 with a zone',
    });
  });

  it.each([
    ['user "bad \\x" before 2026-05-01T09:00:00Z', 'line 2 writes a user name in quotes that is no JSON string'],
    ['user Alice Smith before 2026-05-01T09:00:00Z', 'line 2 names a user with a space or a quote'],
    ['k-1 k-2', 'line 2 is neither a key id nor "user <name> before <ISO-8601 time>"'],
    [
      'k-1;k-2',
      'line 2 holds "k-1;k-2", which is no SQL key id: one id or "user <name> before <ISO-8601 time>" a line',
    ],
  ])('names the line of a bad entry %j, in a whole sentence', (entry, reason) => {
    const parsed = parseSecretFile('sqlKeysRevoked', `# rotated\n${entry}\nk-3\n`);
    expect(parsed).toHaveProperty('reason');
    expect((parsed as { reason: string }).reason.slice(0, reason.length)).toBe(reason);
  });

  it('reads a valid file to its entries, comments and blank lines left out', () => {
    const parsed = parseSecretFile('sqlKeysRevoked', '# a\r\n\r\nk-1\ruser alice before 2026-05-01T09:00:00Z\n');
    expect(parsed).toEqual({ value: ['k-1', 'user alice before 2026-05-01T09:00:00Z'], lines: [3, 4] });
  });
});
