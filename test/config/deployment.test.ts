/**
 * One configuration for the hook and the commands (issue 49): the same secrets, spread over the environment, the
 * project's `.env` and the secrets directory in six ways, judged by the real hook, `verify` and `probe` alike.
 */
import { createSecretKey } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sign } from 'jsonwebtoken';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCheckAuth, optionsFromEnv, type CheckAuth } from '../../src';
import { secretsInForce, secretsOfDeployment, signingSecretOf } from '../../src/config/deployment';
import { mintSqlKey } from '../../src/hook/sql-login/sql-key';
import { jsonOf, runCli } from '../support/cli';
import { randomSecret } from '../support/claims';
import { cubeGateway, startDeployment } from '../support/deployment';

// Cube's own .env reader decides what the hook in Cube sees: the commands' reader is judged against it.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const cubeDotenv = require('@cubejs-backend/dotenv') as {
  parse(text: string, options: object): Record<string, string>;
};

const [A, B, STALE_API, K1, K2, STALE_KEY] = Array.from({ length: 6 }, () => randomSecret(32)) as [
  string,
  string,
  string,
  string,
  string,
  string,
];
const NOW = Date.now();
const BOB_BEFORE = new Date(NOW - 3_600_000).toISOString().replace(/\.\d{3}Z$/, 'Z');
const root = mkdtempSync(join(tmpdir(), 'cda-matrix-'));

interface Files {
  readonly 'api-secrets'?: string;
  readonly 'sql-key-secrets'?: string;
  readonly 'sql-keys-revoked'?: string;
}
interface Configuration {
  readonly name: string;
  readonly env: Record<string, string>;
  readonly dotenv?: string;
  readonly files?: Files;
}

/** The key ids revoked by id; filled once the keys are minted. */
const revokedIds: string[] = [];
const revokedList = () => [...revokedIds, `user bob before ${BOB_BEFORE}`];

function configurations(): Configuration[] {
  const inEnv = {
    CUBEJS_API_SECRETS: `${A},${B}`,
    CUBE_DUAL_AUTH_SQL_KEY_SECRETS: `${K1},${K2}`,
    CUBE_DUAL_AUTH_SQL_KEYS_REVOKED: revokedList().join(','),
  };
  const files: Files = {
    'api-secrets': `# rotated\n${A}\n${B}\n`,
    'sql-key-secrets': `${K1}\r\n${K2}\r\n`,
    'sql-keys-revoked': `${revokedList().join('\n')}\n`,
  };
  const stale = { CUBEJS_API_SECRET: STALE_API, CUBE_DUAL_AUTH_SQL_KEY_SECRETS: STALE_KEY };
  const dotenvOf = (env: Record<string, string>) =>
    Object.entries(env)
      .map(([name, value], i) => (i % 2 === 0 ? `${name}="${value}"` : `${name}=${value}`))
      .join('\n');
  return [
    { name: 'environment only', env: inEnv },
    { name: 'directory only', env: {}, files },
    { name: 'both, with different values', env: stale, files },
    { name: '.env only', env: {}, dotenv: `# Cube's project\n${dotenvOf(inEnv)}\n` },
    {
      name: '.env and the environment',
      env: inEnv,
      dotenv: `${dotenvOf({ ...stale, CUBEJS_API_SECRETS: STALE_API })}\n`,
    },
    {
      name: 'a directory with one file absent',
      env: { CUBE_DUAL_AUTH_SQL_KEYS_REVOKED: revokedList().join('\n'), CUBEJS_API_SECRET: STALE_API },
      files: { 'api-secrets': files['api-secrets'], 'sql-key-secrets': files['sql-key-secrets'] },
    },
  ];
}

/** A project directory laid out as the configuration says; its environment with the directory named. */
function layOut(configuration: Configuration, i: number): { cwd: string; env: Record<string, string> } {
  const cwd = join(root, `project-${i}`);
  mkdirSync(cwd, { recursive: true });
  if (configuration.dotenv !== undefined) writeFileSync(join(cwd, '.env'), configuration.dotenv);
  const env: Record<string, string> = { ...configuration.env, NODE_ENV: 'production' };
  if (configuration.files !== undefined) {
    const dir = join(cwd, 'secrets');
    mkdirSync(dir);
    for (const [file, text] of Object.entries(configuration.files)) writeFileSync(join(dir, file), text);
    env.CUBE_DUAL_AUTH_SECRETS_DIR = dir;
  }
  return { cwd, env };
}

/** The environment Cube's hook sees: Cube's dotenv loads `.env` under the environment before cube.js. */
function cubeEnvironment(cwd: string, env: Record<string, string>): Record<string, string> {
  let text = '';
  try {
    text = readFileSync(join(cwd, '.env'), 'utf8');
  } catch {
    // No .env: the environment alone.
  }
  return { ...cubeDotenv.parse(text, { multiline: 'line-breaks' }), ...env };
}

interface Input {
  readonly name: string;
  readonly kind: 'service' | 'sql-key';
  readonly token: string;
  /** The SQL user a BI tool signs in as, for a SQL key. */
  readonly user?: string;
  readonly accepted: boolean;
}

function serviceToken(secret: string, claims: Record<string, unknown> = {}, algorithm: 'HS256' | 'HS512' = 'HS256') {
  const iat = Math.floor(NOW / 1000);
  return sign({ iat, exp: iat + 600, ...claims }, secret, { algorithm });
}

function sqlKey(secret: string, user: string, { ageMs = 0, expiresIn = 3600 } = {}) {
  return mintSqlKey({
    secret: createSecretKey(Buffer.from(secret)),
    user,
    securityContext: { tenant: 'acme', sub: user },
    expiresIn,
    now: NOW - ageMs,
  });
}

function inputs(): Input[] {
  const list: Input[] = [];
  const service = (name: string, token: string, accepted: boolean) =>
    list.push({ name, kind: 'service', token, accepted });
  service('service token, first API secret', serviceToken(A), true);
  service('service token, second API secret', serviceToken(B), true);
  service('service token, second secret, claims', serviceToken(B, { tenant: 'acme', groups: ['a'] }), true);
  service('service token, stale API secret', serviceToken(STALE_API), false);
  service('service token, a SQL key secret', serviceToken(K1), false);
  service('service token, stale SQL key secret', serviceToken(STALE_KEY), false);
  service('service token, random secret', serviceToken(randomSecret(32)), false);
  service(
    'service token, expired',
    serviceToken(A, { iat: Math.floor(NOW / 1000) - 7200, exp: Math.floor(NOW / 1000) - 3600 }),
    false,
  );
  service('service token, not yet valid', serviceToken(A, { nbf: Math.floor(NOW / 1000) + 3600 }), false);
  service('service token, HS512', serviceToken(A, {}, 'HS512'), false);
  service('service token, altered', `${serviceToken(A).slice(0, -4)}AAAA`, false);
  const key = (name: string, token: string, user: string, accepted: boolean) =>
    list.push({ name, kind: 'sql-key', token, user, accepted });
  for (const [which, secret] of [
    ['first', K1],
    ['second', K2],
  ] as const) {
    key(`SQL key, ${which} key secret, alice`, sqlKey(secret, 'alice').key, 'alice', true);
    key(
      `SQL key, ${which} key secret, carol`,
      sqlKey(secret, 'carol', { ageMs: 7_200_000, expiresIn: 86_400 }).key,
      'carol',
      true,
    );
    key(`SQL key, ${which} key secret, wrong user`, sqlKey(secret, 'alice').key, 'carol', false);
    key(`SQL key, ${which} key secret, expired`, sqlKey(secret, 'alice', { ageMs: 7_200_000 }).key, 'alice', false);
    const revoked = sqlKey(secret, 'alice');
    revokedIds.push(revoked.id);
    key(`SQL key, ${which} key secret, revoked by id`, revoked.key, 'alice', false);
    key(
      `SQL key, ${which} key secret, bob before the cut`,
      sqlKey(secret, 'bob', { ageMs: 7_200_000, expiresIn: 86_400 }).key,
      'bob',
      false,
    );
    key(`SQL key, ${which} key secret, bob after the cut`, sqlKey(secret, 'bob').key, 'bob', true);
  }
  key('SQL key, stale key secret', sqlKey(STALE_KEY, 'alice').key, 'alice', false);
  key('SQL key, an API secret', sqlKey(A, 'alice').key, 'alice', false);
  key('SQL key, stale API secret', sqlKey(STALE_API, 'alice').key, 'alice', false);
  key('SQL key, random secret', sqlKey(randomSecret(32), 'alice').key, 'alice', false);
  key('SQL key, altered', `${sqlKey(K1, 'alice').key.slice(0, -4)}AAAA`, 'alice', false);
  return list;
}

const sqlRequest = () => ({ id: 'span-1', meta: null, protocol: 'postgres', method: 'password' });

async function hookVerdict(hook: CheckAuth, input: Input): Promise<boolean> {
  const judged =
    input.kind === 'service'
      ? hook({ headers: { authorization: input.token, 'request-origin': 'embeddable' } })
      : hook.checkSqlAuth(sqlRequest(), input.user as string, input.token);
  return judged.then(
    () => true,
    () => false,
  );
}

async function verifyVerdict(input: Input, cwd: string, env: Record<string, string>): Promise<boolean | string> {
  const args =
    input.kind === 'service'
      ? ['verify', input.token, '--origin', '--json']
      : ['verify', input.token, '--sql-user', input.user as string, '--json'];
  const result = await runCli(args, { env, cwd });
  const report = jsonOf<{ accepted: boolean; error: { message: string } | null }>(result);
  // A cell that differs shows verify's reason.
  return report.accepted === input.accepted ? report.accepted : `${report.accepted} (${report.error?.message})`;
}

describe('one configuration: the hook, verify and probe judge alike wherever the secrets live', () => {
  const all = inputs();
  const hooks: CheckAuth[] = [];
  beforeAll(() => expect(all.length).toBeGreaterThanOrEqual(30));
  afterAll(() => {
    for (const hook of hooks) hook.close();
    rmSync(root, { recursive: true, force: true });
  });

  configurations().forEach((configuration, i) => {
    it(`${configuration.name}: every input judged the same by createCheckAuth, verify and probe`, async () => {
      const { cwd, env } = layOut(configuration, i);
      const hook = createCheckAuth(optionsFromEnv(cubeEnvironment(cwd, env)));
      hooks.push(hook);
      const cells: string[] = [];
      for (const input of all) {
        const [byHook, byVerify] = [await hookVerdict(hook, input), await verifyVerdict(input, cwd, env)];
        cells.push(`${input.name}: hook ${byHook}, verify ${byVerify}, expected ${input.accepted}`);
      }
      expect(cells).toEqual(
        all.map(
          (input) => `${input.name}: hook ${input.accepted}, verify ${input.accepted}, expected ${input.accepted}`,
        ),
      );
      // probe signs with every API secret in force, as this project's hook holds them: each accepted.
      const cube = await startDeployment(cubeGateway(hook));
      try {
        const result = await runCli(['probe', cube.url, '--json'], { env, cwd });
        const checks = jsonOf<{ checks: { name: string; verdict: string; reason: string }[] }>(result).checks;
        expect(checks.find((check) => check.name === 'service-token')).toMatchObject({
          verdict: 'PASS',
          reason: expect.stringMatching(/each of the 2 API secrets in force/),
        });
        expect(result.code).toBe(0);
      } finally {
        await cube.close();
      }
      const secrets = secretsOfDeployment(cubeEnvironment(cwd, env));
      expect(signingSecretOf(secrets)?.value).toBe(A);
      expect(secretsInForce({ env, cwd })).toEqual(expect.arrayContaining([A, B, K1, K2]));
    });
  });
});
