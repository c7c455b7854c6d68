import { createSecretKey } from 'node:crypto';
import { decode, sign, verify as jwtVerify } from 'jsonwebtoken';
import { describe, expect, it, vi } from 'vitest';
import { createCheckAuth, DualAuthConfigError, optionsFromEnv, type DualAuthOptions } from '../../../src';
import { ENV_NAMES, resolveOptions } from '../../../src/config/options';
import { mintSqlKey, SQL_KEY_AUDIENCE, SQL_KEY_TYPE, SqlKeys } from '../../../src/hook/sql-login/sql-key';
import type { AuthEvent } from '../../../src/events';
import { randomSecret, timed } from '../../support/claims';
import { createClock } from '../../support/clock';
import { rejectionOf } from '../../support/requests';
import { NOW, sqlLoginSuite } from '../../support/sql-login';
import { signToken } from '../../support/tokens';

const suite = sqlLoginSuite();
const { apiSecret, keySecret, idpKey, idp, made, keyOptions: base } = suite;
const nextKeySecret = randomSecret();
const DAY = 86_400;

const sqlRequest = () => ({ id: 'span-1', meta: null, protocol: 'postgres', method: 'password' });

const CONTEXT = { sub: 'alice', org: 'acme', roles: ['analyst'], tenant: 'acme', groups: ['analyst'] };

/** A key as `sql-key` mints it, signed with `secret` at `now` (seconds). */
function key(
  options: { secret?: string; user?: string; expiresIn?: number; now?: number; context?: object } = {},
): ReturnType<typeof mintSqlKey> {
  return mintSqlKey({
    secret: createSecretKey(Buffer.from(options.secret ?? keySecret)),
    user: options.user ?? 'alice',
    securityContext: { ...(options.context ?? CONTEXT) },
    expiresIn: options.expiresIn ?? 30 * DAY,
    now: (options.now ?? NOW) * 1000,
  });
}

/** The SQL login of options, judged by a clock the test moves. */
const sqlLogin = (options: DualAuthOptions, settings: { events?: AuthEvent[]; namespaces?: string[] } = {}) =>
  suite.sqlLogin(options, { ...settings, cubeVersion: () => '1.7.43' });

describe('mintSqlKey', () => {
  it('signs an HS256 key with its own typ and audience, carrying the user, the security context, a jti, iat and exp', () => {
    const minted = key();
    const { header, payload } = decode(minted.key, { complete: true }) as unknown as {
      header: Record<string, unknown>;
      payload: Record<string, unknown>;
    };
    expect(header).toEqual({ alg: 'HS256', typ: SQL_KEY_TYPE });
    expect(payload).toEqual({
      sub: 'alice',
      aud: SQL_KEY_AUDIENCE,
      jti: minted.id,
      iat: NOW,
      exp: NOW + 30 * DAY,
      security_context: { ...CONTEXT, iat: NOW, exp: NOW + 30 * DAY, jti: minted.id },
    });
    expect(jwtVerify(minted.key, keySecret, { algorithms: ['HS256'], audience: SQL_KEY_AUDIENCE })).toEqual(payload);
    expect(minted).toMatchObject({ user: 'alice', issuedAt: NOW, expiresAt: NOW + 30 * DAY });
  });

  it('gives every key an id of its own', () => {
    const ids = new Set(Array.from({ length: 50 }, () => key().id));
    expect(ids.size).toBe(50);
    for (const id of ids) expect(id).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('leaves out what JSON does not carry (the hidden namespace members of a context)', () => {
    const context: Record<string, unknown> = { tenant: 'acme' };
    Object.defineProperty(context, 'https://acme.example/claims', { value: context, enumerable: false });
    const payload = decode(key({ context }).key) as Record<string, unknown>;
    expect(payload.security_context).toEqual({
      tenant: 'acme',
      iat: NOW,
      exp: NOW + 30 * DAY,
      jti: expect.any(String),
    });
  });
});

describe('checkSqlAuth with a SQL key', () => {
  it("gives the key's own iat, exp and jti to the context, not the identity-provider token's, also for a key minted before", async () => {
    const { checkSqlAuth } = sqlLogin(base());
    const tokenTimes = { iat: NOW - 60, exp: NOW + 3600, jti: 'token-id' };
    const minted = key({ context: { ...CONTEXT, ...tokenTimes } });
    const login = await checkSqlAuth(sqlRequest(), 'alice', minted.key);
    expect(login.securityContext).toMatchObject({ iat: NOW, exp: NOW + 30 * DAY, jti: minted.id, tenant: 'acme' });
    expect(minted.securityContext).toEqual(login.securityContext);
    // As 0.2.0 minted it: the token's times inside the signed context.
    const older = sign(
      {
        sub: 'alice',
        aud: SQL_KEY_AUDIENCE,
        jti: 'old-key',
        iat: NOW,
        exp: NOW + 60,
        security_context: { ...CONTEXT, ...tokenTimes },
      },
      keySecret,
      { algorithm: 'HS256', header: { alg: 'HS256', typ: SQL_KEY_TYPE } },
    );
    await expect(checkSqlAuth(sqlRequest(), 'alice', older)).resolves.toMatchObject({
      securityContext: { iat: NOW, exp: NOW + 60, jti: 'old-key' },
    });
  });

  it("signs in the key's user with the security context it carries, and reports a key login", async () => {
    const events: AuthEvent[] = [];
    const { checkSqlAuth } = sqlLogin(base(), { events });
    const minted = key();
    await expect(checkSqlAuth(sqlRequest(), 'alice', minted.key)).resolves.toEqual({
      password: minted.key,
      superuser: false,
      securityContext: { ...CONTEXT, iat: NOW, exp: NOW + 30 * DAY, jti: minted.id },
      skipPasswordCheck: true,
    });
    expect(events).toEqual([{ type: 'sql-login', kind: 'key', outcome: 'accepted', keyId: minted.id }]);
  });

  it("gives the context the claims namespace's member, as a token login does", async () => {
    const { checkSqlAuth } = sqlLogin(base(), { namespaces: ['https://acme.example/claims'] });
    const minted = key();
    const login = await checkSqlAuth(sqlRequest(), 'alice', minted.key);
    const keyContext = { ...CONTEXT, iat: NOW, exp: NOW + 30 * DAY, jti: minted.id };
    expect(JSON.parse(JSON.stringify(login.securityContext))).toEqual({
      ...keyContext,
      'https://acme.example/claims': keyContext,
    });
  });

  it('accepts a key signed by any secret in force (rotation), and refuses one signed by a secret taken out', async () => {
    const rotated = { ...base(), sqlKeySecrets: [nextKeySecret, keySecret] };
    const { checkSqlAuth } = sqlLogin(rotated);
    await expect(checkSqlAuth(sqlRequest(), 'alice', key({ secret: keySecret }).key)).resolves.toMatchObject({
      securityContext: CONTEXT,
    });
    await expect(checkSqlAuth(sqlRequest(), 'alice', key({ secret: nextKeySecret }).key)).resolves.toMatchObject({
      securityContext: CONTEXT,
    });
    const { checkSqlAuth: after } = sqlLogin({ ...base(), sqlKeySecrets: [nextKeySecret] });
    const error = await rejectionOf(after(sqlRequest(), 'alice', key({ secret: keySecret }).key));
    expect(error).toMatchObject({ code: 'ERR_SIGNATURE_INVALID' });
  });

  it.each([
    [
      'expired',
      (minted: string) => ({ at: 31 * DAY, key: minted }),
      'ERR_TOKEN_EXPIRED',
      /^The SQL key expired at \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ: ask for a new one$/,
    ],
    [
      'tampered (its context changed)',
      (minted: string) => {
        const [header, payload, signature] = minted.split('.') as [string, string, string];
        const claims = JSON.parse(Buffer.from(payload, 'base64url').toString()) as Record<string, unknown>;
        claims.security_context = { ...CONTEXT, tenant: 'globex', org: 'globex' };
        return { at: 0, key: `${header}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.${signature}` };
      },
      'ERR_SIGNATURE_INVALID',
      /^The SQL key is not valid: it was altered, or signed with a secret this deployment no longer has$/,
    ],
    [
      'signed with the API secret',
      () => ({ at: 0, key: key({ secret: apiSecret }).key }),
      'ERR_SIGNATURE_INVALID',
      /^The SQL key is not valid/,
    ],
    [
      'cut short',
      (minted: string) => ({ at: 0, key: minted.slice(0, minted.lastIndexOf('.') + 5) }),
      'ERR_SIGNATURE_INVALID',
      /^The SQL key is not valid/,
    ],
  ])('refuses a key that is %s, naming why and never quoting it', async (_, make, code, message) => {
    const events: AuthEvent[] = [];
    const { checkSqlAuth, clock } = sqlLogin(base(), { events });
    const { at, key: given } = make(key().key);
    clock.advance(at * 1000);
    const error = await rejectionOf(checkSqlAuth(sqlRequest(), 'alice', given));
    expect(error).toMatchObject({ code, status: 403 });
    expect(error.message).toMatch(message);
    expect(error.message).not.toContain(given.slice(0, 20));
    expect(events).toMatchObject([{ type: 'sql-login', kind: 'key', outcome: 'refused', code }]);
  });

  it('refuses a revoked key, by its id, at login', async () => {
    const minted = key();
    const other = key();
    const { checkSqlAuth } = sqlLogin({ ...base(), sqlKeysRevoked: [minted.id] });
    const error = await rejectionOf(checkSqlAuth(sqlRequest(), 'alice', minted.key));
    expect(error).toMatchObject({
      code: 'ERR_FORBIDDEN',
      message: `The SQL key "${minted.id}" is revoked: ask for a new one`,
      detail: `The SQL key "${minted.id}" is revoked: ask for a new one (option "sqlKeysRevoked")`,
    });
    await expect(checkSqlAuth(sqlRequest(), 'alice', other.key)).resolves.toMatchObject({ securityContext: CONTEXT });
  });

  it('refuses a key older than the maximum age, so that shortening it cuts keys already given out', async () => {
    const minted = key({ expiresIn: 60 * DAY });
    const { checkSqlAuth, clock } = sqlLogin({ ...base(), sqlKeyMaxAge: 30 * DAY });
    clock.advance(31 * DAY * 1000);
    const error = await rejectionOf(checkSqlAuth(sqlRequest(), 'alice', minted.key));
    expect(error).toMatchObject({
      code: 'ERR_TOKEN_TOO_OLD',
      message: `The SQL key "${minted.id}" is older than 30d, the longest a SQL key lives on this deployment: ask for a new one`,
    });
  });

  it("signs in the key's user only", async () => {
    const { checkSqlAuth } = sqlLogin(base());
    const error = await rejectionOf(checkSqlAuth(sqlRequest(), 'bob', key().key));
    expect(error).toMatchObject({
      code: 'ERR_CLAIM_INVALID',
      message: 'The SQL user "bob" is not the user of this SQL key: sign in as the user the key was made for',
    });
  });

  it('refuses every key where no SQL key secret is set, hiding the setting from the client', async () => {
    const { checkSqlAuth } = sqlLogin({ jwksUri: idp.url, apiSecret });
    const error = await rejectionOf(checkSqlAuth(sqlRequest(), 'alice', key().key));
    expect(error).toMatchObject({
      code: 'ERR_FORBIDDEN',
      message: 'SQL keys are not accepted on this deployment',
      detail: 'SQL keys are not accepted on this deployment (option "sqlKeySecrets" is not set)',
    });
  });

  it('refuses a token that only claims to be a SQL key in its header', async () => {
    const { checkSqlAuth } = sqlLogin(base());
    const forged = signToken(
      { sub: 'alice', aud: SQL_KEY_AUDIENCE, jti: 'x', iat: NOW, exp: NOW + 60, security_context: CONTEXT },
      { key: idpKey, header: { typ: SQL_KEY_TYPE } },
    );
    const error = await rejectionOf(checkSqlAuth(sqlRequest(), 'alice', forged));
    expect(error).toMatchObject({ code: 'ERR_SIGNATURE_INVALID' });
  });

  it('counts SQL logins by kind: token, key and static', async () => {
    const events: AuthEvent[] = [];
    const { checkSqlAuth } = sqlLogin({ ...base(), sqlUser: 'ops', sqlPassword: 'not-a-token' }, { events });
    const token = signToken(timed({ sub: 'alice', org: 'acme', roles: ['analyst'] }, { now: NOW }), { key: idpKey });
    await checkSqlAuth(sqlRequest(), 'alice', token);
    await checkSqlAuth(sqlRequest(), 'alice', key().key);
    await checkSqlAuth(sqlRequest(), 'ops', 'not-a-token');
    await rejectionOf(checkSqlAuth(sqlRequest(), 'ops', 'wrong'));
    expect(events.filter((event) => event.type === 'sql-login').map((e) => [e.kind, e.outcome])).toEqual([
      ['token', 'accepted'],
      ['key', 'accepted'],
      ['static', 'accepted'],
      ['static', 'refused'],
    ]);
  });
});

describe("checkSqlAuth(req, user, null): Cube's re-authentication of a key login", () => {
  it("answers with the key login's context until the key expires, then asks for a new connection", async () => {
    const events: AuthEvent[] = [];
    const { checkSqlAuth, clock } = sqlLogin(base(), { events });
    const minted = key({ expiresIn: DAY });
    await checkSqlAuth(sqlRequest(), 'alice', minted.key);
    // Cube's CUBESQL_AUTH_EXPIRE_SECS (300 s) later, and again hours later: far past any identity-provider token.
    clock.advance(300_000);
    await expect(checkSqlAuth(sqlRequest(), 'alice', null)).resolves.toEqual({
      password: null,
      superuser: false,
      securityContext: { ...CONTEXT, iat: NOW, exp: NOW + DAY, jti: minted.id },
      skipPasswordCheck: true,
    });
    clock.advance(20 * 3600_000);
    await expect(checkSqlAuth(sqlRequest(), 'alice', null)).resolves.toMatchObject({ securityContext: CONTEXT });
    clock.advance(4 * 3600_000);
    const error = await rejectionOf(checkSqlAuth(sqlRequest(), 'alice', null));
    expect(error.code).toBe('ERR_TOKEN_EXPIRED');
    expect(error.message).toMatch(/^The SQL session of user "alice" ended when its token expired at /);
    expect(error.message).not.toContain(minted.key.slice(0, 20));
  });

  it('asks whether the key is revoked at each re-authentication, and refuses once it is', async () => {
    const { checkSqlAuth } = sqlLogin(base());
    const minted = key();
    const revoked = new Set<string>();
    const isRevoked = vi.spyOn(SqlKeys.prototype, 'isRevoked').mockImplementation((id) => revoked.has(id));
    try {
      await checkSqlAuth(sqlRequest(), 'alice', minted.key);
      await expect(checkSqlAuth(sqlRequest(), 'alice', null)).resolves.toMatchObject({ securityContext: CONTEXT });
      expect(isRevoked).toHaveBeenLastCalledWith(minted.id);
      revoked.add(minted.id);
      const error = await rejectionOf(checkSqlAuth(sqlRequest(), 'alice', null));
      expect(error).toMatchObject({ code: 'ERR_FORBIDDEN' });
      expect(error.message).toMatch(/revoked/);
    } finally {
      isRevoked.mockRestore();
    }
  });

  it('ends a key login at the maximum age, even where the key lives longer', async () => {
    const minted = key({ expiresIn: 60 * DAY, now: NOW - 29 * DAY });
    const { checkSqlAuth, clock } = sqlLogin({ ...base(), sqlKeyMaxAge: 30 * DAY });
    await checkSqlAuth(sqlRequest(), 'alice', minted.key);
    await expect(checkSqlAuth(sqlRequest(), 'alice', null)).resolves.toMatchObject({ securityContext: CONTEXT });
    clock.advance(DAY * 1000 + 10_000);
    await expect(checkSqlAuth(sqlRequest(), 'alice', null)).rejects.toMatchObject({ code: 'ERR_TOKEN_TOO_OLD' });
  });

  it("never answers a re-authentication for another user than the key's", async () => {
    const { checkSqlAuth } = sqlLogin(base());
    await checkSqlAuth(sqlRequest(), 'alice', key().key);
    await expect(checkSqlAuth(sqlRequest(), 'bob', null)).rejects.toMatchObject({ code: 'ERR_TOKEN_MISSING' });
  });
});

describe('SqlKeys.refusal: whether a key accepted before still holds', () => {
  it('holds until the key expires, and not once its id is revoked', () => {
    const minted = key({ expiresIn: DAY });
    const clock = createClock(NOW * 1000);
    const options = resolveOptions(base());
    const login = new SqlKeys(options, clock.now).verify(minted.key, 'alice');
    const keys = new SqlKeys(options, clock.now);
    expect(keys.refusal(login)).toBeUndefined();
    clock.advance((DAY + options.clockTolerance + 1) * 1000);
    expect(keys.refusal(login)).toMatchObject({ code: 'ERR_TOKEN_EXPIRED' });
    const revoked = new SqlKeys(resolveOptions({ ...base(), sqlKeysRevoked: [minted.id] }), () => NOW * 1000);
    expect(revoked.refusal(login)).toMatchObject({ code: 'ERR_FORBIDDEN' });
  });
});

describe('a user … before … cut, to the millisecond of the keys the package mints', () => {
  it('refuses a key made before the cut and takes one made 50 ms after it', () => {
    const cutMs = NOW * 1000 + 700;
    const options = resolveOptions({
      ...base(),
      sqlKeysRevoked: [`user alice before ${new Date(cutMs).toISOString()}`],
    });
    const keys = new SqlKeys(options, () => cutMs + 1000);
    const mint = (atMs: number) =>
      mintSqlKey({
        secret: createSecretKey(Buffer.from(keySecret)),
        user: 'alice',
        securityContext: CONTEXT,
        expiresIn: DAY,
        now: atMs,
      });
    const before = mint(cutMs - 50);
    expect(() => keys.verify(before.key, 'alice')).toThrow(`The SQL key "${before.id}" is revoked`);
    const after = mint(cutMs + 50);
    expect(after.issuedAt).toBe((cutMs + 50) / 1000);
    expect(keys.verify(after.key, 'alice')).toMatchObject({ id: after.id, issuedAt: (cutMs + 50) / 1000 });
  });
});

describe('a SQL key is never a REST token', () => {
  it('is refused on the key-set path (HS256, no kid) and on the shared-secret path (not the API secret)', async () => {
    const hook = createCheckAuth(base());
    made.push(hook);
    const minted = key().key;
    const keySetError = await rejectionOf(hook({ headers: { authorization: `Bearer ${minted}` } }));
    expect(keySetError).toMatchObject({
      code: 'ERR_ALG_NOT_ALLOWED',
      path: 'key-set',
      message: 'A SQL key is never accepted on the REST API: it signs in to the SQL API only',
    });
    const sharedError = await rejectionOf(
      hook({ headers: { authorization: `Bearer ${minted}`, 'request-origin': 'embeddable' } }),
    );
    expect(sharedError).toMatchObject({
      code: 'ERR_SIGNATURE_INVALID',
      path: 'shared-secret',
      message: 'A SQL key is never accepted on the REST API: it signs in to the SQL API only',
    });
  });

  it('fails the signature on the shared-secret path even with its header rewritten to look like a service token', async () => {
    const hook = createCheckAuth(base());
    made.push(hook);
    const [, payload, signature] = key().key.split('.') as [string, string, string];
    const plain = Buffer.from(JSON.stringify({ alg: 'HS256', typ: 'JWT' })).toString('base64url');
    const error = await rejectionOf(
      hook({ headers: { authorization: `Bearer ${plain}.${payload}.${signature}`, 'request-origin': 'embeddable' } }),
    );
    expect(error).toMatchObject({ code: 'ERR_SIGNATURE_INVALID', path: 'shared-secret' });
  });
});

describe('SQL key settings', () => {
  it('reads the secrets, the maximum age (a duration or seconds) and the revoked ids from the environment', () => {
    const options = optionsFromEnv({
      CUBEJS_JWK_URL: 'https://idp.example/jwks',
      CUBE_DUAL_AUTH_SQL_KEY_SECRETS: ` ${keySecret} , ${nextKeySecret}`,
      CUBE_DUAL_AUTH_SQL_KEY_MAX_AGE: '45d',
      CUBE_DUAL_AUTH_SQL_KEYS_REVOKED: 'a-1, b-2',
    });
    expect(options).toMatchObject({
      sqlKeySecrets: [keySecret, nextKeySecret],
      sqlKeyMaxAge: 45 * DAY,
      sqlKeysRevoked: ['a-1', 'b-2'],
    });
    expect(
      optionsFromEnv({ CUBE_DUAL_AUTH_SQL_KEY_MAX_AGE: '3600', CUBEJS_JWK_URL: 'https://i.example/j' }).sqlKeyMaxAge,
    ).toBe(3600);
    expect(resolveOptions({ jwksUri: 'https://idp.example/jwks' }).sqlKeyMaxAge).toBe(90 * DAY);
  });

  it('takes revoked ids separated by commas, spaces or newlines, and stops the start on any other separator', () => {
    const env = (revoked: string) => ({
      CUBEJS_JWK_URL: 'https://idp.example/jwks',
      CUBE_DUAL_AUTH_SQL_KEYS_REVOKED: revoked,
    });
    const ids = ['9b2f6c1e-4d7a-4e8b-a3f5-0c6d2e8b1f47', 'b-2', 'c-3'];
    for (const list of [ids.join(','), ids.join(' '), ids.join('\n'), ` ${ids[0]},\n  ${ids[1]}\t${ids[2]}\r\n`]) {
      const resolved = resolveOptions(optionsFromEnv(env(list)), ENV_NAMES);
      expect([...(resolved.sqlKeysRevoked?.ids ?? [])]).toEqual(ids);
      expect(new SqlKeys(resolved).isRevoked('c-3')).toBe(true);
    }
    for (const list of ['a-1;b-2', 'a-1|b-2', '"a-1"', 'a-1,b/2']) {
      expect(() => resolveOptions(optionsFromEnv(env(list)), ENV_NAMES)).toThrow(
        /^cube-dual-auth: CUBE_DUAL_AUTH_SQL_KEYS_REVOKED holds ".*", which is no SQL key id: separate ids with commas, spaces or newlines$/,
      );
    }
    expect(() => resolveOptions({ jwksUri: 'https://idp.example/jwks', sqlKeysRevoked: ['a-1; b-2'] })).toThrow(
      'option "sqlKeysRevoked" entry 1 of 1 is neither a key id nor "user <name> before <ISO-8601 time>"',
    );
  });

  it("stops the start on a key secret that is Cube's own CUBEJS_PLAYGROUND_AUTH_SECRET, which Cube checks on REST", () => {
    const saved = process.env.CUBEJS_PLAYGROUND_AUTH_SECRET;
    process.env.CUBEJS_PLAYGROUND_AUTH_SECRET = keySecret;
    try {
      expect(() => resolveOptions({ ...base(), sqlKeySecrets: [nextKeySecret, keySecret] })).toThrow(
        'cube-dual-auth: option "sqlKeySecrets" (secret 2 of 2) is also CUBEJS_PLAYGROUND_AUTH_SECRET, with which Cube itself accepts HS256 tokens that checkAuth refused: give SQL keys a secret of their own',
      );
    } finally {
      if (saved === undefined) delete process.env.CUBEJS_PLAYGROUND_AUTH_SECRET;
      else process.env.CUBEJS_PLAYGROUND_AUTH_SECRET = saved;
    }
  });

  it.each([
    [{ CUBE_DUAL_AUTH_SQL_KEY_MAX_AGE: '2y' }, /CUBE_DUAL_AUTH_SQL_KEY_MAX_AGE must be a whole number of s, m, h or d/],
    [{ CUBE_DUAL_AUTH_SQL_KEY_MAX_AGE: '366d' }, /CUBE_DUAL_AUTH_SQL_KEY_MAX_AGE must be .* to 31536000 \(a year\)/],
    [
      { CUBE_DUAL_AUTH_SQL_KEY_SECRETS: 'short-one' },
      /CUBE_DUAL_AUTH_SQL_KEY_SECRETS is \d+ [a-z0-9 ]+, \d+ bytes: \d+ bits of key material, under 32 bytes/,
    ],
    [
      { CUBE_DUAL_AUTH_SQL_KEY_SECRETS: apiSecret },
      /CUBE_DUAL_AUTH_SQL_KEY_SECRETS is also an API secret \(CUBEJS_API_SECRET\)/,
    ],
    [
      { CUBE_DUAL_AUTH_SQL_KEY_SECRETS: `${keySecret},${apiSecret}` },
      /CUBE_DUAL_AUTH_SQL_KEY_SECRETS \(secret 2 of 2\) is also an API secret/,
    ],
    [
      { CUBE_DUAL_AUTH_SQL_KEY_SECRETS: keySecret, CUBE_DUAL_AUTH_ADDITIONAL_API_SECRETS: keySecret },
      /CUBE_DUAL_AUTH_SQL_KEY_SECRETS is also an API secret/,
    ],
  ])('stops the start on %j, naming the variable and never the secret', (env, message) => {
    const full = { CUBEJS_API_SECRET: apiSecret, CUBEJS_JWK_URL: 'https://idp.example/jwks', ...env };
    let error: unknown;
    try {
      resolveOptions(optionsFromEnv(full), ENV_NAMES);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(DualAuthConfigError);
    expect((error as Error).message).toMatch(message);
    expect((error as Error).message).not.toContain(apiSecret);
    expect((error as Error).message).not.toContain(keySecret);
  });
});
