import { describe, expect, it } from 'vitest';
import { DualAuthConfigError } from '../../src';
import { isRevokedKey, revocationsOf } from '../../src/config/revocations';

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

  it('judges a key by its id, or its user and iat (seconds) strictly before the time', () => {
    const revocations = revocationsOf(['k-1', 'user alice before 2026-05-01T09:00:00Z'], fail);
    const key = (id: string, user: string, issuedAt: number) => ({ id, user, issuedAt });
    expect(isRevokedKey(revocations, key('k-1', 'bob', T / 1000 + 99))).toBe(true);
    expect(isRevokedKey(revocations, key('k-2', 'alice', T / 1000 - 1))).toBe(true);
    expect(isRevokedKey(revocations, key('k-2', 'alice', T / 1000))).toBe(false);
    expect(isRevokedKey(revocations, key('k-2', 'bob', 0))).toBe(false);
    expect(isRevokedKey(undefined, key('k-1', 'alice', 0))).toBe(false);
  });
});
