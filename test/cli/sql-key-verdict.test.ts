import { createSecretKey } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { sign } from 'jsonwebtoken';
import { judgeSqlKey } from '../../src/cli/sql-key-verdict';
import { mintSqlKey, SQL_KEY_TYPE } from '../../src/hook/sql-login/sql-key';
import { jsonOf, runCli } from '../support/cli';
import { randomSecret } from '../support/claims';

const DAY = 86_400;
const KEY_SECRET = randomSecret(32);
const OTHER_SECRET = randomSecret(32);
const env = {
  CUBEJS_API_SECRET: randomSecret(32),
  CUBE_DUAL_AUTH_SQL_KEY_SECRETS: KEY_SECRET,
  CUBE_DUAL_AUTH_SQL_KEY_MAX_AGE: '30d',
};
const CONTEXT = { sub: 'alice', tenant: 'acme', groups: ['analyst'], exp: 1, iat: 1, jti: 'token-id' };

/** A key as `sql-key` mints it, `daysAgo` days ago, living `days` days. */
function key({ daysAgo = 0, days = 7, secret = KEY_SECRET, user = 'alice@acme.example' } = {}) {
  return mintSqlKey({
    secret: createSecretKey(Buffer.from(secret)),
    user,
    securityContext: CONTEXT,
    expiresIn: days * DAY,
    now: Date.now() - daysAgo * DAY * 1000,
  });
}

interface SqlKeyJson {
  accepted: boolean;
  kind: string;
  sqlUser: string | null;
  sqlUserChecked: boolean;
  claims: Record<string, unknown> | null;
  securityContext: Record<string, unknown> | null;
  error: { code: string; message: string; hint: string } | null;
}

async function verify(given: string, args: string[] = [], extra: Record<string, string> = {}) {
  const result = await runCli(['verify', given, ...args], {
    env: { ...env, ...extra },
    secrets: [KEY_SECRET, OTHER_SECRET, given],
  });
  return result;
}

describe('verify given a SQL key: judged as checkSqlAuth judges a SQL API login with it', () => {
  it('accepts a valid key, says it is a SQL key, and shows the context a login gets, with the key’s own times', async () => {
    const minted = key();
    const result = await verify(minted.key, ['--sql-user', 'alice@acme.example']);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^Kind +a SQL key \(its typ header says so\), judged as checkSqlAuth judges/m);
    expect(result.stdout).toMatch(/^SQL user +"alice@acme\.example"$/m);
    expect(result.stdout).toMatch(/^Verdict +OK, a SQL API login with it is accepted$/m);
    const json = jsonOf<SqlKeyJson>(await verify(minted.key, ['--sql-user', 'alice@acme.example', '--json']));
    expect(json).toMatchObject({
      accepted: true,
      kind: 'sql-key',
      sqlUser: 'alice@acme.example',
      sqlUserChecked: true,
      error: null,
    });
    expect(json.securityContext).toEqual({
      ...CONTEXT,
      iat: minted.issuedAt,
      exp: minted.expiresAt,
      jti: minted.id,
    });
    expect(json.claims).not.toHaveProperty('security_context');
  });

  it('without --sql-user, judges the key for its own user and says so', async () => {
    const result = await verify(key().key);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(
      /^SQL user +"alice@acme\.example" \(the key's own: give --sql-user <name> to check a login's\)$/m,
    );
  });

  it.each([
    [
      'an expired key',
      () => key({ daysAgo: 8, days: 7 }).key,
      {},
      'ERR_TOKEN_EXPIRED',
      /^The SQL key expired at \S+Z: ask for a new one$/,
    ],
    [
      'a key older than the maximum age',
      () => key({ daysAgo: 31, days: 60 }).key,
      {},
      'ERR_TOKEN_TOO_OLD',
      /is older than 30d, the longest a SQL key lives on this deployment: ask for a new one \(CUBE_DUAL_AUTH_SQL_KEY_MAX_AGE\)$/,
    ],
    [
      'an altered key',
      () => alter(key().key),
      {},
      'ERR_SIGNATURE_INVALID',
      /^The SQL key is not valid: it was altered, or signed with a secret this deployment no longer has \(none of the 1 secrets of CUBE_DUAL_AUTH_SQL_KEY_SECRETS verifies it\)$/,
    ],
    [
      'a key of a secret taken out',
      () => key({ secret: OTHER_SECRET }).key,
      {},
      'ERR_SIGNATURE_INVALID',
      /^The SQL key is not valid/,
    ],
    [
      'a key where no SQL key secret is set',
      () => key().key,
      { CUBE_DUAL_AUTH_SQL_KEY_SECRETS: '' },
      'ERR_FORBIDDEN',
      /^SQL keys are not accepted on this deployment \(CUBE_DUAL_AUTH_SQL_KEY_SECRETS is not set\)$/,
    ],
  ])('refuses %s, naming why and the fix, never as a wrong algorithm', async (_what, make, extra, code, message) => {
    const result = await verify(make(), ['--sql-user', 'alice@acme.example', '--json'], extra);
    expect(result.code).toBe(1);
    const json = jsonOf<SqlKeyJson>(result);
    expect(json).toMatchObject({ accepted: false, kind: 'sql-key', securityContext: null });
    expect(json.error?.code).toBe(code);
    expect(json.error?.code).not.toBe('ERR_ALG_NOT_ALLOWED');
    expect(json.error?.message).toMatch(message);
    expect(json.error?.hint).toMatch(/\S/);
  });

  it('refuses a revoked key, naming its id and the variable', async () => {
    const minted = key();
    const result = await verify(minted.key, ['--sql-user', 'alice@acme.example'], {
      CUBE_DUAL_AUTH_SQL_KEYS_REVOKED: `other-id,${minted.id}`,
    });
    expect(result.code).toBe(1);
    expect(result.stdout).toContain(
      `REJECTED ERR_FORBIDDEN: The SQL key "${minted.id}" is revoked: ask for a new one (CUBE_DUAL_AUTH_SQL_KEYS_REVOKED)`,
    );
    expect(result.stdout).toMatch(
      /^Fix +Mint a new key with "cube-dual-auth sql-key": a revoked id stays in CUBE_DUAL_AUTH_SQL_KEYS_REVOKED\.$/m,
    );
  });

  it("refuses another user's key for the user given", async () => {
    const result = await verify(key({ user: 'bob@acme.example' }).key, ['--sql-user', 'alice@acme.example', '--json']);
    expect(result.code).toBe(1);
    expect(jsonOf<SqlKeyJson>(result).error).toEqual({
      code: 'ERR_CLAIM_INVALID',
      message:
        'The SQL user "alice@acme.example" is not the user of this SQL key: sign in as the user the key was made for',
      hint: "Sign in with the user name the key was made for (its sub), in the BI tool's user field.",
    });
  });

  it('takes --sql-user for a SQL key only', async () => {
    const result = await verify('eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.c2ln', ['--sql-user', 'alice']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/--sql-user applies to a SQL key only/);
  });
});

describe('judgeSqlKey, by the clock it is given', () => {
  it('accepts a key while it lives and refuses it after its exp, as a login at that time would be', () => {
    const minted = mintSqlKey({
      secret: createSecretKey(Buffer.from(KEY_SECRET)),
      user: 'alice',
      securityContext: CONTEXT,
      expiresIn: 60,
      now: 1_800_000_000_000,
    });
    expect(judgeSqlKey(minted.key, { env, nowMs: 1_800_000_030_000 })).toMatchObject({
      accepted: true,
      sqlUser: 'alice',
    });
    expect(judgeSqlKey(minted.key, { env, nowMs: 1_800_000_120_000 }).error?.code).toBe('ERR_TOKEN_EXPIRED');
  });

  it('refuses a token that only wears the SQL key header, as no key of this package', () => {
    const now = Math.floor(Date.now() / 1000);
    const forged = sign(
      { sub: 'alice', aud: 'another-api', jti: 'x', iat: now, exp: now + 60, security_context: {} },
      KEY_SECRET,
      {
        algorithm: 'HS256',
        header: { alg: 'HS256', typ: SQL_KEY_TYPE },
      },
    );
    expect(judgeSqlKey(forged, { env }).error).toEqual({
      code: 'ERR_CLAIM_INVALID',
      message: 'The SQL key is not valid: it names another audience',
      hint: 'This is no SQL key of cube-dual-auth: mint one with "cube-dual-auth sql-key".',
    });
  });
});

/** The key with its tenant changed, its signature kept: what widening a key would take. */
function alter(token: string): string {
  const [header, payload, signature] = token.split('.') as [string, string, string];
  const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as {
    security_context: Record<string, unknown>;
  };
  claims.security_context.tenant = 'globex';
  return `${header}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.${signature}`;
}
