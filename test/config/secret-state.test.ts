// What a hook holds of each secrets file, for the metrics that compare replicas: the source of the value in force, a
// slow fingerprint of it, whether the file is kept at its last good content and since when (on a clock), and how many
// changes were applied; a return to good content counted as applied.
import { scryptSync } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { createCheckAuth, metrics, type AuthEvent } from '../../src';
import { ENV_NAMES } from '../../src/config/option-table';
import { SecretsReload } from '../../src/config/reload';
import { resolveOptions } from '../../src/config/resolve-options';
import { FINGERPRINT_COST, fingerprintSalt } from '../../src/config/secret-fingerprint';
import { SecretStates, type SecretFileState } from '../../src/config/secret-state';
import { randomSecret } from '../support/claims';
import { createClock } from '../support/clock';
import { scratchDirs } from '../support/scratch';
import { AtomicWriterDir } from '../support/secrets-dir';

const scratch = scratchDirs('cube-dual-auth-secret-state-');
const [oldSecret, newSecret] = [randomSecret(), randomSecret()];
/** Epoch ms the clock starts at, in 2027. */
const T0 = 1_800_000_000_000;

const closing: { close(): void }[] = [];
afterEach(() => {
  for (const item of closing.splice(0)) item.close();
});

/** The states once every fingerprint is computed (scrypt on the thread pool: no verdict on its time here). */
async function settled(states: SecretStates): Promise<Record<string, SecretFileState>> {
  states.computeFingerprints();
  while (states.readings().some(({ fingerprint }) => fingerprint === undefined))
    await new Promise((resolve) => setTimeout(resolve, 10));
  return Object.fromEntries(states.readings().map((state) => [state.file, state]));
}

/** The documented construction (docs/security.md#the-fingerprint-of-the-secrets-in-force), computed here anew. */
const expected = (file: 'api-secrets' | 'sql-password', value: unknown) =>
  scryptSync(Buffer.from(JSON.stringify(value)), fingerprintSalt(file), 8, {
    ...FINGERPRINT_COST,
    maxmem: 64 * 1024 * 1024,
  }).toString('hex');

function deployment(files: Record<string, string>, options = {}) {
  const dir = scratch();
  const writer = new AtomicWriterDir(dir);
  writer.write(files);
  const clock = createClock(T0);
  const logs: string[] = [];
  const events: AuthEvent[] = [];
  const reload = SecretsReload.start({
    options,
    names: ENV_NAMES,
    dir,
    log: (line) => logs.push(line),
    clock: clock.now,
  });
  reload.watch((event) => events.push(event), 3_600_000);
  closing.push(reload);
  const outcomes = () => events.flatMap((event) => (event.type === 'secret-reload' ? [event.outcome] : []));
  return { dir, writer, clock, logs, outcomes, reload, states: reload.states };
}

describe('the state of each secrets file', () => {
  it('names the environment as the source when no file replaces it, and none when nothing gives a value', async () => {
    const states = new SecretStates({
      secrets: resolveOptions({ apiSecret: oldSecret, sqlPassword: 'static-pass' }, ENV_NAMES),
      fromFiles: new Set(),
      clock: createClock(T0).now,
    });
    expect(states.readings().map(({ fingerprint }) => fingerprint)).toEqual([undefined, '', '', undefined]);
    const held = await settled(states);
    expect(held['api-secrets']).toEqual({
      file: 'api-secrets',
      source: 'environment',
      fingerprint: expected('api-secrets', [Buffer.from(oldSecret).toString('base64')]),
      keptSince: undefined,
      generation: 0,
    });
    expect(held['sql-password']).toMatchObject({
      source: 'environment',
      fingerprint: expected('sql-password', 'static-pass'),
    });
    expect(held['sql-key-secrets']).toMatchObject({ source: 'none', fingerprint: '' });
    expect(held['sql-keys-revoked']).toMatchObject({ source: 'none', fingerprint: '' });
    // 16 hex digits, which hold no secret.
    expect(held['api-secrets']?.fingerprint).toMatch(/^[0-9a-f]{16}$/);
  });

  it('shows one fingerprint for one value, from a file or the environment, and another per file for the same text', async () => {
    const { states } = deployment({ 'api-secrets': `# comment\n${oldSecret}\n` });
    const fromFile = await settled(states);
    const fromEnv = await settled(
      new SecretStates({
        secrets: resolveOptions({ apiSecret: oldSecret }, ENV_NAMES),
        fromFiles: new Set(),
        clock: Date.now,
      }),
    );
    expect(fromFile['api-secrets']?.source).toBe('file');
    expect(fromFile['api-secrets']?.fingerprint).toBe(fromEnv['api-secrets']?.fingerprint);
    const password = await settled(
      new SecretStates({
        secrets: resolveOptions({ apiSecret: newSecret, sqlPassword: oldSecret }, ENV_NAMES),
        fromFiles: new Set(),
        clock: Date.now,
      }),
    );
    expect(password['sql-password']?.fingerprint).not.toBe(expected('api-secrets', oldSecret));
    expect(password['sql-password']?.fingerprint).toBe(expected('sql-password', oldSecret));
  });

  it('counts applied changes, keeps a bad file since the clock said, and clears it with an applied on return', async () => {
    const { dir, writer, clock, logs, outcomes, reload, states } = deployment({ 'api-secrets': oldSecret });
    const start = await settled(states);
    writer.write({ 'api-secrets': `${newSecret}\n${oldSecret}\n` });
    reload.check();
    const rotated = await settled(states);
    expect(rotated['api-secrets']).toMatchObject({ source: 'file', generation: 1, keptSince: undefined });
    expect(rotated['api-secrets']?.fingerprint).not.toBe(start['api-secrets']?.fingerprint);

    clock.advance(60_000);
    writer.write({ 'api-secrets': `${newSecret}\nchangeme\n` });
    reload.check();
    clock.advance(30_000);
    writer.write({});
    reload.check();
    const kept = await settled(states);
    // Kept since the first bad content, not the second; the content in force unchanged.
    expect(kept['api-secrets']).toEqual({ ...rotated['api-secrets'], keptSince: (T0 + 60_000) / 1000 });

    clock.advance(30_000);
    writer.write({ 'api-secrets': `${newSecret}\n${oldSecret}\n` });
    reload.check();
    reload.check();
    expect(await settled(states)).toEqual(rotated);
    expect(outcomes()).toEqual(['applied', 'invalid', 'vanished', 'applied']);
    expect(logs.at(-1)).toBe(
      `cube-dual-auth: ${dir}/api-secrets applied again: back at the content in force, 2 values`,
    );
  });

  it('clears a bad file written where none was once it is gone again, the environment in force throughout', async () => {
    const { dir, writer, logs, outcomes, reload, states } = deployment({}, { apiSecret: oldSecret });
    writer.write({ 'api-secrets': 'changeme\n' });
    reload.check();
    expect(states.readings()[0]).toMatchObject({ source: 'environment', keptSince: T0 / 1000, generation: 0 });
    writer.write({});
    reload.check();
    expect(states.readings()[0]).toMatchObject({ source: 'environment', keptSince: undefined, generation: 0 });
    expect(outcomes()).toEqual(['invalid', 'applied']);
    expect(logs.at(-1)).toBe(
      `cube-dual-auth: ${dir}/api-secrets applied again: gone, as at start; the environment's value stays in force`,
    );
  });
});

/** The metrics text once it holds `wanted`: the directory's events bring the change (no verdict on time here). */
async function untilMetrics(wanted: RegExp): Promise<string> {
  let text = await metrics.text();
  while (!wanted.test(text)) {
    await new Promise((resolve) => setTimeout(resolve, 10));
    text = await metrics.text();
  }
  return text;
}

describe('the metrics of the secrets files', () => {
  it('serves each file in force, kept, since when and its generation, and clears the kept one once fixed', async () => {
    const dir = scratch();
    const writer = new AtomicWriterDir(dir);
    writer.write({ 'api-secrets': oldSecret });
    const hook = createCheckAuth({
      secretsDir: dir,
      secretsPollMs: 3_600_000,
      metrics: true,
      sqlPassword: 'static-pass',
    });
    closing.push(hook);
    const line = (name: string, value: string) => new RegExp(`^${name} ${value}$`, 'm');
    const text = await untilMetrics(/cube_dual_auth_secret_in_force\{file="api-secrets"/);
    const fingerprint = expected('api-secrets', [Buffer.from(oldSecret).toString('base64')]);
    expect(text).toMatch(
      line(`cube_dual_auth_secret_in_force\\{file="api-secrets",source="file",fingerprint="${fingerprint}"\\}`, '1'),
    );
    expect(text).toMatch(
      line('cube_dual_auth_secret_in_force\\{file="sql-key-secrets",source="none",fingerprint=""\\}', '1'),
    );
    expect(text).toMatch(line('cube_dual_auth_secret_kept\\{file="api-secrets"\\}', '0'));
    expect(text).toMatch(line('cube_dual_auth_secret_kept_since_seconds\\{file="api-secrets"\\}', '0'));
    expect(text).toMatch(line('cube_dual_auth_secret_generation\\{file="api-secrets"\\}', '0'));
    expect(text).not.toContain(oldSecret);

    const before = Date.now() / 1000;
    writer.write({ 'api-secrets': 'changeme\n' });
    const kept = await untilMetrics(line('cube_dual_auth_secret_kept\\{file="api-secrets"\\}', '1'));
    const since = Number(/^cube_dual_auth_secret_kept_since_seconds\{file="api-secrets"\} (\S+)$/m.exec(kept)?.[1]);
    expect(since).toBeGreaterThanOrEqual(before);
    expect(since).toBeLessThanOrEqual(Date.now() / 1000);
    writer.write({ 'api-secrets': oldSecret });
    const fixed = await untilMetrics(line('cube_dual_auth_secret_kept\\{file="api-secrets"\\}', '0'));
    expect(fixed).toMatch(line('cube_dual_auth_secret_kept_since_seconds\\{file="api-secrets"\\}', '0'));
    expect(fixed).toMatch(line('cube_dual_auth_secret_generation\\{file="api-secrets"\\}', '0'));
    expect(fixed).toMatch(line('cube_dual_auth_secret_reloads_total\\{file="api-secrets",outcome="applied"\\}', '1'));
    expect(fixed).toMatch(line('cube_dual_auth_secret_reloads_total\\{file="api-secrets",outcome="invalid"\\}', '1'));
  });
});
