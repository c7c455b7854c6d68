// A start over files being written in place: it waits until two reads SECRETS_SETTLE_MS apart agree, bounded, and
// never starts with a prefix; an old file costs no wait. The waits go through an injected sleep, on a real directory.
import { statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DualAuthConfigError } from '../../src';
import { ENV_NAMES } from '../../src/config/option-table';
import { SecretsReload } from '../../src/config/reload';
import { SECRETS_SETTLE_MS, START_SETTLE_BOUND_MS } from '../../src/config/secret-file-settle';
import { startingSecretFiles } from '../../src/config/secrets-dir';
import { randomSecret } from '../support/claims';
import { scratchDirs } from '../support/scratch';

const scratch = scratchDirs('cube-dual-auth-settle-');
const [a, b] = [randomSecret(), randomSecret()];

/** A directory with `files` written in place just now, and a wall clock `ageMs` after the newest was written. */
function written(files: Record<string, string>, ageMs: number) {
  const dir = scratch();
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  const newest = Math.max(...Object.keys(files).map((name) => statSync(join(dir, name)).mtimeMs));
  return { dir, now: () => newest + ageMs };
}

/** A sleep that records each wait and runs what the writer does meanwhile: the n-th wait runs `during[n]`. */
function sleeper(during: (() => void)[] = []) {
  const waits: number[] = [];
  const sleep = (ms: number) => {
    during[waits.length]?.();
    waits.push(ms);
  };
  return { waits, sleep };
}

describe('a start over a file being written', () => {
  it('starts with the whole file, never the prefix read first, once two reads agree', () => {
    const { dir, now } = written({ 'api-secrets': `${a}\n` }, 100);
    const { waits, sleep } = sleeper([() => writeFileSync(join(dir, 'api-secrets'), `${a}\n${b}\n`)]);
    const { values } = startingSecretFiles(dir, ENV_NAMES.secretsDir, { now, sleep });
    expect(values.apiSecret).toEqual([a, b]);
    expect(waits).toEqual([SECRETS_SETTLE_MS, SECRETS_SETTLE_MS]);
  });

  it('never starts with an emptied revocation list, nor half a password, through the hook start', () => {
    const { dir, now } = written({ 'api-secrets': `${a}\n`, 'sql-keys-revoked': '', 'sql-password': 'corr' }, 0);
    const { waits, sleep } = sleeper([
      () => {
        writeFileSync(join(dir, 'sql-keys-revoked'), 'k-1\nk-2\n');
        writeFileSync(join(dir, 'sql-password'), 'correct horse battery staple\n');
      },
    ]);
    const options = { sqlUser: 'cube' };
    const reload = SecretsReload.start({ options, names: ENV_NAMES, dir, now, sleep, log: () => {} });
    expect(reload.status()['sql-keys-revoked']).toEqual({ state: 'in-force', values: 2 });
    expect(reload.resolved.sqlPassword).toBe('correct horse battery staple');
    expect(waits).toEqual([SECRETS_SETTLE_MS, SECRETS_SETTLE_MS]);
    reload.close();
  });

  it('waits for a half-written file that is invalid, rather than stopping on it', () => {
    const { dir, now } = written({ 'api-secrets': '# rotated today\n' }, 0);
    const { sleep } = sleeper([() => writeFileSync(join(dir, 'api-secrets'), `# rotated today\n${a}\n`)]);
    expect(startingSecretFiles(dir, ENV_NAMES.secretsDir, { now, sleep }).values.apiSecret).toEqual([a]);
  });

  it('stops naming the file when it keeps changing for longer than the bound', () => {
    const { dir, now } = written({ 'api-secrets': `${a}\n` }, 0);
    const rounds = START_SETTLE_BOUND_MS / SECRETS_SETTLE_MS;
    const { waits, sleep } = sleeper(
      Array.from({ length: rounds + 1 }, (_, round) => () => writeFileSync(join(dir, 'api-secrets'), `${a}${round}\n`)),
    );
    let thrown: unknown;
    try {
      startingSecretFiles(dir, ENV_NAMES.secretsDir, { now, sleep });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(DualAuthConfigError);
    expect((thrown as DualAuthConfigError).message).toBe(
      `cube-dual-auth: ${join(dir, 'api-secrets')} is still being written: it changed at every read ${SECRETS_SETTLE_MS} ms apart for ${START_SETTLE_BOUND_MS} ms; write it whole and rename it into place`,
    );
    expect(waits).toHaveLength(rounds);
  });

  it('waits once for a file modified in the future by a skewed clock, and takes it when it holds still', () => {
    const { dir, now } = written({ 'api-secrets': `${a}\n` }, -60_000);
    const { waits, sleep } = sleeper();
    expect(startingSecretFiles(dir, ENV_NAMES.secretsDir, { now, sleep }).values.apiSecret).toEqual([a]);
    expect(waits).toEqual([SECRETS_SETTLE_MS]);
  });
});

describe('a start over files at rest', () => {
  it('makes no wait for files older than the settle interval, by the wall clock', () => {
    const { dir, now } = written({ 'api-secrets': `${a}\n`, 'sql-key-secrets': `${b}\n` }, SECRETS_SETTLE_MS);
    const { waits, sleep } = sleeper();
    expect(startingSecretFiles(dir, ENV_NAMES.secretsDir, { now, sleep }).values).toEqual({
      apiSecret: [a],
      sqlKeySecrets: [b],
    });
    expect(waits).toEqual([]);
  });

  it('makes no wait for an old file on the real wall clock, nor for an empty directory', () => {
    const dir = scratch();
    const { waits, sleep } = sleeper();
    expect(startingSecretFiles(dir, ENV_NAMES.secretsDir, { sleep }).values).toEqual({});
    writeFileSync(join(dir, 'api-secrets'), `${a}\n`);
    const hourAgo = new Date(Date.now() - 3_600_000);
    utimesSync(join(dir, 'api-secrets'), hourAgo, hourAgo);
    expect(startingSecretFiles(dir, ENV_NAMES.secretsDir, { sleep }).values).toEqual({ apiSecret: [a] });
    expect(waits).toEqual([]);
  });
});
