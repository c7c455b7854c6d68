import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decode, verify as jwtVerify } from 'jsonwebtoken';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCheckAuth, optionsFromEnv } from '../../../src';
import { SQL_KEY_AUDIENCE, SQL_KEY_TYPE } from '../../../src/hook/sql-login/sql-key';
import { SQL_KEY_HINT } from '../../../src/cli/hints';
import { jsonOf, keySetDeploymentPerFile, runBin, type CliOptions } from '../../support/cli';
import { randomSecret, timed } from '../../support/claims';
import type { TestKeyPair } from '../../support/keys';
import { signToken } from '../../support/tokens';

// The command runs as a process, as an operator runs it: exit status, stdout and stderr are what is judged.
const SECRET = randomSecret(32);
const KEY_SECRET = randomSecret(32);
const NEXT_KEY_SECRET = randomSecret(32);
const DAY = 86_400;

interface SqlKeyJson {
  key: string;
  id: string;
  user: string;
  issuedAt: string;
  expiresAt: string;
  securityContext: Record<string, unknown>;
}

let idpKey: TestKeyPair;
let env: Record<string, string>;
keySetDeploymentPerFile(SECRET, (deployment) => {
  idpKey = deployment.key;
  env = {
    ...deployment.env,
    CUBE_DUAL_AUTH_SQL_KEY_SECRETS: `${KEY_SECRET},${NEXT_KEY_SECRET}`,
    CUBE_DUAL_AUTH_TENANT_CLAIM: 'org',
    CUBE_DUAL_AUTH_GROUPS_CLAIM: 'roles',
  };
});

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'sql-key-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const idpToken = (claims: Record<string, unknown>, expiresIn = 300) =>
  signToken(timed(claims, { expiresIn }), { key: idpKey });

const ALICE = { sub: 'alice', org: 'acme', roles: ['analyst'] };

function sqlKey(args: string[], options: CliOptions & { token?: string } = {}) {
  const token = options.token ?? idpToken(ALICE);
  const file = join(dir, `token-${Math.random().toString(36).slice(2)}`);
  writeFileSync(file, `Bearer ${token}\n`);
  const from = args.includes('--token') ? [] : ['--token-file', file];
  return runBin(['sql-key', ...from, ...args], {
    env: options.env ?? env,
    ...(options.cwd !== undefined && { cwd: options.cwd }),
    stdin: options.stdin ?? token,
    secrets: [SECRET, KEY_SECRET, NEXT_KEY_SECRET, token],
  });
}

describe('cube-dual-auth sql-key', () => {
  it('prints only the key on stdout: signed with the first secret, for 30 days, carrying what checkAuth gives', async () => {
    const result = await sqlKey([]);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^eyJ[\w-]+\.eyJ[\w-]+\.[\w-]+\n$/);
    const key = result.stdout.trim();
    const payload = jwtVerify(key, KEY_SECRET, { algorithms: ['HS256'], audience: SQL_KEY_AUDIENCE }) as Record<
      string,
      unknown
    >;
    expect(decode(key, { complete: true })?.header).toEqual({ alg: 'HS256', typ: SQL_KEY_TYPE });
    expect((payload.exp as number) - (payload.iat as number)).toBe(30 * DAY);
    expect(payload).toMatchObject({ sub: 'alice', jti: expect.any(String) as string });
    // The security context is the one checkAuth gives the same token, with the key's own iat, exp and jti.
    const hook = createCheckAuth(optionsFromEnv(env));
    try {
      const token = idpToken(ALICE);
      const context = await hook(null, token);
      const minted = decode((await sqlKey([], { token })).stdout.trim()) as Record<string, unknown>;
      const { iat, exp, jti } = minted;
      expect(minted.security_context).toEqual({ ...JSON.parse(JSON.stringify(context)), iat, exp, jti });
      expect(exp).not.toBe(context.exp);
    } finally {
      hook.close();
    }
    expect(payload.security_context).toMatchObject({ tenant: 'acme', groups: ['analyst'], sub: 'alice' });
    expect(result.stderr).toMatch(
      new RegExp(
        `^cube-dual-auth sql-key: SQL key ${payload.jti as string} for SQL user "alice", valid until \\S+Z \\(30d\\); revoke it by adding its id to CUBE_DUAL_AUTH_SQL_KEYS_REVOKED\\n$`,
      ),
    );
  });

  it('reads the token from standard input with --token -, and prints the documented --json shape', async () => {
    const result = await sqlKey(['--token', '-', '--expires-in', '7d', '--json']);
    expect(result.code).toBe(0);
    expect(result.stderr).toBe('');
    const json = jsonOf<SqlKeyJson>(result);
    expect(Object.keys(json)).toEqual(['key', 'id', 'user', 'issuedAt', 'expiresAt', 'securityContext']);
    const payload = decode(json.key) as Record<string, number | string>;
    expect(json).toMatchObject({
      id: payload.jti,
      user: 'alice',
      securityContext: { tenant: 'acme', groups: ['analyst'] },
      issuedAt: new Date(Math.round((payload.iat as number) * 1000)).toISOString().replace('.000Z', 'Z'),
      expiresAt: new Date(Math.round((payload.exp as number) * 1000)).toISOString().replace('.000Z', 'Z'),
    });
    expect((payload.exp as number) - (payload.iat as number)).toBeCloseTo(7 * DAY, 6);
  });

  it('names the user by CUBE_DUAL_AUTH_SQL_USER_CLAIM', async () => {
    const token = idpToken({ ...ALICE, email: 'alice@acme.example' });
    const result = await sqlKey(['--json'], { token, env: { ...env, CUBE_DUAL_AUTH_SQL_USER_CLAIM: 'email' } });
    expect(jsonOf<SqlKeyJson>(result).user).toBe('alice@acme.example');
  });

  it('exits 1 for a refused token with the reason verify gives, and mints nothing', async () => {
    const expired = signToken(timed(ALICE, { now: Math.floor(Date.now() / 1000) - 3600, expiresIn: 60 }), {
      key: idpKey,
    });
    const result = await sqlKey([], { token: expired });
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    const verify = await runBin(['verify', expired, '--json'], { env });
    const { error } = jsonOf<{ error: { code: string; message: string; hint: string } }>(verify);
    expect(result.stderr).toBe(
      `cube-dual-auth sql-key: the token is refused, no key minted: ${error.code}: ${error.message}\nFix: ${error.hint}\n`,
    );
    expect(error.code).toBe('ERR_TOKEN_EXPIRED');
  });

  it('exits 1 for a token that authorization refuses (no tenant), and for a service token', async () => {
    const noTenant = await sqlKey([], { token: idpToken({ sub: 'alice' }) });
    expect(noTenant.code).toBe(1);
    expect(noTenant.stderr).toMatch(/refused, no key minted: ERR_TENANT_MISSING: /);
    const service = await sqlKey([], { token: signToken(timed({ org: 'acme' }), { alg: 'HS256', key: SECRET }) });
    expect(service.code).toBe(1);
    expect(service.stderr).toMatch(/refused, no key minted: ERR_ALG_NOT_ALLOWED: /);
  });

  it('never takes a SQL key for a token: sql-key refuses one, saying where a key belongs; verify judges it as a key', async () => {
    const key = (await sqlKey([])).stdout.trim();
    const again = await sqlKey([], { token: key });
    expect(again.code).toBe(1);
    expect(again.stderr).toBe(
      `cube-dual-auth sql-key: the token is refused, no key minted: ERR_ALG_NOT_ALLOWED: A SQL key is never accepted on the REST API: it signs in to the SQL API only\nFix: ${SQL_KEY_HINT}\n`,
    );
    // Whatever --origin says: a SQL key is judged as the SQL API's login judges it, never on a path of the REST API.
    const verify = await runBin(['verify', key, '--origin', '--json'], { env });
    expect(verify.code).toBe(0);
    expect(jsonOf(verify)).toMatchObject({ kind: 'sql-key', accepted: true, sqlUser: 'alice', error: null });
  });

  it('exits 1 for a token without the user claim', async () => {
    const result = await sqlKey([], { env: { ...env, CUBE_DUAL_AUTH_SQL_USER_CLAIM: 'email' } });
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      'cube-dual-auth sql-key: the token has no user claim "email" (CUBE_DUAL_AUTH_SQL_USER_CLAIM) holding a string, so it names no SQL user; no key minted\n',
    );
  });

  it('exits 1 without CUBE_DUAL_AUTH_SQL_KEY_SECRETS, and with a weak one, never printing it', async () => {
    const without = Object.fromEntries(
      Object.entries(env).filter(([name]) => name !== 'CUBE_DUAL_AUTH_SQL_KEY_SECRETS'),
    );
    const unset = await sqlKey([], { env: without });
    expect(unset.code).toBe(1);
    expect(unset.stderr).toBe(
      'cube-dual-auth sql-key: CUBE_DUAL_AUTH_SQL_KEY_SECRETS is not set, nor a sql-key-secrets file in CUBE_DUAL_AUTH_SECRETS_DIR: there is no secret to sign with\n',
    );
    const weak = await sqlKey([], { env: { ...env, CUBE_DUAL_AUTH_SQL_KEY_SECRETS: 'hunter2hunter2' } });
    expect(weak.code).toBe(1);
    expect(weak.stderr).toMatch(
      /^cube-dual-auth sql-key: the configuration is invalid: cube-dual-auth: CUBE_DUAL_AUTH_SQL_KEY_SECRETS is \d+ [a-z0-9 ]+, \d+ bytes/,
    );
    expect(weak.stderr).not.toContain('hunter2');
  });

  it.each([
    [
      ['--expires-in', '91d'],
      '--expires-in 91d is longer than a SQL key may live here: 90d, the default of CUBE_DUAL_AUTH_SQL_KEY_MAX_AGE',
    ],
    [['--expires-in', '1y'], '--expires-in must be a whole number of s, m, h or d (e.g. 30s, 15m, 1h, 7d), got "1y"'],
    [['--token', 'eyJhbGciOiJIUzI1NiJ9'], '--token takes only - (standard input)'],
    [['--token', '-', '--token-file', 'x'], '--token-file and --token exclude each other'],
  ])('exits 2 for %j', async (args, message) => {
    const result = await sqlKey(args);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain(message);
  });

  it('holds --expires-in to CUBE_DUAL_AUTH_SQL_KEY_MAX_AGE, and cuts the default to it', async () => {
    const short = { ...env, CUBE_DUAL_AUTH_SQL_KEY_MAX_AGE: '14d' };
    const over = await sqlKey(['--expires-in', '15d'], { env: short });
    expect(over.code).toBe(2);
    expect(over.stderr).toContain(
      '--expires-in 15d is longer than a SQL key may live here: 14d, CUBE_DUAL_AUTH_SQL_KEY_MAX_AGE (at most 365d)',
    );
    const cut = jsonOf<SqlKeyJson>(await sqlKey(['--json'], { env: short }));
    const payload = decode(cut.key) as Record<string, number>;
    expect(payload.exp! - payload.iat!).toBe(14 * DAY);
  });

  it('mints nothing where cube.js makes a hook of its own, whose options set in code the environment does not show', async () => {
    const project = mkdtempSync(join(dir, 'project-'));
    writeFileSync(
      join(project, 'cube.js'),
      'module.exports = { checkAuth: async () => ({}), checkSqlAuth: async () => ({}), queryRewrite: (q) => q };\n',
    );
    const refused = await sqlKey([], { env, cwd: project });
    expect(refused.code).toBe(1);
    expect(refused.stdout).toBe('');
    expect(refused.stderr).toBe(
      `cube-dual-auth sql-key: ${join(project, 'cube.js')} exports its own checkAuth and checkSqlAuth, not cube-dual-auth's ready-made one, so it may set options in code (a securityContext function, claims, groups) that the environment does not show: a key minted from the environment alone could carry a security context the hook never gives, so no key minted; export cube-dual-auth's checkAuth and checkSqlAuth configured by the environment to mint keys here\n`,
    );
    writeFileSync(join(project, 'cube.js'), "throw new Error('no database');\n");
    const unreadable = await sqlKey([], { env, cwd: project });
    expect(unreadable.code).toBe(1);
    expect(unreadable.stderr).toContain('could not be read, so whether it sets the hook');
    // A cube.js that makes no hook of its own leaves the environment's judgement whole.
    writeFileSync(join(project, 'cube.js'), 'module.exports = { queryRewrite: (q) => q };\n');
    const minted = await sqlKey([], { env, cwd: project });
    expect(minted.code).toBe(0);
    expect(minted.stdout).toMatch(/^eyJ/);
  });

  it('exits 2 without a token source', async () => {
    const result = await runBin(['sql-key'], { env });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("missing the identity provider's token: --token-file <file> or --token -");
  });
});
