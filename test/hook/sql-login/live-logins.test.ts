// The SQL API's live logins on a frozen clock: expiry, the age limit, the cap, the comparison of contexts, revocation.
import { describe, expect, it } from 'vitest';
import {
  LiveLogins,
  LIVE_LOGIN_CAP,
  LIVE_LOGINS_PER_USER,
  type LoginRecord,
} from '../../../src/hook/sql-login/live-logins';
import { createClock } from '../../support/clock';

/** Seconds since the epoch the clock starts at. */
const T0 = 1_800_000_000;

function memory(options: { cap?: number; clockTolerance?: number; namespaces?: string[]; revoked?: string[] } = {}) {
  const clock = createClock(T0 * 1000);
  const revoked = new Set(options.revoked);
  const logins = new LiveLogins({
    clock: clock.now,
    ...(options.cap !== undefined && { cap: options.cap }),
    ...(options.clockTolerance !== undefined && { clockTolerance: options.clockTolerance }),
    ...(options.namespaces !== undefined && { namespaces: options.namespaces }),
    isRevoked: (id) => revoked.has(id),
  });
  return { logins, clock, revoked };
}

const acme = { sub: 'alice', tenant: 'acme', groups: ['analyst'], iat: T0, exp: T0 + 300 };
const login = (overrides: Partial<LoginRecord> = {}): LoginRecord => ({
  user: 'alice',
  securityContext: acme,
  issuedAt: T0,
  expiresAt: T0 + 300,
  ...overrides,
});

describe('LiveLogins', () => {
  it("answers with the login's record while its token lives, and holds nothing of a token", () => {
    const { logins, clock } = memory();
    logins.remember(login());
    clock.advance(299_999);
    expect(logins.find('alice')).toEqual({ found: true, login: login() });
    expect(logins.find('bob')).toEqual({ found: false, reason: 'none' });
  });

  it("ends a login at its token's exp (plus the clock tolerance), says so once, and forgets it", () => {
    const { logins, clock } = memory({ clockTolerance: 5 });
    logins.remember(login());
    clock.advance(304_999);
    expect(logins.find('alice').found).toBe(true);
    clock.advance(1);
    expect(logins.find('alice')).toEqual({ found: false, reason: 'expired', endedAt: T0 + 305, tooOld: false });
    expect(logins.size).toBe(0);
    expect(logins.find('alice')).toEqual({ found: false, reason: 'none' });
  });

  it('ends a login when its token grows older than the maximum age, before its exp', () => {
    const { logins, clock } = memory();
    logins.remember(login({ maxAge: 120, expiresAt: T0 + 3600 }));
    clock.advance(119_000);
    expect(logins.find('alice').found).toBe(true);
    clock.advance(1_000);
    expect(logins.find('alice')).toEqual({ found: false, reason: 'expired', endedAt: T0 + 120, tooOld: true });
  });

  it('keeps no login that is already over, and one without exp or age limit until it is evicted', () => {
    const { logins, clock } = memory();
    logins.remember(login({ expiresAt: T0 }));
    expect(logins.size).toBe(0);
    logins.remember(login({ expiresAt: undefined }));
    clock.advance(365 * 86_400_000);
    expect(logins.find('alice').found).toBe(true);
  });

  it('sweeps out expired logins of every user at most once a minute, when a login is remembered', () => {
    const { logins, clock } = memory();
    logins.remember(login({ user: 'bob', expiresAt: T0 + 10 }));
    logins.remember(login({ user: 'carol', expiresAt: T0 + 10 }));
    clock.advance(30_000);
    logins.remember(login());
    expect(logins.size).toBe(3);
    clock.advance(30_000);
    logins.remember(login({ user: 'dave' }));
    expect(logins.size).toBe(2);
  });

  it("holds at most its cap: at the cap it refuses a new user's login and evicts nobody's", () => {
    const { logins, clock } = memory({ cap: 3 });
    for (const user of ['a', 'b', 'c']) expect(logins.remember(login({ user }))).toEqual({ remembered: true });
    expect(logins.remember(login({ user: 'd' }))).toEqual({ remembered: false, reason: 'capacity' });
    expect(logins.size).toBe(3);
    expect(['a', 'b', 'c', 'd'].map((user) => logins.find(user).found)).toEqual([true, true, true, false]);
    // A renewal of a login held replaces it, and an ended login makes room (swept when the cap is reached).
    expect(logins.remember(login({ user: 'a', expiresAt: T0 + 10 }))).toEqual({ remembered: true });
    clock.advance(10_000);
    expect(logins.remember(login({ user: 'd' }))).toEqual({ remembered: true });
  });

  it(`caps at ${LIVE_LOGIN_CAP} logins by default, and refuses a cap or bound that is no whole number ≥ 1`, () => {
    const { logins } = memory();
    for (let i = 0; i < LIVE_LOGIN_CAP; i++) logins.remember(login({ user: `user-${i}` }));
    expect(logins.remember(login({ user: 'one-too-many' }))).toEqual({ remembered: false, reason: 'capacity' });
    expect(logins.size).toBe(LIVE_LOGIN_CAP);
    expect(logins.find('user-0').found).toBe(true);
    for (const cap of [0, 1.5, Number.NaN])
      expect(() => new LiveLogins({ clock: () => 0, cap })).toThrow(
        'The cap of live logins must be a whole number ≥ 1',
      );
    expect(() => new LiveLogins({ clock: () => 0, perUser: 0 })).toThrow(
      'The bound of live logins per user must be a whole number ≥ 1',
    );
  });

  it(`keeps ${LIVE_LOGINS_PER_USER} logins per user name by default, evicting that user's own oldest first`, () => {
    const { logins } = memory({ cap: 100 });
    logins.remember(login({ user: 'bob', id: 'bob-1' }));
    for (let i = 0; i < 1000; i++) logins.remember(login({ id: `alice-${i}` }));
    expect(logins.size).toBe(LIVE_LOGINS_PER_USER + 1);
    expect(logins.find('bob').found).toBe(true);
    const found = logins.find('alice');
    // The 20 newest are kept: alice-980 to alice-999.
    expect(found.found && Number(found.login.id?.slice('alice-'.length))).toBeGreaterThanOrEqual(980);
  });

  it('takes a renewed token of the same context as the same login, answering with the one that lives longest', () => {
    const { logins, clock } = memory();
    logins.remember(login());
    clock.advance(200_000);
    const renewed = { ...acme, iat: T0 + 200, exp: T0 + 500, nbf: T0 + 200, jti: 'n2', auth_time: T0 + 199 };
    logins.remember(login({ securityContext: renewed, issuedAt: T0 + 200, expiresAt: T0 + 500, id: 'n2' }));
    expect(logins.find('alice')).toMatchObject({ found: true, login: { securityContext: renewed } });
    clock.advance(200_000);
    expect(logins.find('alice')).toMatchObject({ found: true, login: { securityContext: renewed } });
  });

  it('replaces the login of the same user, context and id, so renewals without an id do not pile up', () => {
    const { logins, clock } = memory();
    logins.remember(login());
    clock.advance(100_000);
    logins.remember(login({ securityContext: { ...acme, exp: T0 + 400 }, expiresAt: T0 + 400 }));
    expect(logins.size).toBe(1);
  });

  it.each([
    ['another tenant', { tenant: 'globex' }],
    ['other groups', { groups: ['admin'] }],
    ['another claim', { region: 'emea' }],
  ])('never guesses between live logins of one user whose contexts differ: %s', (_what, change) => {
    const { logins, clock } = memory();
    logins.remember(login());
    logins.remember(login({ securityContext: { ...acme, ...change }, expiresAt: T0 + 60 }));
    expect(logins.find('alice')).toEqual({ found: false, reason: 'drift' });
    // Once the other login has ended, its sessions may still ask: the one left never answers for them.
    clock.advance(60_000);
    expect(logins.find('alice')).toEqual({ found: false, reason: 'drift' });
    // Once none is live, the name starts afresh.
    clock.advance(240_000);
    expect(logins.find('alice')).toMatchObject({ found: false, reason: 'expired' });
    logins.remember(login({ issuedAt: T0 + 300, expiresAt: T0 + 600 }));
    expect(logins.find('alice').found).toBe(true);
  });

  it('compares contexts whatever the order of their members, and the renewed claims inside a namespace too', () => {
    const { logins } = memory({ namespaces: ['https://acme.example/claims'] });
    const inner = { tenant: 'acme', iat: T0, exp: T0 + 300 };
    logins.remember(login({ securityContext: { ...acme, 'https://acme.example/claims': inner } }));
    const reordered = {
      'https://acme.example/claims': { exp: T0 + 900, iat: T0 + 600, tenant: 'acme' },
      exp: T0 + 900,
      groups: ['analyst'],
      tenant: 'acme',
      sub: 'alice',
      iat: T0 + 600,
    };
    logins.remember(login({ securityContext: reordered, expiresAt: T0 + 900, id: 'second' }));
    expect(logins.find('alice')).toMatchObject({ found: true, login: { securityContext: reordered } });
    logins.remember(
      login({ securityContext: { ...reordered, 'https://acme.example/claims': { tenant: 'globex' } }, id: 'third' }),
    );
    expect(logins.find('alice')).toMatchObject({ found: false, reason: 'drift' });
  });

  it('asks isRevoked about a login with an id before it serves, and forgets a revoked one', () => {
    const { logins, revoked } = memory();
    logins.remember(login({ id: 'key-1' }));
    expect(logins.find('alice').found).toBe(true);
    revoked.add('key-1');
    expect(logins.find('alice')).toEqual({ found: false, reason: 'revoked' });
    expect(logins.size).toBe(0);
  });
});
