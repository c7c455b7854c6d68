// SQL keys through Cube 1.7.43's SQL API: the native server's call sequence (the login with the key as the password,
// then `checkSqlAuth(req, user, null)` before a query once CUBESQL_AUTH_EXPIRE_SECS have passed, and `SET user`/`__user`
// switches) replayed against Cube's own SQLServer (test/support/cube-sql-api.ts), timed by a clock the test moves.
import { createSecretKey } from 'node:crypto';
import { describe, expect, it, vi } from 'vitest';
import type { DualAuthOptions } from '../../src';
import { mintSqlKey, SqlKeys } from '../../src/hook/sql-login/sql-key';
import { randomSecret } from '../support/claims';
import { AUTH_EXPIRE_SECS, cubeSqlSuite, META_ANSWER, type SqlDeployment } from '../support/cube-sql-api';
import { rejectionOf } from '../support/requests';

const apiSecret = randomSecret();
const keySecret = randomSecret();
const NOW = Math.floor(Date.now() / 1000);
const DAY = 86_400;
const PAST_INTERVAL_MS = (AUTH_EXPIRE_SECS + 1) * 1000;
const ALICE = { sub: 'alice', org: 'acme', roles: ['analyst'], tenant: 'acme', groups: ['analyst'] };

const cube = cubeSqlSuite(NOW * 1000);

interface Deployment extends SqlDeployment {
  /** A key as `sql-key` mints it, at the clock's time. */
  key(options?: { user?: string; expiresIn?: number }): ReturnType<typeof mintSqlKey>;
}

/** cube.js with the package's hook and SQL login, SQL keys on, judged by a clock the test moves. */
async function deployment(options: Partial<DualAuthOptions> = {}): Promise<Deployment> {
  const deployed = await cube.deploy({
    apiSecret,
    sqlKeySecrets: keySecret,
    tenantClaim: 'org',
    groupsClaim: 'roles',
    ...options,
  });
  const key = ({ user = 'alice', expiresIn = 30 * DAY } = {}) =>
    mintSqlKey({
      secret: createSecretKey(Buffer.from(keySecret)),
      user,
      securityContext: { ...ALICE, sub: user },
      expiresIn,
      now: deployed.clock.now(),
    });
  return { ...deployed, key };
}

const iso = (seconds: number) => new Date(seconds * 1000).toISOString();

describe('Cube 1.7.43 SQL API: a BI tool signs in with a SQL key and stays signed in while the key lives', () => {
  it("re-authenticates with the key's context every CUBESQL_AUTH_EXPIRE_SECS, and ends after its exp", async () => {
    const { clock, server, events, key, open } = await deployment();
    const minted = key({ expiresIn: 2 * DAY });
    const { session } = await open('alice', minted.key);
    expect(session?.state).toEqual({ user: 'alice', superuser: false, securityContext: minted.securityContext });
    server.seen.extendContext.length = 0;
    expect(await session?.query()).toEqual(META_ANSWER);
    expect(server.seen.extendContext).toEqual([minted.securityContext]);
    // Past the interval, then a day later: far past any identity-provider token, the key still holds.
    for (const ms of [PAST_INTERVAL_MS, DAY * 1000]) {
      clock.advance(ms);
      expect(await session?.query()).toEqual(META_ANSWER);
    }
    expect(session?.reauthentications).toBe(2);
    expect(session?.state.securityContext).toEqual(minted.securityContext);
    // Past the key's exp (plus the clock tolerance of 5 s): the next re-authentication ends the session.
    clock.advance(DAY * 1000);
    server.logged.length = 0;
    const { error } = await session!.query();
    expect(error).toBe(
      `Error calling authenticate during re-authentication: The SQL session of user "alice" ended when its token expired at ${iso(minted.expiresAt + 5)}: reconnect with a fresh token`,
    );
    expect(JSON.stringify(server.logged)).not.toContain(minted.key);
    // A new connection with the key is refused as expired.
    expect((await open('alice', minted.key)).error).toBe(
      `The SQL key expired at ${iso(minted.expiresAt).replace('.000Z', 'Z')}: ask for a new one`,
    );
    expect(events.filter((event) => event.type === 'sql-login').map((event) => [event.kind, event.outcome])).toEqual([
      ['key', 'accepted'],
      ['key', 'refused'],
    ]);
  });

  it('refuses the re-authentication of a session whose key was revoked since its login', async () => {
    const { clock, key, open } = await deployment();
    const minted = key();
    const { session } = await open('alice', minted.key);
    // The list is read at start: the revocation a restarted process would read, asked for at each re-authentication.
    const revoked = vi.spyOn(SqlKeys.prototype, 'isRevoked').mockImplementation((id) => id === minted.id);
    try {
      clock.advance(PAST_INTERVAL_MS);
      const { error } = await session!.query();
      expect(error).toBe(
        'Error calling authenticate during re-authentication: The SQL session of user "alice" was signed in by a credential that is now revoked: reconnect with a fresh token',
      );
    } finally {
      revoked.mockRestore();
    }
  });

  it('lets a superuser switch (SET user) to a user signed in with a live key, taking that key login’s context', async () => {
    const { key, open } = await deployment({ sqlSuperUser: 'ops' });
    await open('alice', key().key);
    const { session } = await open('ops', key({ user: 'ops' }).key);
    expect(await session!.setUser('alice')).toBeUndefined();
    expect(session!.state).toMatchObject({ user: 'alice', securityContext: ALICE });
  });

  it.each([
    ['a revoked key', (d: Deployment, id: string) => d.open('alice', id), 'is revoked: ask for a new one'],
    ['a key of another user', (d: Deployment) => d.open('bob', d.key().key), 'is not the user of this SQL key'],
  ])('refuses %s at login, naming why and never the key', async (_what, login, message) => {
    const minted = mintSqlKey({
      secret: createSecretKey(Buffer.from(keySecret)),
      user: 'alice',
      securityContext: ALICE,
      expiresIn: DAY,
      now: NOW * 1000,
    });
    const d = await deployment({ sqlKeysRevoked: [minted.id] });
    const { session, error } = await login(d, minted.key);
    expect(session).toBeUndefined();
    expect(error).toContain(message);
    expect(error).not.toContain(minted.key.slice(0, 20));
  });

  it('is never a REST token: checkAuth refuses it on both paths', async () => {
    const { hook, key } = await deployment();
    const minted = key().key;
    for (const headers of [{}, { 'request-origin': 'embeddable' }]) {
      const error = await rejectionOf(hook({ headers: { ...headers, authorization: `Bearer ${minted}` } }));
      expect(error).toMatchObject({
        status: 403,
        message: 'A SQL key is never accepted on the REST API: it signs in to the SQL API only',
      });
    }
  });
});
