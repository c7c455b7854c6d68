// Sessions of Cube 1.7.43's SQL API that outlive CUBESQL_AUTH_EXPIRE_SECS: the native server's call sequence (the
// login, then `checkSqlAuth(req, user, null)` before a query once 300 s have passed, `__user` and `SET user` switches)
// replayed against Cube's own SQLServer (test/support/cube-sql-api.ts), timed by a clock the test moves; and Cube
// Cloud's DAX API (XMLA) calls as its docs describe them (docs/cube-lines.md, "The SQL API's re-authentication").
import { createSecretKey } from 'node:crypto';
import { mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DualAuthOptions } from '../../src';
import type { AuthEvent } from '../../src/events';
import { mintSqlKey } from '../../src/hook/sql-login/sql-key';
import { randomSecret, timed } from '../support/claims';
import {
  AUTH_EXPIRE_SECS,
  callAsNative,
  cubeSqlSuite,
  META_ANSWER,
  NativeSession,
  type CubeSqlServer,
  type SqlDeployment,
} from '../support/cube-sql-api';
import { startJwksServer, type JwksServer } from '../support/jwks-server';
import { generateKeyPair, jwks } from '../support/keys';
import { signToken } from '../support/tokens';

const idpKey = generateKeyPair('RS256');
/** The identity provider's next key, which replaces idpKey in its key set. */
const nextIdpKey = generateKeyPair('RS256');
const STATIC_PASSWORD = randomSecret(16);
/** Seconds since 1970 the clock starts at: the time of the run. */
const NOW = Math.floor(Date.now() / 1000);
/** Cube's default interval, in ms, and a moment past it. */
const INTERVAL_MS = AUTH_EXPIRE_SECS * 1000;
const PAST_INTERVAL_MS = INTERVAL_MS + 1_000;
const RECONNECT = ': reconnect with a fresh token';
const DRIFT = `The SQL session of user "alice" cannot be re-authenticated, as that user signed in with credentials of different kinds or security contexts, and a session never moves to another credential${RECONNECT}`;
const KEY_SECRET = randomSecret(32);

/** A SQL key as `sql-key` mints it, issued at `nowMs` (signed with `secret`, KEY_SECRET unless told). */
const sqlKey = (user: string, securityContext: Record<string, unknown>, nowMs: number, secret = KEY_SECRET) =>
  mintSqlKey({
    secret: createSecretKey(Buffer.from(secret)),
    user,
    securityContext,
    expiresIn: 30 * 86_400,
    now: nowMs,
  }).key;

const cube = cubeSqlSuite(NOW * 1000);
let idp: JwksServer;

beforeAll(async () => {
  idp = await startJwksServer(jwks(idpKey));
});
afterAll(async () => {
  await idp?.close();
});

interface Deployment extends Omit<SqlDeployment, 'open'> {
  /** A token of the identity provider issued now (the clock's now), living `expiresIn` seconds, signed by `key`. */
  token(payload: Record<string, unknown>, expiresIn?: number, key?: typeof idpKey): string;
  open(user: string, password: string): Promise<NativeSession>;
}

/** cube.js with the package's hook and SQL login, judged by a clock the test moves, served by Cube's SQLServer. */
async function deployment(options: Partial<DualAuthOptions> = {}): Promise<Deployment> {
  const deployed = await cube.deploy({
    jwksUri: idp.url,
    tenantClaim: 'org',
    groupsClaim: 'roles',
    sqlUser: 'cube',
    sqlPassword: STATIC_PASSWORD,
    ...options,
  });
  const { clock } = deployed;
  const token = (payload: Record<string, unknown>, expiresIn = 600, key = idpKey) =>
    signToken(timed(payload, { now: Math.floor(clock.now() / 1000), expiresIn }), { key });
  async function open(user: string, password: string): Promise<NativeSession> {
    const { session, error } = await deployed.open(user, password);
    if (session === undefined) throw new Error(`the login of ${user} was refused: ${error}`);
    return session;
  }
  return { ...deployed, token, open };
}

const reauthentications = (events: AuthEvent[]) =>
  events.flatMap((event) =>
    event.type === 'sql-reauthenticated'
      ? ['accepted']
      : event.type === 'sql-reauthentication-refused'
        ? [event.code]
        : [],
  );
const iso = (seconds: number) => new Date(seconds * 1000).toISOString();

describe('Cube 1.7.43 SQL API: a token login survives re-authentication while its token lives', () => {
  it('keeps the same tenant and groups through the re-authentication at the expiry interval', async () => {
    const { clock, server, events, token, open } = await deployment();
    const session = await open('alice', token({ sub: 'alice', org: 'acme', roles: ['analyst'] }));
    const loginContext = session.state.securityContext;
    expect(loginContext).toMatchObject({ tenant: 'acme', groups: ['analyst'] });
    expect(await session.query()).toEqual(META_ANSWER);
    // Cube re-authenticates only once more than CUBESQL_AUTH_EXPIRE_SECS have passed.
    clock.advance(INTERVAL_MS);
    expect(await session.query()).toEqual(META_ANSWER);
    expect(session.reauthentications).toBe(0);
    clock.advance(1_000);
    server.seen.extendContext.length = 0;
    expect(await session.query()).toEqual(META_ANSWER);
    expect(session.reauthentications).toBe(1);
    expect(session.state.securityContext).toEqual(loginContext);
    expect(server.seen.extendContext).toEqual([loginContext]);
    expect(reauthentications(events)).toEqual(['accepted']);
  });

  it("ends the session at the first re-authentication after the token's exp, asking for a fresh token", async () => {
    const { clock, server, events, token, open } = await deployment();
    const password = token({ sub: 'alice', org: 'acme' }, 600);
    const session = await open('alice', password);
    clock.advance(PAST_INTERVAL_MS);
    expect(await session.query()).toEqual(META_ANSWER);
    // 602 s after the login: the token (exp + 5 s of tolerance) still lives, and the last re-authentication was 301 s ago.
    clock.advance(PAST_INTERVAL_MS);
    expect(await session.query()).toEqual(META_ANSWER);
    clock.advance(PAST_INTERVAL_MS);
    server.logged.length = 0;
    const { error } = await session.query();
    expect(error).toBe(
      `Error calling authenticate during re-authentication: The SQL session of user "alice" ended when its token expired at ${iso(NOW + 605)}${RECONNECT}`,
    );
    expect(JSON.stringify(server.logged)).not.toContain(password);
    expect(server.logged).toEqual([expect.objectContaining({ type: 'Auth Error', apiType: 'sql' })]);
    expect(reauthentications(events)).toEqual(['accepted', 'accepted', 'ERR_TOKEN_EXPIRED']);
    // A fresh token opens a new session, which lives as its own token does.
    const fresh = await open('alice', token({ sub: 'alice', org: 'acme' }));
    clock.advance(PAST_INTERVAL_MS);
    expect(await fresh.query()).toEqual(META_ANSWER);
  });

  it('ends it when the token outgrows CUBE_DUAL_AUTH_MAX_TOKEN_AGE, whatever its exp says', async () => {
    const { clock, token, open } = await deployment({ maxTokenAge: 400 });
    const session = await open('alice', token({ sub: 'alice', org: 'acme' }, 3600));
    clock.advance(PAST_INTERVAL_MS);
    expect(await session.query()).toEqual(META_ANSWER);
    clock.advance(PAST_INTERVAL_MS);
    expect((await session.query()).error).toBe(
      `Error calling authenticate during re-authentication: The SQL session of user "alice" outlived the maximum token age at ${iso(NOW + 405)}${RECONNECT}`,
    );
  });

  it("re-authenticates Cube's static login with its own empty context, as Cube's default does", async () => {
    const { clock, server, open } = await deployment();
    const session = await open('cube', STATIC_PASSWORD);
    for (let i = 0; i < 3; i++) {
      clock.advance(PAST_INTERVAL_MS);
      server.seen.extendContext.length = 0;
      expect(await session.query()).toEqual(META_ANSWER);
      expect(server.seen.extendContext).toEqual([{}]);
    }
    expect(session.reauthentications).toBe(3);
  });
});

describe('Cube 1.7.43 SQL API: one user name, several logins', () => {
  it('takes a renewed token with the same context as the same login, and keeps the first session up with it', async () => {
    const { clock, token, open } = await deployment();
    const first = await open('alice', token({ sub: 'alice', org: 'acme', jti: 'first' }, 400));
    clock.advance(PAST_INTERVAL_MS);
    // A second tool, or the same one with a renewed token: other iat, exp and jti, the same context.
    await open('alice', token({ sub: 'alice', org: 'acme', jti: 'second' }, 900));
    expect(await first.query()).toEqual(META_ANSWER);
    clock.advance(PAST_INTERVAL_MS);
    expect(await first.query()).toEqual(META_ANSWER);
    expect(first.state.securityContext).toMatchObject({ tenant: 'acme', jti: 'second' });
  });

  it('never guesses between two tenants under one user name, nor hands the globex session acme once it ends', async () => {
    const { clock, server, events, token, open } = await deployment();
    const acme = await open('alice', token({ sub: 'alice', org: 'acme' }, 1800));
    const globex = await open('alice', token({ sub: 'alice', org: 'globex' }, 400));
    clock.advance(PAST_INTERVAL_MS);
    server.seen.extendContext.length = 0;
    expect((await acme.query()).error).toBe(`Error calling authenticate during re-authentication: ${DRIFT}`);
    expect(server.seen.extendContext).toEqual([]);
    // The globex token has expired 700 s after the logins; its session may still ask, and must never get acme.
    clock.advance(2 * PAST_INTERVAL_MS);
    expect((await globex.query()).error).toBe(`Error calling authenticate during re-authentication: ${DRIFT}`);
    expect(globex.state.securityContext).toMatchObject({ tenant: 'globex' });
    expect(server.seen.extendContext).toEqual([]);
    // The acme tool reconnects with its token: a login with a password always works, and queries.
    const again = await open('alice', token({ sub: 'alice', org: 'acme' }, 1800));
    expect(await again.query()).toEqual(META_ANSWER);
    expect(reauthentications(events)).toEqual(['ERR_FORBIDDEN', 'ERR_FORBIDDEN']);
  });

  it('token-then-key drift: a token session never moves to the key login of other groups, on the clock', async () => {
    const { clock, server, events, token, open } = await deployment({ sqlKeySecrets: [KEY_SECRET] });
    const reader = await open('alice', token({ sub: 'alice', org: 'acme', roles: ['reader'] }, 400));
    const adminContext = { sub: 'alice', org: 'acme', roles: ['admin'], tenant: 'acme', groups: ['admin'] };
    const key = sqlKey('alice', adminContext, clock.now());
    const keySession = await open('alice', key);
    expect(keySession.state.securityContext).toMatchObject({ groups: ['admin'] });
    server.seen.extendContext.length = 0;
    // While both live, and after the token's end (400 s + 5 s of tolerance): never the key's groups for the token's
    // session, nor ["reader", "admin"].
    for (let i = 0; i < 3; i++) {
      clock.advance(PAST_INTERVAL_MS);
      expect((await reader.query()).error).toBe(`Error calling authenticate during re-authentication: ${DRIFT}`);
      expect(reader.state.securityContext).toMatchObject({ groups: ['reader'] });
    }
    expect(server.seen.extendContext).toEqual([]);
    expect(reauthentications(events)).toEqual(['ERR_FORBIDDEN', 'ERR_FORBIDDEN', 'ERR_FORBIDDEN']);
    expect(events.filter((event) => event.type === 'sql-reauthentication-refused')).toMatchObject([
      { reason: 'drift', protocol: 'postgres', method: 'password' },
      { reason: 'drift' },
      { reason: 'drift' },
    ]);
    // The key's own tool reconnects with its key, and works.
    const reconnected = await open('alice', key);
    expect(await reconnected.query()).toEqual(META_ANSWER);
    expect(reconnected.state.securityContext).toMatchObject({ groups: ['admin'] });
  });
});

describe("Cube Cloud's DAX API (XMLA), replayed as its docs describe it: no password-less call is answered", () => {
  /** Cube Cloud's XMLA server calls the hook through the same SQLServer (closed source: ntlm.mdx, kerberos.mdx). */
  const xmla = (server: CubeSqlServer, method: string, user: string, password: string | null) =>
    callAsNative(server.registered.checkSqlAuth, {
      request: { id: 'xmla-span-1', meta: null, protocol: 'xmla', method },
      user,
      password,
    });

  it.each([
    ['ntlm', 'alice'],
    ['kerberos', 'alice'],
    ['ntlm', 'cube'],
  ])('refuses XMLA %s for %s without a password, live login or not, at every interval', async (method, user) => {
    const { clock, server, events, token, open } = await deployment();
    await open('alice', token({ sub: 'alice', org: 'acme' }, 3600));
    for (let i = 0; i < 3; i++) {
      server.logged.length = 0;
      const { answer, error } = await xmla(server, method, user, null);
      expect(answer).toBeUndefined();
      expect(error).toBe(
        `The SQL login of user "${user}" came without a password over protocol "xmla", method "${method}": only Cube's re-authentication of a Postgres session is answered without one, so NTLM and Kerberos are not supported; sign in with a SQL key or an identity-provider token as the password`,
      );
      expect(server.logged).toEqual([
        expect.objectContaining({ type: 'Auth Error', protocol: 'xmla', method, apiType: 'sql' }),
      ]);
      clock.advance(PAST_INTERVAL_MS);
    }
    expect(events.filter((event) => event.type === 'sql-reauthentication-refused')).toMatchObject(
      Array(3).fill({ code: 'ERR_FORBIDDEN', protocol: 'xmla', method, reason: 'protocol' }),
    );
  });

  it('signs in a DAX API user whose password is a token, as over Postgres: a password is verified whatever the protocol', async () => {
    const { server, token } = await deployment();
    const password = token({ sub: 'alice', org: 'acme', roles: ['analyst'] });
    const { answer } = await xmla(server, 'password', 'alice', password);
    expect(answer).toMatchObject({ superuser: false, securityContext: { tenant: 'acme' }, skipPasswordCheck: true });
    expect((await xmla(server, 'password', 'alice', 'not-a-token')).error).toMatch(/^Malformed token/);
  });
});

describe('Cube 1.7.43 SQL API: switching users lands on a live login only', () => {
  it("lets CUBEJS_SQL_SUPER_USER's __user query take the other user's live context, and refuses one without", async () => {
    const { server, token, open } = await deployment({ sqlSuperUser: 'admin' });
    const admin = await open('admin', token({ sub: 'admin', org: 'ops' }));
    const bob = await open('bob', token({ sub: 'bob', org: 'globex', roles: ['viewer'] }));
    server.seen.extendContext.length = 0;
    // The load itself goes on to Cube's query engine, which these calls do not reach; the context did reach Cube.
    await admin.query('bob');
    expect(server.seen.extendContext).toEqual([bob.state.securityContext]);
    const carol = await admin.query('carol');
    expect(carol.error).toBe(
      `The SQL session of user "carol" has no live login in this Cube process (its token expired, or it never signed in here)${RECONNECT}`,
    );
  });

  it("refuses a __user switch by a user who is no superuser, in Cube's words, whatever logins are live", async () => {
    const { token, open } = await deployment({ sqlSuperUser: 'admin' });
    const alice = await open('alice', token({ sub: 'alice', org: 'acme' }));
    await open('bob', token({ sub: 'bob', org: 'globex' }));
    expect((await alice.query('bob')).error).toBe(
      "You cannot change security context via __user from alice to bob, because it's not allowed.",
    );
  });

  it('switches a session by SET user (the native change_user) to a live login, which then re-authenticates as itself', async () => {
    const { clock, token, open } = await deployment({ sqlSuperUser: 'admin' });
    const admin = await open('admin', token({ sub: 'admin', org: 'ops' }));
    const bob = await open('bob', token({ sub: 'bob', org: 'globex' }, 400));
    expect(await admin.setUser('bob')).toBeUndefined();
    expect(admin.state).toMatchObject({ user: 'bob', securityContext: bob.state.securityContext });
    expect(await admin.setUser('carol')).toBe("user 'bob' is not allowed to switch to 'carol'");
    clock.advance(PAST_INTERVAL_MS);
    expect(await admin.query()).toEqual(META_ANSWER);
    // Bob's token has expired by the next interval: the switched session ends with it.
    clock.advance(PAST_INTERVAL_MS);
    expect((await admin.query()).error).toMatch(/^Error calling authenticate during re-authentication: .*"bob" ended/);
  });
});

describe('Cube 1.7.43 SQL API: a session ends with the secret, key or password that proved it', () => {
  const dirs: string[] = [];
  afterAll(() => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  /** A secrets directory holding `files`, as a mounted Secret would. */
  function secretsDir(files: Record<string, string>): string {
    const dir = mkdtempSync(join(tmpdir(), 'cube-dual-auth-sessions-'));
    dirs.push(dir);
    for (const [name, content] of Object.entries(files)) writeFileSync(join(dir, name), content);
    return dir;
  }

  /** Swaps `name` in `dir` for `content` by a rename, as Kubernetes does, and waits until the hook applied it. */
  async function rotate(dir: string, events: AuthEvent[], name: string, content: string): Promise<void> {
    const staged = mkdtempSync(join(tmpdir(), 'cube-dual-auth-staged-'));
    dirs.push(staged);
    writeFileSync(join(staged, name), content);
    const seen = events.length;
    renameSync(join(staged, name), join(dir, name));
    const deadline = Date.now() + 10_000;
    const applied = () =>
      events
        .slice(seen)
        .some((event) => event.type === 'secret-reload' && event.file === name && event.outcome === 'applied');
    while (!applied()) {
      if (Date.now() > deadline) throw new Error(`${name} was not applied within 10 s`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  const PREFIX = 'Error calling authenticate during re-authentication: ';

  it('refuses a key session at its next re-authentication once its secret left sql-key-secrets', async () => {
    const newSecret = randomSecret(32);
    const dir = secretsDir({ 'sql-key-secrets': `${KEY_SECRET}\n` });
    const { clock, events, open } = await deployment({ secretsDir: dir, secretsPollMs: 200 });
    const session = await open('alice', sqlKey('alice', { sub: 'alice', org: 'acme', tenant: 'acme' }, clock.now()));
    clock.advance(PAST_INTERVAL_MS);
    expect(await session.query()).toEqual(META_ANSWER);
    await rotate(dir, events, 'sql-key-secrets', `${newSecret}\n`);
    clock.advance(PAST_INTERVAL_MS);
    expect((await session.query()).error).toBe(
      `${PREFIX}The SQL session of user "alice" was signed in by a SQL key whose secret this deployment no longer has: sign in again with a new SQL key`,
    );
    expect(reauthentications(events)).toEqual(['accepted', 'ERR_SECRET_REMOVED']);
    // A key of the secret in force opens a session that re-authenticates.
    const fresh = await open(
      'alice',
      sqlKey('alice', { sub: 'alice', org: 'acme', tenant: 'acme' }, clock.now(), newSecret),
    );
    clock.advance(PAST_INTERVAL_MS);
    expect(await fresh.query()).toEqual(META_ANSWER);
  });

  it("refuses a token session once its kid left the identity provider's key set", async () => {
    // A cooldown of 0: the first token of the new key refreshes the key set at once, as it would 30 s later.
    const { clock, events, token, open } = await deployment({ jwksCooldownMs: 0 });
    const session = await open('alice', token({ sub: 'alice', org: 'acme' }, 3600));
    clock.advance(PAST_INTERVAL_MS);
    expect(await session.query()).toEqual(META_ANSWER);
    idp.jwks = jwks(nextIdpKey);
    try {
      // The identity provider rotated: bob signs in with a token of its new key, and the key set is loaded anew.
      await open('bob', token({ sub: 'bob', org: 'globex' }, 3600, nextIdpKey));
      clock.advance(PAST_INTERVAL_MS);
      expect((await session.query()).error).toBe(
        `${PREFIX}The SQL session of user "alice" was signed in by a token whose key "${idpKey.kid}" has left its identity provider's key set: sign in again with a fresh token`,
      );
      expect(reauthentications(events)).toEqual(['accepted', 'ERR_KEY_REMOVED']);
    } finally {
      idp.jwks = jwks(idpKey);
    }
  });

  it('refuses a static-login session once sql-password changed, and the new password signs in', async () => {
    const newPassword = randomSecret(16);
    const dir = secretsDir({ 'sql-password': `${STATIC_PASSWORD}\n` });
    const { clock, events, open } = await deployment({ secretsDir: dir, secretsPollMs: 200 });
    const session = await open('cube', STATIC_PASSWORD);
    clock.advance(PAST_INTERVAL_MS);
    expect(await session.query()).toEqual(META_ANSWER);
    await rotate(dir, events, 'sql-password', `${newPassword}\n`);
    clock.advance(PAST_INTERVAL_MS);
    expect((await session.query()).error).toBe(
      `${PREFIX}The SQL session of user "cube" was signed in with a password that has changed since: sign in again with the new password`,
    );
    expect(reauthentications(events)).toEqual(['accepted', 'ERR_PASSWORD_CHANGED']);
    const fresh = await open('cube', newPassword);
    clock.advance(PAST_INTERVAL_MS);
    expect(await fresh.query()).toEqual(META_ANSWER);
  });
});
