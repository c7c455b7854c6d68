import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { jsonOf, keySetDeploymentPerFile, runCli } from '../../support/cli';
import { randomSecret } from '../../support/claims';
import { cubeJsIn, gatewayIn, RECOMMENDED_CUBE_JS } from '../../support/cube';
import { scratchDirs } from '../../support/scratch';

/** The `--json` document of doctor, as documented in docs/cli-output.md. */
interface DoctorJson {
  ok: boolean;
  checks: { id: string; status: 'ok' | 'warn' | 'fail'; message: string }[];
}

const SECRET = randomSecret(32);
const WEAK = 'too-short-0123';
const scratch = scratchDirs('doctor-see-');
let good: Record<string, string>;
let cubeProject: string;
let elsewhere: string;

keySetDeploymentPerFile(SECRET, (deployment) => {
  good = deployment.env;
});
beforeAll(() => {
  cubeProject = scratch();
  gatewayIn(cubeProject, 'module.exports = {};\n');
  cubeJsIn(cubeProject, RECOMMENDED_CUBE_JS);
  elsewhere = scratch();
});

/** A secrets directory holding `files`, by name. */
function secretsDir(files: Record<string, string>): string {
  const dir = scratch();
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return dir;
}

/** Every "see X" of the output, with the line that says it. */
function references(json: DoctorJson): { from: string; to: string }[] {
  return json.checks.flatMap(({ id, message }) =>
    [...message.matchAll(/\bsee ([a-z][a-z0-9-]*)\b/g)].map((found) => ({ from: id, to: found[1] as string })),
  );
}

async function doctorJson(env: Record<string, string>, cwd = cubeProject): Promise<DoctorJson> {
  const secrets = Object.values(env).filter((value) => value === SECRET || value === WEAK);
  return jsonOf<DoctorJson>(await runCli(['doctor', '--json'], { env, cwd, secrets }));
}

describe('doctor --json: every "see X" names a line of the same output', () => {
  const cases: [string, () => { env: Record<string, string>; cwd?: string }, string[]][] = [
    [
      'a bad sql-keys-revoked file only',
      () => ({
        env: {
          ...good,
          CUBE_DUAL_AUTH_SECRETS_DIR: secretsDir({ 'sql-keys-revoked': '# left\n\nuser alice before yesterday\n' }),
        },
      }),
      [],
    ],
    [
      'a weak api-secrets file',
      () => ({
        env: {
          CUBEJS_JWK_URL: good.CUBEJS_JWK_URL as string,
          CUBE_DUAL_AUTH_SECRETS_DIR: secretsDir({ 'api-secrets': `${WEAK}\n` }),
        },
      }),
      ['secrets-dir'],
    ],
    ['a weak CUBEJS_API_SECRET', () => ({ env: { ...good, CUBEJS_API_SECRET: WEAK } }), ['api-secret']],
    [
      'a weak CUBE_DUAL_AUTH_ADDITIONAL_API_SECRETS',
      () => ({ env: { ...good, CUBE_DUAL_AUTH_ADDITIONAL_API_SECRETS: WEAK } }),
      ['additional-api-secrets'],
    ],
    [
      'a weak CUBEJS_API_SECRET beside a secrets directory without api-secrets',
      () => ({
        env: {
          ...good,
          CUBEJS_API_SECRET: WEAK,
          CUBE_DUAL_AUTH_SECRETS_DIR: secretsDir({ 'sql-keys-revoked': 'k-1\n' }),
        },
      }),
      ['api-secret'],
    ],
    [
      'the SQL API on, with no cube.js to read',
      () => ({ env: { ...good, CUBEJS_PG_SQL_PORT: '15432' }, cwd: elsewhere }),
      ['cube-js'],
    ],
  ];

  it.each(cases)('%s', async (_, given, expected) => {
    const { env, cwd } = given();
    const json = await doctorJson(env, cwd);
    const ids = new Set(json.checks.map(({ id }) => id));
    const seen = references(json);
    expect(seen.map(({ to }) => to)).toEqual(expected);
    for (const { from, to } of seen) expect(ids, `${from} says "see ${to}"`).toContain(to);
  });

  it('names the bad line of sql-keys-revoked, counting its comment and blank line, in the configuration line', async () => {
    const dir = secretsDir({ 'sql-keys-revoked': '# left\n\nuser alice before yesterday\n' });
    const json = await doctorJson({ ...good, CUBE_DUAL_AUTH_SECRETS_DIR: dir });
    const configuration = json.checks.find(({ id }) => id === 'configuration');
    expect(configuration?.message).toBe(
      `cube-dual-auth: ${join(dir, 'sql-keys-revoked')} line 3 revokes the keys of user "alice" before a time that is not ISO 8601 with a zone`,
    );
    expect(json.checks.find(({ id }) => id === 'secrets-dir')?.message).toContain(
      'sql-keys-revoked is unusable: line 3 revokes the keys of user "alice" before a time that is not ISO 8601 with a zone',
    );
  });
  it('names a weak API secret and a repeated SQL key secret of the directory by file and line', async () => {
    const key = randomSecret(32);
    const doctorOf = async (files: Record<string, string>) => {
      const dir = secretsDir(files);
      const env = { CUBEJS_JWK_URL: good.CUBEJS_JWK_URL as string, CUBE_DUAL_AUTH_SECRETS_DIR: dir };
      const run = await runCli(['doctor', '--json'], { env, cwd: cubeProject, secrets: [SECRET, WEAK, key] });
      const { checks } = jsonOf<DoctorJson>(run);
      const line = (id: string) => checks.find((check) => check.id === id)?.message;
      return { dir, configuration: line('configuration'), directory: line('secrets-dir') };
    };
    const weak = await doctorOf({ 'api-secrets': `# new first\n${SECRET}\n\n${WEAK}\n` });
    expect(weak.configuration).toBe(
      'the checkAuth hook accepts every variable but the API secret, which is too weak: Cube will not start (see secrets-dir)',
    );
    expect(weak.directory).toContain('api-secrets is unusable: line 4 is 14 base64 characters');
    const repeated = await doctorOf({
      'api-secrets': `${SECRET}\n`,
      'sql-key-secrets': `${key}\n# kept for a week\n${SECRET}\n`,
    });
    const named = `line 3 is also an API secret (${join(repeated.dir, 'api-secrets')}): a SQL key would then pass as a service token`;
    expect(repeated.configuration).toContain(`${join(repeated.dir, 'sql-key-secrets')} ${named}`);
    expect(repeated.directory).toContain(`sql-key-secrets is unusable: ${named}`);
  });
});
