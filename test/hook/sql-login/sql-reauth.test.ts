// One user name, one identity (docs/security.md, "One name, one identity"): the password-less calls of checkSqlAuth
// over every protocol and method Cube passes, and the attacks of issue 39 replayed as Cube and Cube Cloud call the hook,
// on a clock the tests move.
import { createSecretKey } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { DualAuthOptions } from '../../../src';
import type { AuthEvent } from '../../../src/events';
import { mintSqlKey } from '../../../src/hook/sql-login/sql-key';
import { timed } from '../../support/claims';
import { rejectionOf } from '../../support/requests';
import { NOW, sqlLoginSuite } from '../../support/sql-login';
import { signToken } from '../../support/tokens';

const suite = sqlLoginSuite();
const { keySecret, idpKey, keyOptions: options } = suite;
const DAY = 86_400;

/** The request Cube Core passes (auth.rs; sql-server.ts for `__user`), and Cube Cloud's XMLA server's. */
const postgres = () => ({ id: 'span-1', meta: null, protocol: 'postgres', method: 'password' });
const xmla = (method: string) => ({ id: 'span-2', meta: null, protocol: 'xmla', method });

const token = (payload: Record<string, unknown>, expiresIn = 300) =>
  signToken(timed(payload, { now: NOW, expiresIn }), { key: idpKey });

/** A SQL key as `sql-key` mints it for `user`, carrying `context`. */
const sqlKey = (user: string, context: Record<string, unknown>, expiresIn = 30 * DAY) =>
  mintSqlKey({
    secret: createSecretKey(Buffer.from(keySecret)),
    user,
    securityContext: context,
    expiresIn,
    now: NOW * 1000,
  }).key;

function sqlLogin(more: DualAuthOptions = {}, events: AuthEvent[] = []) {
  return { ...suite.sqlLogin(options(more), { events, cubeVersion: () => '1.7.43' }), events };
}

const ALICE = { sub: 'alice', org: 'acme', roles: ['reader'] };

interface Row {
  readonly req: 'postgres' | 'none' | { protocol?: unknown; method?: unknown };
  readonly user: unknown;
  readonly password: 'none' | 'alice' | 'mallory' | 'admin' | 'not-a-token';
  readonly mode: 'sub' | '*';
  readonly superuser: boolean;
  readonly live: boolean;
  readonly outcome: 'accepted' | 'refused';
  readonly code?: string;
  readonly message?: RegExp;
}

const passwords = {
  alice: () => token(ALICE),
  mallory: () => token({ sub: 'mallory', org: 'evil', roles: ['reader'] }),
  admin: () => token({ sub: 'admin', org: 'acme', roles: ['ops'] }),
  'not-a-token': () => 'hunter2',
} as const;

const PROTOCOL = /came without a password over protocol/;
const accepted = { outcome: 'accepted' } as const;
const forbidden = (message: RegExp) => ({ outcome: 'refused', code: 'ERR_FORBIDDEN', message }) as const;
const base: Omit<Row, 'outcome'> = {
  req: 'postgres',
  user: 'alice',
  password: 'none',
  mode: 'sub',
  superuser: false,
  live: true,
};

const ROWS: ReadonlyArray<[string, Row]> = [
  ["Cube Core's re-authentication of a live login", { ...base, ...accepted }],
  ['the same under "*", one subject under the name', { ...base, mode: '*', ...accepted }],
  [
    "Cube Core's re-authentication without a live login",
    { ...base, live: false, outcome: 'refused', code: 'ERR_TOKEN_MISSING', message: /has no live login/ },
  ],
  [
    "Cube Cloud's DAX API, NTLM",
    { ...base, req: { protocol: 'xmla', method: 'ntlm' }, ...forbidden(/protocol "xmla", method "ntlm".*SQL key/) },
  ],
  [
    "Cube Cloud's DAX API, Kerberos, under *, with the superuser set",
    {
      ...base,
      req: { protocol: 'xmla', method: 'kerberos' },
      mode: '*',
      superuser: true,
      ...forbidden(/protocol "xmla", method "kerberos"/),
    },
  ],
  [
    'XMLA without a live login',
    { ...base, req: { protocol: 'xmla', method: 'ntlm' }, live: false, ...forbidden(PROTOCOL) },
  ],
  ['no request at all', { ...base, req: 'none', ...forbidden(/protocol none, method none/) }],
  [
    'a request without protocol and method (Cube before 1.3.13)',
    { ...base, req: {}, ...forbidden(/passes no protocol or method to checkSqlAuth \(Cube 1\.3\.13 and later do\)/) },
  ],
  [
    'Postgres with another method',
    { ...base, req: { protocol: 'postgres', method: 'ntlm' }, ...forbidden(/protocol "postgres", method "ntlm"/) },
  ],
  [
    'a protocol that is no string',
    { ...base, req: { protocol: 7, method: 'password' }, ...forbidden(/protocol a number, method "password"/) },
  ],
  [
    'a protocol with terminal escapes, shown escaped',
    {
      ...base,
      req: { protocol: 'x\u001b[31mred', method: 'password' },
      ...forbidden(/protocol "x\?\[31mred", method/),
    },
  ],
  [
    'a token over XMLA: a password is verified whatever the protocol',
    { ...base, req: { protocol: 'xmla', method: 'password' }, password: 'alice', live: false, ...accepted },
  ],
  [
    'a wrong password over XMLA',
    {
      ...base,
      req: { protocol: 'xmla', method: 'password' },
      password: 'not-a-token',
      outcome: 'refused',
      code: 'ERR_TOKEN_MALFORMED',
    },
  ],
  [
    'another subject\'s token under "*" as the superuser',
    {
      ...base,
      user: 'admin',
      password: 'mallory',
      mode: '*',
      superuser: true,
      ...forbidden(/"admin" is the superuser.*own "sub" names it/),
    },
  ],
  [
    'the superuser\'s own token under "*"',
    { ...base, user: 'admin', password: 'admin', mode: '*', superuser: true, ...accepted },
  ],
  [
    "the superuser's own token by its sub claim",
    { ...base, user: 'admin', password: 'admin', superuser: true, ...accepted },
  ],
  [
    'another subject\'s token under "*", no superuser set',
    { ...base, user: 'admin', password: 'mallory', mode: '*', ...accepted },
  ],
  ['a user name over 256 bytes', { ...base, user: 'é'.repeat(129), ...forbidden(/longer than 256 bytes/) }],
  ['an empty user name', { ...base, user: '', ...forbidden(/has no user name/) }],
  ['a user name that is no string', { ...base, user: 42, ...forbidden(/has no user name/) }],
];

describe('checkSqlAuth over (protocol, method, user, password, mode, superuser, live logins)', () => {
  it.each(ROWS)('%s', async (_name, row) => {
    const superuser = row.superuser ? { sqlSuperUser: 'admin' } : {};
    const { checkSqlAuth } = sqlLogin({ ...(row.mode === '*' && { sqlUserClaim: '*' }), ...superuser });
    const aliceToken = passwords.alice();
    if (row.live) await checkSqlAuth(postgres(), 'alice', aliceToken);
    const req = row.req === 'postgres' ? postgres() : row.req === 'none' ? undefined : row.req;
    const password = row.password === 'none' ? null : passwords[row.password]();
    const answer = checkSqlAuth(req, row.user, password);
    if (row.outcome === 'accepted') {
      const login = await answer;
      expect(login).toMatchObject({ superuser: false, skipPasswordCheck: true, password });
      const sub = row.password === 'none' ? 'alice' : row.password;
      expect(login.securityContext).toMatchObject({ sub });
      return;
    }
    const error = await rejectionOf(answer);
    expect(error.code).toBe(row.code);
    if (row.message) expect(error.message).toMatch(row.message);
    for (const secret of [aliceToken, password ?? aliceToken]) expect(error.message).not.toContain(secret);
    expect(error.message).not.toContain('eyJ');
    expect([...error.message].every((char) => char >= ' ')).toBe(true);
  });

  it('reports a refused password-less call with its protocol and method as bounded labels, and why', async () => {
    const { checkSqlAuth, events } = sqlLogin();
    await checkSqlAuth(postgres(), 'alice', token(ALICE));
    await rejectionOf(checkSqlAuth(xmla('ntlm'), 'alice', null));
    await rejectionOf(checkSqlAuth({ protocol: 'mdx\n', method: 'x'.repeat(300) }, 'alice', null));
    await rejectionOf(checkSqlAuth(postgres(), 'bob', null));
    const refused = events.filter((event) => event.type === 'sql-reauthentication-refused');
    expect(refused).toMatchObject([
      { code: 'ERR_FORBIDDEN', protocol: 'xmla', method: 'ntlm', reason: 'protocol' },
      { code: 'ERR_FORBIDDEN', protocol: 'other', method: 'other', reason: 'protocol' },
      { code: 'ERR_TOKEN_MISSING', protocol: 'postgres', method: 'password' },
    ]);
    expect(refused[2]).not.toHaveProperty('reason');
  });
});

describe("req.protocol and req.method: the request's own properties only", () => {
  const inherited = () => Object.create({ protocol: 'postgres', method: 'password' }) as object;
  const getters = () => ({
    get protocol() {
      return 'postgres';
    },
    get method() {
      return 'password';
    },
  });
  const INHERITED = `The SQL login of user "alice" came without a password over protocol inherited (not the request's own), method inherited (not the request's own): only Cube's re-authentication of a Postgres session is answered without one, so NTLM and Kerberos are not supported; sign in with a SQL key or an identity-provider token as the password`;

  it.each([
    ['inherited through a prototype', inherited],
    ['behind getters', getters],
    [
      'one own, one inherited',
      () => Object.assign(Object.create({ method: 'password' }) as object, { protocol: 'postgres' }),
    ],
  ])('refuses a re-authentication whose protocol and method are %s, live login or not', async (_name, req) => {
    const { checkSqlAuth, events } = sqlLogin();
    await checkSqlAuth(postgres(), 'alice', token(ALICE));
    const error = await rejectionOf(checkSqlAuth(req(), 'alice', null));
    expect(error.code).toBe('ERR_FORBIDDEN');
    expect(error.message).toMatch(/^The SQL login of user "alice" came without a password over protocol /);
    expect(events.filter((event) => event.type === 'sql-reauthentication-refused')).toMatchObject([
      { reason: 'protocol' },
    ]);
  });

  it('names what it read in the refusal, and answers the same fields given as own properties', async () => {
    const { checkSqlAuth } = sqlLogin();
    await checkSqlAuth(postgres(), 'alice', token(ALICE));
    expect((await rejectionOf(checkSqlAuth(inherited(), 'alice', null))).message).toBe(INHERITED);
    const own = Object.assign(Object.create({ protocol: 'xmla' }) as object, {
      protocol: 'postgres',
      method: 'password',
    });
    expect((await checkSqlAuth(own, 'alice', null)).securityContext).toMatchObject({ sub: 'alice' });
  });
});

describe('the attacks of issue 39, replayed', () => {
  it('an attacker signing in under alice\'s name ("*") gets nothing of hers, before or after his token expires', async () => {
    const { checkSqlAuth, clock, events } = sqlLogin({ sqlUserClaim: '*' });
    // alice's BI tool, with a 30-day SQL key; the attacker with a token of his own, under her name.
    const aliceKey = sqlKey('alice', { ...ALICE, tenant: 'acme', groups: ['reader'] });
    const alice = await checkSqlAuth(postgres(), 'alice', aliceKey);
    expect(alice.securityContext).toMatchObject({ tenant: 'acme' });
    const attacker = await checkSqlAuth(postgres(), 'alice', token({ sub: 'mallory', org: 'evil' }, 60));
    expect(attacker.securityContext).toMatchObject({ sub: 'mallory', tenant: 'evil' });
    const ambiguous = /more than one identity signed in under that user name/;
    await expect(checkSqlAuth(postgres(), 'alice', null)).rejects.toThrow(ambiguous);
    // His token expires; his session's next re-authentication must not get alice's context.
    clock.advance(120_000);
    for (let i = 0; i < 3; i++) {
      const error = await rejectionOf(checkSqlAuth(postgres(), 'alice', null));
      expect(error).toMatchObject({ code: 'ERR_FORBIDDEN' });
      expect(error.message).toMatch(ambiguous);
      clock.advance(300_000);
    }
    expect(events.filter((event) => event.type === 'sql-reauthentication-refused').at(-1)).toMatchObject({
      reason: 'ambiguous',
    });
    // alice's own sessions reconnect with her key: a login with a password always works.
    await expect(checkSqlAuth(postgres(), 'alice', aliceKey)).resolves.toMatchObject({
      securityContext: { tenant: 'acme' },
    });
  });

  it('the superuser route: under "*" no token holder signs in as the superuser to reach others through __user', async () => {
    const { checkSqlAuth, canSwitchSqlUser, events } = sqlLogin({ sqlUserClaim: '*', sqlSuperUser: 'admin' });
    await checkSqlAuth(postgres(), 'alice', token(ALICE, 3600));
    const error = await rejectionOf(checkSqlAuth(postgres(), 'admin', token({ sub: 'mallory', org: 'evil' })));
    expect(error).toMatchObject({ code: 'ERR_FORBIDDEN' });
    expect(events.filter((event) => event.type === 'sql-login').at(-1)).toMatchObject({
      outcome: 'refused',
      reason: 'superuser',
    });
    // A key minted for another subject does not pass either: a key's own sub is its user's.
    const forged = sqlKey('admin', { sub: 'mallory', org: 'evil', tenant: 'evil', groups: [] });
    await expect(checkSqlAuth(postgres(), 'admin', forged)).rejects.toMatchObject({ code: 'ERR_FORBIDDEN' });
    // The real superuser, whose token's sub names it, still may switch; it is never a superuser session to Cube.
    const admin = await checkSqlAuth(postgres(), 'admin', token({ sub: 'admin', org: 'acme' }));
    expect(admin.superuser).toBe(false);
    await expect(canSwitchSqlUser('admin', 'alice')).resolves.toBe(true);
  });

  it('token-then-key drift: a session never moves to a credential with other groups, before or after its token ends', async () => {
    const { checkSqlAuth, clock } = sqlLogin();
    const reader = await checkSqlAuth(postgres(), 'alice', token(ALICE, 300));
    expect(reader.securityContext).toMatchObject({ groups: ['reader'] });
    const admin = { ...ALICE, roles: ['admin'], tenant: 'acme', groups: ['admin'] };
    await checkSqlAuth(postgres(), 'alice', sqlKey('alice', admin));
    const drift = /signed in with credentials of different kinds or security contexts/;
    await expect(checkSqlAuth(postgres(), 'alice', null)).rejects.toThrow(drift);
    clock.advance(310_000);
    const error = await rejectionOf(checkSqlAuth(postgres(), 'alice', null));
    expect(error).toMatchObject({ code: 'ERR_FORBIDDEN' });
    expect(error.message).toMatch(drift);
    expect(error.message).not.toMatch(/admin/);
  });

  it('a token and a key of the same context are still two credentials: a session ends with its own', async () => {
    const { checkSqlAuth, clock } = sqlLogin();
    const login = await checkSqlAuth(postgres(), 'alice', token(ALICE, 300));
    await checkSqlAuth(postgres(), 'alice', sqlKey('alice', login.securityContext as Record<string, unknown>));
    clock.advance(310_000);
    await expect(checkSqlAuth(postgres(), 'alice', null)).rejects.toMatchObject({ code: 'ERR_FORBIDDEN' });
  });

  it("10,001 logins of one user evict only that user's own oldest: every other user's session lives on", async () => {
    const { checkSqlAuth, events } = sqlLogin();
    await checkSqlAuth(postgres(), 'bob', token({ sub: 'bob', org: 'acme' }, 3600));
    const context = { ...ALICE, tenant: 'acme', groups: ['reader'] };
    for (let i = 0; i < 10_001; i++) await checkSqlAuth(postgres(), 'alice', sqlKey('alice', context));
    await expect(checkSqlAuth(postgres(), 'bob', null)).resolves.toMatchObject({ securityContext: { sub: 'bob' } });
    await expect(checkSqlAuth(postgres(), 'alice', null)).resolves.toMatchObject({
      securityContext: { tenant: 'acme' },
    });
    expect(events.filter((event) => event.type === 'sql-login' && event.outcome === 'refused')).toEqual([]);
  });

  it('one token under 10,001 names ("*") fills the memory, then is refused: nobody else is evicted', async () => {
    const { checkSqlAuth, events } = sqlLogin({ sqlUserClaim: '*' });
    await checkSqlAuth(postgres(), 'bob', token({ sub: 'bob', org: 'acme' }, 3600));
    const flood = token({ sub: 'mallory', org: 'evil' }, 3600);
    const outcomes = { accepted: 0, refused: 0 };
    let last: Error | undefined;
    for (let i = 0; i < 10_001; i++) {
      try {
        await checkSqlAuth(postgres(), `name-${i}`, flood);
        outcomes.accepted += 1;
      } catch (error) {
        outcomes.refused += 1;
        last = error as Error;
      }
    }
    // bob's login and 9,999 of the names fill the 10,000 places; the other two are refused.
    expect(outcomes).toEqual({ accepted: 9_999, refused: 2 });
    expect(last?.message).toMatch(/holds as many live SQL logins as it may, and keeps every other user's/);
    expect(last?.message).not.toContain(flood);
    await expect(checkSqlAuth(postgres(), 'bob', null)).resolves.toMatchObject({ securityContext: { sub: 'bob' } });
    expect(events.filter((event) => event.type === 'sql-login' && event.reason === 'capacity')).toHaveLength(2);
  });

  it.each([
    [
      'Entra ID',
      { uti: 'AbCdEf123', aio: 'E2ZgYJi7', rh: '0.AAAA-first.' },
      { uti: 'XyZ987', aio: 'Other4ab', rh: '0.AAAA-second.' },
    ],
    [
      'Keycloak',
      { sid: 'f3a1-session-1', session_state: 'f3a1-session-1' },
      { sid: 'b7c2-session-2', session_state: 'b7c2-session-2' },
    ],
  ])('%s-shaped renewals and second tools are one login: only per-token claims differ', async (_idp, first, second) => {
    const { checkSqlAuth, clock } = sqlLogin();
    await checkSqlAuth(postgres(), 'alice', token({ ...ALICE, ...first, jti: 'one' }, 300));
    clock.advance(200_000);
    await checkSqlAuth(postgres(), 'alice', token({ ...ALICE, ...second, jti: 'two' }, 600));
    await expect(checkSqlAuth(postgres(), 'alice', null)).resolves.toMatchObject({ securityContext: second });
    clock.advance(200_000);
    await expect(checkSqlAuth(postgres(), 'alice', null)).resolves.toMatchObject({ securityContext: second });
    // With no per-token claims configured, they are compared, and the name holds two contexts.
    const strict = sqlLogin({ sqlPerTokenClaims: [] });
    await strict.checkSqlAuth(postgres(), 'alice', token({ ...ALICE, ...first }, 300));
    await strict.checkSqlAuth(postgres(), 'alice', token({ ...ALICE, ...second }, 600));
    await expect(strict.checkSqlAuth(postgres(), 'alice', null)).rejects.toMatchObject({ code: 'ERR_FORBIDDEN' });
  });

  it('copies a context a securityContext function filled with a function as JSON, as Cube would send it', async () => {
    const { checkSqlAuth } = sqlLogin({ securityContext: (context) => ({ ...context, describe: () => 'alice' }) });
    const login = await checkSqlAuth(postgres(), 'alice', token(ALICE));
    expect(login.securityContext).toMatchObject({ sub: 'alice', tenant: 'acme' });
    expect(login.securityContext).not.toHaveProperty('describe');
    await expect(checkSqlAuth(postgres(), 'alice', null)).resolves.toMatchObject({ securityContext: { sub: 'alice' } });
  });

  it('gives each login and re-authentication a copy: what cube.js code changes never reaches the next answer', async () => {
    const { checkSqlAuth } = sqlLogin();
    const login = await checkSqlAuth(postgres(), 'alice', token(ALICE));
    (login.securityContext as { groups: string[] }).groups.push('admin');
    (login.securityContext as { tenant: string }).tenant = 'globex';
    await expect(checkSqlAuth(postgres(), 'alice', null)).resolves.toMatchObject({
      securityContext: { tenant: 'acme', groups: ['reader'] },
    });
  });
});
