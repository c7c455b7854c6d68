// The SQL API's live logins on a frozen clock: expiry, the age limit, the cap, the comparison of contexts, revocation.
import { describe, expect, it } from 'vitest';
import { LiveLogins, LIVE_LOGIN_CAP, type LoginRecord } from '../../src/hook/live-logins';
import { createClock } from '../support/clock';

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

  it('holds at most its cap, evicting the least recently used login first', () => {
    const { logins } = memory({ cap: 3 });
    for (const user of ['a', 'b', 'c']) logins.remember(login({ user }));
    expect(logins.find('a').found).toBe(true);
    logins.remember(login({ user: 'd' }));
    expect(logins.size).toBe(3);
    expect(logins.find('b')).toEqual({ found: false, reason: 'none' });
    expect(['a', 'c', 'd'].map((user) => logins.find(user).found)).toEqual([true, true, true]);
  });

  it(`caps at ${LIVE_LOGIN_CAP} logins by default, and refuses a cap that is no whole number ≥ 1`, () => {
    const { logins } = memory();
    for (let i = 0; i <= LIVE_LOGIN_CAP; i++) logins.remember(login({ user: `user-${i}` }));
    expect(logins.size).toBe(LIVE_LOGIN_CAP);
    expect(logins.find('user-0').found).toBe(false);
    for (const cap of [0, 1.5, Number.NaN])
      expect(() => new LiveLogins({ clock: () => 0, cap })).toThrow(
        'The cap of live logins must be a whole number ≥ 1',
      );
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
    expect(logins.find('alice')).toEqual({ found: false, reason: 'ambiguous', contexts: 2 });
    // Once the other login has ended, the one left answers.
    clock.advance(60_000);
    expect(logins.find('alice')).toMatchObject({ found: true, login: { securityContext: acme } });
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
    expect(logins.find('alice')).toMatchObject({ found: false, reason: 'ambiguous' });
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
