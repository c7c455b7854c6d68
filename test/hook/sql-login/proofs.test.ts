// A SQL session ends with what proved it (docs/rotation.md#what-a-reload-does): the SQL key secret, the identity
// provider's key, or the static password, each withdrawn by a swap or a key-set refresh, on a clock the tests move.
import { createSecretKey } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DualAuthOptions } from '../../../src';
import { resolveOptions } from '../../../src/config/options';
import { snapshotOf } from '../../../src/config/secrets-snapshot';
import { Authenticator } from '../../../src/hook/authenticator';
import { sqlAuthOf } from '../../../src/hook/sql-login';
import { Proofs } from '../../../src/hook/sql-login/proofs';
import { mintSqlKey } from '../../../src/hook/sql-login/sql-key';
import { randomSecret, timed } from '../../support/claims';
import { createClock } from '../../support/clock';
import { startJwksServer, type JwksServer } from '../../support/jwks-server';
import { generateKeyPair, jwks } from '../../support/keys';
import { rejectionOf } from '../../support/requests';
import { NOW } from '../../support/sql-login';
import { signToken } from '../../support/tokens';

const OLD_SECRET = randomSecret();
const NEW_SECRET = randomSecret();
const PASSWORD = randomSecret(16);
const k1 = generateKeyPair('RS256', { kid: 'k1' });
const k2 = generateKeyPair('RS256', { kid: 'k2' });
/** Another key published under k1's kid: a key replaced under the same name is another key. */
const k1Again = generateKeyPair('RS256', { kid: 'k1' });
const INTERVAL_MS = 301_000;
const postgres = () => ({ id: 'span-1', meta: null, protocol: 'postgres', method: 'password' });

let idp: JwksServer;
beforeAll(async () => {
  idp = await startJwksServer(jwks(k1));
});
afterAll(() => idp?.close());

const made: Authenticator[] = [];
afterAll(() => {
  for (const authenticator of made) authenticator.close();
});

/** A SQL login on a clock at NOW, and a way to put other secrets in force as a reload does. */
function deployment(more: DualAuthOptions = {}) {
  idp.jwks = jwks(k1);
  const base: DualAuthOptions = {
    jwksUri: idp.url,
    sqlKeySecrets: [OLD_SECRET],
    sqlUser: 'cube',
    sqlPassword: PASSWORD,
    sqlSuperUser: 'admin',
    ...more,
  };
  const clock = createClock(NOW * 1000);
  const authenticator = new Authenticator(resolveOptions(base), clock.now);
  made.push(authenticator);
  const sql = sqlAuthOf(authenticator, { namespaces: [], cubeVersion: () => '1.7.43' });
  const reload = (changed: DualAuthOptions) =>
    authenticator.secrets.swap(snapshotOf(resolveOptions({ ...base, ...changed })));
  const reauthenticate = (user: string) => sql.checkSqlAuth(postgres(), user, null);
  const key = (secret: string, user = 'alice') =>
    mintSqlKey({
      secret: createSecretKey(Buffer.from(secret)),
      user,
      securityContext: { sub: user, org: 'acme' },
      expiresIn: 30 * 86_400,
      now: clock.now(),
    }).key;
  const token = (sub: string, signer = k1) =>
    signToken(timed({ sub, org: 'acme' }, { now: Math.floor(clock.now() / 1000), expiresIn: 3600 }), { key: signer });
  return { clock, sql, authenticator, reload, reauthenticate, key, token };
}

describe('a key session ends with its SQL key secret', () => {
  it('is refused at its next re-authentication once its secret left sql-key-secrets, naming why', async () => {
    const { clock, sql, reload, reauthenticate, key } = deployment();
    await sql.checkSqlAuth(postgres(), 'alice', key(OLD_SECRET));
    clock.advance(INTERVAL_MS);
    expect((await reauthenticate('alice')).securityContext).toMatchObject({ org: 'acme' });
    reload({ sqlKeySecrets: [NEW_SECRET] });
    clock.advance(INTERVAL_MS);
    const refusal = await rejectionOf(reauthenticate('alice'));
    expect(refusal).toMatchObject({
      code: 'ERR_SECRET_REMOVED',
      message:
        'The SQL session of user "alice" was signed in by a SQL key whose secret this deployment no longer has: sign in again with a new SQL key',
    });
    expect(refusal.message).not.toContain(OLD_SECRET);
    // Asked again, the session has no live login left; a key of the secret in force signs in and serves.
    expect(await rejectionOf(reauthenticate('alice'))).toMatchObject({ code: 'ERR_TOKEN_MISSING' });
    await sql.checkSqlAuth(postgres(), 'alice', key(NEW_SECRET));
    expect((await reauthenticate('alice')).securityContext).toMatchObject({ org: 'acme' });
  });

  it('lives on through a reload that keeps its secret, read anew, behind a new signing one', async () => {
    const { clock, sql, reload, reauthenticate, key } = deployment();
    await sql.checkSqlAuth(postgres(), 'alice', key(OLD_SECRET));
    reload({ sqlKeySecrets: [NEW_SECRET, OLD_SECRET] });
    clock.advance(INTERVAL_MS);
    expect((await reauthenticate('alice')).securityContext).toMatchObject({ org: 'acme' });
  });

  it("refuses a superuser's __user switch into the session once its secret is gone", async () => {
    const { sql, reload, reauthenticate, key, token } = deployment();
    await sql.checkSqlAuth(postgres(), 'admin', token('admin'));
    await sql.checkSqlAuth(postgres(), 'alice', key(OLD_SECRET));
    expect(await sql.canSwitchSqlUser('admin', 'alice')).toBe(true);
    expect((await reauthenticate('alice')).securityContext).toMatchObject({ sub: 'alice' });
    reload({ sqlKeySecrets: [NEW_SECRET] });
    expect(await rejectionOf(reauthenticate('alice'))).toMatchObject({ code: 'ERR_SECRET_REMOVED' });
    // The superuser's own session, proved by the identity provider's key, is untouched.
    expect((await reauthenticate('admin')).securityContext).toMatchObject({ sub: 'admin' });
  });
});

describe("a token session ends with its identity provider's key", () => {
  it('is refused once a refresh of the key set no longer holds its kid, naming the kid', async () => {
    const { clock, sql, authenticator, reauthenticate, token } = deployment();
    await sql.checkSqlAuth(postgres(), 'alice', token('alice'));
    idp.jwks = jwks(k1, k2);
    await authenticator.prefetch();
    clock.advance(INTERVAL_MS);
    expect((await reauthenticate('alice')).securityContext).toMatchObject({ sub: 'alice' });
    idp.jwks = jwks(k2);
    await authenticator.prefetch();
    clock.advance(INTERVAL_MS);
    expect(await rejectionOf(reauthenticate('alice'))).toMatchObject({
      code: 'ERR_KEY_REMOVED',
      message:
        'The SQL session of user "alice" was signed in by a token whose key "k1" has left its identity provider\'s key set: sign in again with a fresh token',
    });
    // A token of the key in force signs in again.
    await sql.checkSqlAuth(postgres(), 'alice', token('alice', k2));
    expect((await reauthenticate('alice')).securityContext).toMatchObject({ sub: 'alice' });
  });

  it('is refused when another key takes its kid: the name stays, the key is not the one that proved it', async () => {
    const { sql, authenticator, reauthenticate, token } = deployment();
    await sql.checkSqlAuth(postgres(), 'alice', token('alice'));
    idp.jwks = jwks(k1Again);
    await authenticator.prefetch();
    expect(await rejectionOf(reauthenticate('alice'))).toMatchObject({ code: 'ERR_KEY_REMOVED' });
  });

  it('lives on while the identity provider cannot be reached: the key set last loaded still holds the key', async () => {
    const { sql, authenticator, reauthenticate, token } = deployment();
    await sql.checkSqlAuth(postgres(), 'alice', token('alice'));
    idp.mode = { kind: 'reset' };
    try {
      await expect(authenticator.prefetch()).rejects.toMatchObject({ code: 'ERR_JWKS_UNREACHABLE' });
      expect((await reauthenticate('alice')).securityContext).toMatchObject({ sub: 'alice' });
    } finally {
      idp.mode = { kind: 'ok' };
    }
  });
});

describe('a static-login session ends with its password', () => {
  it('is refused once sql-password changed, and the new password signs in and serves again', async () => {
    const { clock, sql, reload, reauthenticate } = deployment();
    await sql.checkSqlAuth(postgres(), 'cube', PASSWORD);
    clock.advance(INTERVAL_MS);
    expect((await reauthenticate('cube')).securityContext).toEqual({});
    const changed = randomSecret(16);
    reload({ sqlPassword: changed });
    clock.advance(INTERVAL_MS);
    const refusal = await rejectionOf(reauthenticate('cube'));
    expect(refusal).toMatchObject({
      code: 'ERR_PASSWORD_CHANGED',
      message:
        'The SQL session of user "cube" was signed in with a password that has changed since: sign in again with the new password',
    });
    expect(refusal.message).not.toContain(PASSWORD);
    expect(await rejectionOf(sql.checkSqlAuth(postgres(), 'cube', PASSWORD))).toMatchObject({
      code: 'ERR_FORBIDDEN',
    });
    await sql.checkSqlAuth(postgres(), 'cube', changed);
    expect((await reauthenticate('cube')).securityContext).toEqual({});
  });

  it('lives on through a reload that keeps the password', async () => {
    const { sql, reload, reauthenticate } = deployment();
    await sql.checkSqlAuth(postgres(), 'cube', PASSWORD);
    reload({ sqlKeySecrets: [NEW_SECRET] });
    expect((await reauthenticate('cube')).securityContext).toEqual({});
  });
});

describe('Proofs', () => {
  it('gives one shared object per secret, key or password, whatever the number of logins', () => {
    const proofs = new Proofs();
    expect(proofs.sqlKeySecret('t1')).toBe(proofs.sqlKeySecret('t1'));
    expect(proofs.providerKey(0, 'k1', 't1')).toBe(proofs.providerKey(0, 'k1', 't1'));
    expect(proofs.providerKey(1, 'k1', 't1')).not.toBe(proofs.providerKey(0, 'k1', 't1'));
    expect(proofs.sqlPassword('t1')).not.toBe(proofs.sqlKeySecret('t1'));
    expect(Object.isFrozen(proofs.sqlPassword('t2'))).toBe(true);
  });
});
