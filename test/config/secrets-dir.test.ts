import { chmodSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createCheckAuth, DualAuthConfigError } from '../../src';
import { ENV_NAMES } from '../../src/config/option-table';
import {
  MAX_SECRET_FILE_BYTES,
  parseSecretFile,
  readSecretFile,
  resolveWithSecretFiles,
  type SecretFileLines,
  type SecretFileValues,
} from '../../src/config/secrets-dir';
import { randomSecret } from '../support/claims';
import { scratchDirs } from '../support/scratch';
import { linkToDevZero, makeFifo, makeSparseFile } from '../support/secrets-dir';

const scratch = scratchDirs('cube-dual-auth-secrets-');
const [a, b] = [randomSecret(), randomSecret()];

describe('parseSecretFile', () => {
  it('reads one secret a line, skipping blank lines and # comments, trimming each line', () => {
    expect(parseSecretFile('apiSecret', `# new, from 2026-05\n${a}\r\n\n  ${b}  \n`)).toEqual({
      value: [a, b],
      lines: [2, 4],
    });
    expect(parseSecretFile('sqlKeySecrets', `${a}`)).toEqual({ value: [a], lines: [1] });
  });

  it('refuses a secrets file with no secret, but takes an empty revoked list as no revocation', () => {
    expect(parseSecretFile('apiSecret', '# nothing yet\n\n')).toEqual({
      reason: 'holds no secret (only blank lines or comments): one secret a line, at least one',
    });
    expect(parseSecretFile('sqlKeysRevoked', '')).toEqual({ value: [], lines: [] });
    expect(parseSecretFile('sqlKeysRevoked', 'k-1\nuser alice before 2026-05-01T09:00:00Z\n')).toEqual({
      value: ['k-1', 'user alice before 2026-05-01T09:00:00Z'],
      lines: [1, 2],
    });
  });

  it('takes the password as one line, and refuses two', () => {
    expect(parseSecretFile('sqlPassword', 'correct horse battery staple\n')).toEqual({
      value: 'correct horse battery staple',
      lines: [1],
    });
    expect(parseSecretFile('sqlPassword', 'one\n# the old one:\ntwo\n')).toEqual({
      reason: 'holds 2 lines of value (lines 1 and 3) where the password is one line',
    });
    expect(parseSecretFile('sqlPassword', '# cleared\n\n')).toEqual({
      reason: 'holds no password (only blank lines or comments): the password is one line',
    });
  });

  it('refuses bytes that are not text, naming the line, never quoting it', () => {
    expect(parseSecretFile('apiSecret', `${b}\n${a}\uFFFD`)).toEqual({
      reason:
        'line 2 holds bytes that are not text (a binary file, or not UTF-8), which no secret, entry or comment may hold: a line ends at \\n, \\r\\n or \\r',
    });
  });

  it('ends a line at \\n, \\r\\n or a lone \\r', () => {
    expect(parseSecretFile('apiSecret', `S1\rS2\r`)).toEqual({ value: ['S1', 'S2'], lines: [1, 2] });
    expect(parseSecretFile('apiSecret', `${a}\r${b}\r\n# c\rS3\n`)).toEqual({ value: [a, b, 'S3'], lines: [1, 2, 4] });
    expect(parseSecretFile('sqlPassword', 'one\rtwo\r')).toEqual({
      reason: 'holds 2 lines of value (lines 1 and 2) where the password is one line',
    });
  });

  it('refuses a tab, NUL, U+2028, U+2029 or another control character inside a line, naming the line', () => {
    const cases: [string, string][] = [
      [`${a}\n${b.slice(0, 10)}\t${b.slice(10)}\n`, 'line 2 holds a tab (U+0009)'],
      [`# comment\n\n${a}\u0000\n`, 'line 3 holds a NUL byte (U+0000)'],
      [`${a}\u2028${b}`, 'line 1 holds a line separator (U+2028)'],
      [`${a}\r${b}\u2029`, 'line 2 holds a paragraph separator (U+2029)'],
      [`${a}\u001b[0m`, 'line 1 holds a control character (U+001B)'],
      [`\uFEFF${a}`, 'line 1 holds a byte-order mark (U+FEFF)'],
      [`${a}\u0085`, 'line 1 holds a control character (U+0085)'],
    ];
    for (const [text, said] of cases) {
      const parsed = parseSecretFile('apiSecret', text);
      expect(parsed).toEqual({
        reason: `${said}, which no secret, entry or comment may hold: a line ends at \\n, \\r\\n or \\r`,
      });
      expect(JSON.stringify(parsed)).not.toContain(a.slice(0, 8));
    }
    expect(parseSecretFile('sqlKeysRevoked', 'user\talice before 2026-05-01T09:00:00Z\n')).toMatchObject({
      reason: expect.stringMatching(/^line 1 holds a tab/),
    });
  });
});

describe('readSecretFile', () => {
  it('tells a file that is absent, read, unreadable or too large, never quoting its content', () => {
    const dir = scratch();
    expect(readSecretFile(dir, 'apiSecret')).toEqual({ state: 'absent' });
    writeFileSync(join(dir, 'api-secrets'), `${a}\n`);
    expect(readSecretFile(dir, 'apiSecret')).toMatchObject({ state: 'read', text: `${a}\n`, value: [a] });
    mkdirSync(join(dir, 'sql-password'));
    expect(readSecretFile(dir, 'sqlPassword')).toMatchObject({
      state: 'invalid',
      reason: 'is a directory, not a regular file: a secrets file is a regular file, or a symlink to one',
    });
    writeFileSync(join(dir, 'sql-key-secrets'), 'x'.repeat(MAX_SECRET_FILE_BYTES + 1));
    expect(readSecretFile(dir, 'sqlKeySecrets')).toMatchObject({
      state: 'invalid',
      reason: `is larger than ${MAX_SECRET_FILE_BYTES} bytes`,
    });
    if (process.getuid?.() !== 0) {
      writeFileSync(join(dir, 'sql-keys-revoked'), 'k-1\n');
      chmodSync(join(dir, 'sql-keys-revoked'), 0o000);
      expect(readSecretFile(dir, 'sqlKeysRevoked')).toMatchObject({ reason: 'cannot be read (EACCES)' });
    }
  });
});

describe('resolveWithSecretFiles: the one check, at start and at each reload', () => {
  const dir = '/etc/cube-secrets';
  const given = (values: SecretFileValues, lines: SecretFileLines = {}) => ({ dir, values, lines });

  it('puts the files in place of the options and names the file in every message', () => {
    const resolved = resolveWithSecretFiles({ apiSecret: randomSecret() }, ENV_NAMES, given({ apiSecret: [a, b] }));
    expect(resolved.secretKeys).toHaveLength(2);
    expect(() => resolveWithSecretFiles({ apiSecret: a }, ENV_NAMES, given({ sqlKeySecrets: [a] }))).toThrow(
      '/etc/cube-secrets/sql-key-secrets is also an API secret (CUBEJS_API_SECRET)',
    );
  });

  it('names a weak or repeated secret by its line in its file, never by its value', () => {
    const weak = given({ apiSecret: [a, 'changeme'] }, { apiSecret: [2, 5] });
    expect(() => resolveWithSecretFiles({}, ENV_NAMES, weak)).toThrow(
      new DualAuthConfigError(
        '/etc/cube-secrets/api-secrets',
        'line 5 is 8 base64 characters, 6 bytes: 48 bits of key material, under 32 bytes: anyone can choose the shared-secret path, so use at least 32 random bytes ' +
          '(openssl rand -hex 32); to run with it anyway, set CUBE_DUAL_AUTH_ALLOW_WEAK_SECRET to true',
      ),
    );
    const allowed = resolveWithSecretFiles({ allowWeakSecret: true }, ENV_NAMES, weak);
    expect(allowed.secretWeakness).toBe(
      'line 5 of /etc/cube-secrets/api-secrets is 8 base64 characters, 6 bytes: 48 bits of key material, under 32 bytes',
    );
    const repeated = given({ apiSecret: [a], sqlKeySecrets: [b, a] }, { apiSecret: [1], sqlKeySecrets: [3, 7] });
    expect(() => resolveWithSecretFiles({}, ENV_NAMES, repeated)).toThrow(
      new DualAuthConfigError(
        '/etc/cube-secrets/sql-key-secrets',
        'line 7 is also an API secret (/etc/cube-secrets/api-secrets): a SQL key would then pass as a service token; give SQL keys a secret of their own',
      ),
    );
    const weakKey = given({ sqlKeySecrets: ['password123'] }, { sqlKeySecrets: [4] });
    expect(() => resolveWithSecretFiles({ apiSecret: a }, ENV_NAMES, weakKey)).toThrow(
      /^cube-dual-auth: \/etc\/cube-secrets\/sql-key-secrets line 4 is 11 base64 characters, 8 bytes: 66 bits of key material, under 32 bytes: a SQL key is a password/,
    );
  });

  it('names a secret of a variable by its place when the variable lists several', () => {
    expect(() => resolveWithSecretFiles({ apiSecret: [a, 'changeme'] }, ENV_NAMES, given({}))).toThrow(
      /^cube-dual-auth: CUBEJS_API_SECRET \(secret 2 of 2\) is 8 base64 characters/,
    );
  });
});

describe('createCheckAuth with a secrets directory', () => {
  it('stops at start on a bad file, naming the file and the reason, never the value', () => {
    const dir = scratch();
    writeFileSync(join(dir, 'api-secrets'), '# rotated 2026-05\n\nchangeme\n');
    expect(() => createCheckAuth({ secretsDir: dir })).toThrow(
      `cube-dual-auth: ${join(dir, 'api-secrets')} line 3 is 8 base64 characters, 6 bytes: 48 bits of key material`,
    );
    writeFileSync(join(dir, 'api-secrets'), '# emptied\n');
    expect(() => createCheckAuth({ secretsDir: dir })).toThrow(
      `cube-dual-auth: ${join(dir, 'api-secrets')} holds no secret (only blank lines or comments)`,
    );
  });

  it('stops at start on a FIFO, a device or a file too large, at once, naming the file and its type', () => {
    const dir = scratch();
    makeFifo(join(dir, 'api-secrets'));
    expect(() => createCheckAuth({ secretsDir: dir })).toThrow(
      `cube-dual-auth: ${join(dir, 'api-secrets')} is a FIFO (named pipe), not a regular file`,
    );
    rmSync(join(dir, 'api-secrets'));
    writeFileSync(join(dir, 'api-secrets'), `${a}\n`);
    linkToDevZero(join(dir, 'sql-password'));
    expect(() => createCheckAuth({ secretsDir: dir, sqlUser: 'cube' })).toThrow(
      `cube-dual-auth: ${join(dir, 'sql-password')} is a character device, not a regular file`,
    );
    rmSync(join(dir, 'sql-password'));
    makeSparseFile(join(dir, 'sql-keys-revoked'));
    expect(() => createCheckAuth({ secretsDir: dir })).toThrow(
      `cube-dual-auth: ${join(dir, 'sql-keys-revoked')} is larger than ${MAX_SECRET_FILE_BYTES} bytes`,
    );
  });

  it('stops at start on a directory that is none', () => {
    const missing = join(scratch(), 'nothing-here');
    expect(() => createCheckAuth({ apiSecret: a, secretsDir: missing })).toThrow(
      new DualAuthConfigError(
        'option "secretsDir"',
        `is ${JSON.stringify(missing)}, which is no directory this process can read`,
      ),
    );
  });
});
