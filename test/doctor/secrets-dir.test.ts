import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { optionsFromEnv } from '../../src';
import { resolvedAsTheHook, secretsDirReport } from '../../src/doctor/secrets-dir';
import { randomSecret } from '../support/claims';
import { scratchDirs } from '../support/scratch';
import { AtomicWriterDir } from '../support/secrets-dir';

const scratch = scratchDirs('cube-dual-auth-doctor-secrets-');
const [a, b, k] = [randomSecret(), randomSecret(), randomSecret()];

describe("doctor's secrets directory line", () => {
  it('says per file whether it is in force or absent, with counts and never a value', () => {
    const dir = scratch();
    new AtomicWriterDir(dir).write({
      'api-secrets': `${a}\n${b}\n`,
      'sql-keys-revoked': 'k-1\nuser bob before 2026-05-01T09:00:00Z\n# done\n',
      'sql-password': 'correct horse battery staple\n',
    });
    const options = optionsFromEnv({ CUBE_DUAL_AUTH_SECRETS_DIR: dir, CUBE_DUAL_AUTH_SQL_KEY_SECRETS: k });
    expect(resolvedAsTheHook(options).secretKeys).toHaveLength(2);
    const report = secretsDirReport(options);
    expect(report).toEqual({
      status: 'ok',
      message:
        `secrets directory ${dir} (CUBE_DUAL_AUTH_SECRETS_DIR), read again on each change and every 10000 ms: ` +
        'api-secrets in force (2 secrets); sql-key-secrets absent (CUBE_DUAL_AUTH_SQL_KEY_SECRETS in force); ' +
        'sql-keys-revoked in force (2 entries); sql-password in force (the password, never printed)',
    });
    for (const value of [a, b, k, 'correct horse']) expect(report?.message).not.toContain(value);
  });

  it('fails on an unusable file, saying why and what a starting and a running Cube do', () => {
    const dir = scratch();
    writeFileSync(join(dir, 'api-secrets'), `${a}\n# the next one\n\nchangeme\n`);
    writeFileSync(join(dir, 'sql-password'), 'one\ntwo\n');
    const report = secretsDirReport(optionsFromEnv({ CUBE_DUAL_AUTH_SECRETS_DIR: dir }));
    expect(report?.status).toBe('fail');
    expect(report?.message).toContain(
      'api-secrets is unusable: line 4 is 8 base64 characters, 6 bytes: 48 bits of key material, under 32 bytes',
    );
    expect(report?.message).toContain(
      'sql-password is unusable: holds 2 lines of value (lines 1 and 2) where the password is one line (a starting Cube stops; a ' +
        'running one keeps its last good content)',
    );
    expect(report?.message).not.toContain(a);
  });

  it('fails on a directory that is none, and says nothing without one', () => {
    const missing = join(scratch(), 'absent');
    expect(secretsDirReport(optionsFromEnv({ CUBE_DUAL_AUTH_SECRETS_DIR: missing }))).toEqual({
      status: 'fail',
      message: `CUBE_DUAL_AUTH_SECRETS_DIR is ${JSON.stringify(missing)}, which is no directory this process can read`,
    });
    expect(secretsDirReport(optionsFromEnv({}))).toBeUndefined();
  });
});
