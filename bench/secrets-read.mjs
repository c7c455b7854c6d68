// npm run bench:secrets: how long one read of the secrets directory blocks the event loop (docs/performance.md#a-reload-blocks-the-event-loop-for).
// Every read is synchronous, so its wall time is the time the loop is blocked: one file of the 64 KiB limit, the files
// a mount can hold in its place (refused before a byte is read), and a whole check of a directory of four files at the
// limit, unchanged (a poll) and changed (read, parsed, checked and swapped). Median and slowest of --runs (default 200).
import { execFileSync } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';

const require = createRequire(import.meta.url);
const { openSecretFile, MAX_SECRET_FILE_BYTES } = require('../dist/config/secret-file-open.js');
const { SecretsReload, SECRETS_SETTLE_MS } = require('../dist/config/reload.js');
const { ENV_NAMES } = require('../dist/config/option-table.js');

const at = process.argv.indexOf('--runs');
const runs = at === -1 ? 200 : Number(process.argv[at + 1]);
const dir = mkdtempSync(join(tmpdir(), 'cube-dual-auth-bench-secrets-'));

/** Lines of `make()` up to the limit. */
function filled(make) {
  let text = '';
  for (let line = make(); text.length + line.length + 1 <= MAX_SECRET_FILE_BYTES; line = make()) text += `${line}\n`;
  return text;
}

/** `count` revoked key ids, a line each. */
const filledTo = (count) => Array.from({ length: count }, () => `${randomUUID()}\n`).join('');

function timed(label, run) {
  const ms = [];
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    run(i);
    ms.push(performance.now() - started);
  }
  ms.sort((a, b) => a - b);
  console.log(`${label}: median ${ms[ms.length >> 1].toFixed(3)} ms, slowest ${ms.at(-1).toFixed(3)} ms`);
}

try {
  const files = {
    'api-secrets': filled(() => randomBytes(32).toString('hex')),
    'sql-key-secrets': filled(() => randomBytes(32).toString('hex')),
    'sql-keys-revoked': filled(() => randomUUID()),
    'sql-password': `${randomBytes(24).toString('hex')}\n`,
  };
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  timed('open and read one file of 64 KiB', () => openSecretFile(join(dir, 'sql-keys-revoked')));
  execFileSync('mkfifo', [join(dir, 'fifo')]);
  symlinkSync('/dev/zero', join(dir, 'zero'));
  writeFileSync(join(dir, 'sparse'), '');
  truncateSync(join(dir, 'sparse'), 1024 ** 3);
  for (const name of ['fifo', 'zero', 'sparse']) timed(`refuse ${name}`, () => openSecretFile(join(dir, name)));

  let now = 0;
  const reload = SecretsReload.start({ options: {}, names: ENV_NAMES, dir, log: () => {}, clock: () => now });
  timed('check four files of 64 KiB, unchanged (a poll)', () => reload.check());
  const other = filled(() => randomUUID());
  timed('check four files of 64 KiB, one changed and settled (read, parsed, checked, swapped)', (i) => {
    writeFileSync(join(dir, 'sql-keys-revoked'), i % 2 === 0 ? other : files['sql-keys-revoked']);
    reload.check();
    now += SECRETS_SETTLE_MS;
    reload.check();
  });
  reload.close();

  // A directory as deployments hold it: two API secrets, one SQL key secret, ten revoked keys.
  const small = mkdtempSync(join(tmpdir(), 'cube-dual-auth-bench-secrets-'));
  try {
    const hex = () => randomBytes(32).toString('hex');
    writeFileSync(join(small, 'api-secrets'), `${hex()}\n${hex()}\n`);
    writeFileSync(join(small, 'sql-key-secrets'), `${hex()}\n`);
    const revoked = [filledTo(10), filledTo(10)];
    writeFileSync(join(small, 'sql-keys-revoked'), revoked[0]);
    const typical = SecretsReload.start({ options: {}, names: ENV_NAMES, dir: small, log: () => {}, clock: () => now });
    timed('check a typical directory, unchanged (a poll)', () => typical.check());
    timed('check a typical directory, one changed and settled', (i) => {
      writeFileSync(join(small, 'sql-keys-revoked'), revoked[i % 2]);
      typical.check();
      now += SECRETS_SETTLE_MS;
      typical.check();
    });
    typical.close();
  } finally {
    rmSync(small, { recursive: true, force: true });
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
