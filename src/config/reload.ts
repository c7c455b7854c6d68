/**
 * Reading the secrets directory again while Cube runs; a bad or vanished file keeps its last good content in force,
 * so a reload never fails open nor stops Cube (docs/rotation.md#what-a-reload-does).
 */
import { statSync, watch, type FSWatcher } from 'node:fs';
import { basename } from 'node:path';
import { performance } from 'node:perf_hooks';
import { DualAuthConfigError, faultMessage } from '../errors';
import { emit, type AuthEventListener, type SecretReloadEvent } from '../events';
import type { OptionNames } from './option-table';
import type { DualAuthOptions } from './option-types';
import type { ResolvedOptions } from './resolve-options';
import {
  readSecretFiles,
  resolveWithSecretFiles,
  SECRET_FILES,
  SECRET_OPTIONS,
  secretFileName,
  startingSecretFiles,
  type SecretFile,
  type SecretFileReading,
  type SecretFileLines,
  type SecretFilesGiven,
  type SecretFileValues,
  type SecretOption,
} from './secrets-dir';
import { SECRETS_SETTLE_MS, signatureOf, stampOf } from './secret-file-settle';
import { SecretStates } from './secret-state';
import { LiveSecrets, snapshotOf } from './secrets-snapshot';

/** Events come in bursts: read once they settle (docs/performance.md#the-secrets-directory-time-to-in-force). */
const EVENT_BURST_MS = 50;

export { SECRETS_SETTLE_MS };

/** How often the directory itself is checked: removed, replaced or mounted over, the new one is watched. */
export const DIRECTORY_CHECK_MS = 500;

/** What a reload needs besides the directory: the options without the files, and how messages name them. */
export interface SecretsReloadSetting {
  /** The options as given (from the environment), which the files' values replace. */
  readonly options: DualAuthOptions;
  readonly names: OptionNames;
  readonly dir: string;
  /** Where each reload's one line goes. @default console.error */
  readonly log?: (line: string) => void;
  /** The monotonic millisecond clock the settle interval is measured on. @default performance.now */
  readonly clock?: () => number;
  /** Epoch ms, for the time a file is kept at its last good content and files' ages at start. @default Date.now */
  readonly now?: () => number;
  /** How the start waits for a file being written to settle. @default Atomics.wait */
  readonly sleep?: (ms: number) => void;
}

/** What `doctor` and the events say of one file: counts and reasons, never content. */
export type SecretFileStatus =
  | { readonly state: 'absent' }
  | { readonly state: 'in-force'; readonly values: number }
  | { readonly state: 'kept'; readonly reason: string };

/** How many values a file's option holds: secrets, revocation entries, a password. */
function countOf(value: unknown): number {
  if (Array.isArray(value)) return value.length;
  return value === undefined ? 0 : 1;
}

/** The directory's device, inode and birth time (a new directory often reuses the old inode); undefined if gone. */
function directoryIdentity(dir: string): string | undefined {
  try {
    const stats = statSync(dir);
    return stats.isDirectory() ? `${stats.dev}:${stats.ino}:${stats.birthtimeMs}` : undefined;
  } catch {
    return undefined;
  }
}

/** A change seen once, and when: acted on when a read {@link SECRETS_SETTLE_MS} later agrees. */
interface Sighting {
  readonly stamp: string;
  readonly since: number;
}

/**
 * The secrets directory of one hook: read and checked at {@link SecretsReload.start}, then kept in force.
 * @example
 * const reload = SecretsReload.start({ options, names, dir: '/etc/cube-secrets' });
 * const authenticator = new Authenticator(reload.resolved, Date.now, reload.secrets);
 * reload.watch(onEvent, 10_000);
 */
export class SecretsReload {
  /** The secrets in force, which each applied change replaces whole. */
  readonly secrets: LiveSecrets;
  /** What each file holds, for the metrics (secret-state.ts). */
  readonly states: SecretStates;
  private readonly log: (line: string) => void;
  /** The last reading of each file, reported once. */
  private readonly seen: Record<SecretOption, string>;
  /** The reading of each file whose content is in force ('absent' while the environment's is). */
  private readonly inForce: Record<SecretOption, string>;
  private readonly kept: Partial<Record<SecretOption, string>> = {};
  /** The change of each file waiting to settle. */
  private readonly sighted: Partial<Record<SecretOption, Sighting>> = {};
  private readonly clock: () => number;
  private values: SecretFileValues;
  /** The line of each value in force, which messages name a secret by. */
  private lines: SecretFileLines;
  private onEvent: AuthEventListener | undefined;
  private watcher: FSWatcher | undefined;
  private poll: NodeJS.Timeout | undefined;
  private pending: NodeJS.Timeout | undefined;
  private confirming: NodeJS.Timeout | undefined;
  private keeper: NodeJS.Timeout | undefined;
  /** The identity of the directory the watcher watches. */
  private watched: string | undefined;

  private constructor(
    private readonly setting: SecretsReloadSetting,
    readings: Record<SecretOption, SecretFileReading>,
    { values, lines }: SecretFilesGiven,
    /** The options checked at start, the files' values in place. */
    readonly resolved: ResolvedOptions,
  ) {
    this.log = setting.log ?? ((line) => console.error(line));
    this.clock = setting.clock ?? (() => performance.now());
    this.values = values;
    this.lines = lines;
    this.secrets = new LiveSecrets(snapshotOf(resolved));
    const fromFiles = new Set(SECRET_OPTIONS.filter((option) => Object.hasOwn(values, option)));
    this.states = new SecretStates({ secrets: resolved, fromFiles, clock: setting.now ?? Date.now });
    const signatures = () =>
      Object.fromEntries(SECRET_OPTIONS.map((option) => [option, signatureOf(readings[option])])) as Record<
        SecretOption,
        string
      >;
    this.seen = signatures();
    this.inForce = signatures();
  }

  /** Reads and checks the directory as the start does, throwing the `DualAuthConfigError`. */
  static start(setting: SecretsReloadSetting): SecretsReload {
    const { options, names, dir, now, sleep } = setting;
    const given = startingSecretFiles(dir, names.secretsDir, { now, sleep });
    return new SecretsReload(setting, given.readings, given, resolveWithSecretFiles(options, names, given));
  }

  /** Each file: absent (the environment's value in force), in force (how many values), or kept at its last good. */
  status(): Record<SecretFile, SecretFileStatus> {
    return Object.fromEntries(
      SECRET_OPTIONS.map((option): [SecretFile, SecretFileStatus] => {
        const kept = this.kept[option];
        const status: SecretFileStatus =
          kept !== undefined
            ? { state: 'kept', reason: kept }
            : Object.hasOwn(this.values, option)
              ? { state: 'in-force', values: countOf(this.values[option]) }
              : { state: 'absent' };
        return [SECRET_FILES[option], status];
      }),
    ) as Record<SecretFile, SecretFileStatus>;
  }

  /** Puts in force every changed file that passes, in one swap; never throws: it runs in Cube's timer. */
  check(): void {
    try {
      this.reload();
    } catch (error) {
      this.log(`cube-dual-auth: reading ${this.setting.dir} failed unexpectedly: ${faultMessage(error)}`);
    }
  }

  /** Watches the directory (Kubernetes swaps `..data`), and that it stays the one watched; polls; no process kept. */
  watch(onEvent: AuthEventListener | undefined, pollMs: number): void {
    this.onEvent = onEvent;
    this.keepWatching();
    this.keeper = setInterval(() => this.keepWatching(), DIRECTORY_CHECK_MS).unref();
    this.poll = setInterval(() => this.check(), pollMs).unref();
  }

  close(): void {
    this.watcher?.close();
    this.watcher = undefined;
    clearInterval(this.poll);
    clearInterval(this.keeper);
    clearTimeout(this.pending);
    clearTimeout(this.confirming);
  }

  /** A directory removed, replaced or remounted ends its watcher's events, or sends none: watch the one there now. */
  private keepWatching(): void {
    const identity = directoryIdentity(this.setting.dir);
    // The same directory, watched (or on a file system that sends no events, which the polling reads).
    if (identity !== undefined && identity === this.watched) return;
    this.watcher?.close();
    this.watcher = undefined;
    this.watched = undefined;
    if (identity === undefined) return;
    this.startWatcher(identity);
    // What the new directory holds may have come before its watcher.
    this.soon();
  }

  private startWatcher(identity: string): void {
    try {
      const own = basename(this.setting.dir);
      const watcher = watch(this.setting.dir, { persistent: false }, (event, name) => {
        // The directory itself renamed or removed: this watcher sees nothing more, so watch what is there now.
        if (event === 'rename' && name === own && this.watcher === watcher) {
          watcher.close();
          this.watcher = undefined;
          this.watched = undefined;
          this.keepWatching();
        }
        this.soon();
      });
      watcher.on('error', () => {
        watcher.close();
        if (this.watcher !== watcher) return;
        this.watcher = undefined;
        this.watched = undefined;
      });
      this.watcher = watcher;
    } catch {
      // No events from here (the file system sends none): the polling reads it, and this is not tried again.
      this.watcher = undefined;
    }
    this.watched = identity;
  }

  private soon(): void {
    if (this.pending !== undefined) return;
    this.pending = setTimeout(() => {
      this.pending = undefined;
      this.check();
    }, EVENT_BURST_MS).unref();
  }

  /** A read again once the change seen first has had {@link SECRETS_SETTLE_MS} to settle. */
  private confirmIn(ms: number): void {
    if (this.confirming !== undefined) return;
    this.confirming = setTimeout(
      () => {
        this.confirming = undefined;
        this.check();
      },
      Math.max(1, Math.ceil(ms)),
    ).unref();
  }

  /** Whether a changed reading has settled: the same as one read at least the settle interval before. */
  private settled(option: SecretOption, reading: SecretFileReading): boolean {
    const stamp = stampOf(reading);
    const now = this.clock();
    const sighting = this.sighted[option];
    if (sighting === undefined || sighting.stamp !== stamp) {
      this.sighted[option] = { stamp, since: now };
      this.confirmIn(SECRETS_SETTLE_MS);
      return false;
    }
    const waited = now - sighting.since;
    if (waited < SECRETS_SETTLE_MS) {
      this.confirmIn(SECRETS_SETTLE_MS - waited);
      return false;
    }
    delete this.sighted[option];
    return true;
  }

  private reload(): void {
    const { options, names, dir } = this.setting;
    const readings = readSecretFiles(dir);
    let values = this.values;
    let lines = this.lines;
    let resolved: ResolvedOptions | undefined;
    const applied: SecretOption[] = [];
    const restored: SecretOption[] = [];
    for (const option of SECRET_OPTIONS) {
      const reading = readings[option];
      const signature = signatureOf(reading);
      if (signature === this.inForce[option]) {
        this.seen[option] = signature;
        // Back at the content in force after being kept out: counted and logged as applied, so alerts clear.
        if (this.kept[option] !== undefined) restored.push(option);
        delete this.kept[option];
        delete this.sighted[option];
        continue;
      }
      if (!this.settled(option, reading)) continue;
      const news = signature !== this.seen[option];
      this.seen[option] = signature;
      let reason: string;
      if (reading.state === 'absent') reason = 'the file is gone';
      else if (reading.state === 'invalid') reason = reading.reason;
      else {
        const candidate = {
          dir,
          values: { ...values, [option]: reading.value },
          lines: { ...lines, [option]: reading.lines },
        };
        try {
          resolved = resolveWithSecretFiles(options, names, candidate);
          ({ values, lines } = candidate);
          this.inForce[option] = signature;
          delete this.kept[option];
          applied.push(option);
          continue;
        } catch (error) {
          // The message names the file that failed: said once in the log line when it is this one.
          const file = `${secretFileName(dir, option)} `;
          // The package's own refusal is whole (it names no value); anything else is capped as any fault is.
          const said = error instanceof DualAuthConfigError ? error.message : faultMessage(error);
          reason = said.replace(/^cube-dual-auth: /, '');
          if (reason.startsWith(file)) reason = reason.slice(file.length);
        }
      }
      this.kept[option] = reason;
      this.states.kept(option);
      if (news) this.report(option, reading.state === 'absent' ? 'vanished' : 'invalid', reason);
    }
    for (const option of restored) this.restore(option);
    if (resolved === undefined) return;
    this.values = values;
    this.lines = lines;
    this.secrets.swap(snapshotOf(resolved));
    for (const option of applied) {
      this.states.applied(option, resolved, true);
      this.report(option, 'applied', undefined, countOf(values[option]));
    }
    if (resolved.secretWeakness !== undefined)
      this.log(`cube-dual-auth: ${resolved.secretWeakness}: for a test set-up only (allowWeakSecret)`);
  }

  /** A file back at the content in force after it was kept out: one line, and an `applied` that clears alerts. */
  private restore(option: SecretOption): void {
    const values = countOf(this.values[option]);
    const file = secretFileName(this.setting.dir, option);
    this.states.current(option);
    this.log(
      Object.hasOwn(this.values, option)
        ? `cube-dual-auth: ${file} applied again: back at the content in force, ${values} ${values === 1 ? 'value' : 'values'}`
        : `cube-dual-auth: ${file} applied again: gone, as at start; the environment's value stays in force`,
    );
    emit(this.onEvent, { type: 'secret-reload', file: SECRET_FILES[option], outcome: 'applied', values });
  }

  /** One event and one log line per change of a file: its name and the reason, never its content. */
  private report(option: SecretOption, outcome: SecretReloadEvent['outcome'], reason?: string, values?: number): void {
    const file = secretFileName(this.setting.dir, option);
    this.log(
      outcome === 'applied'
        ? `cube-dual-auth: ${file} applied: ${values} ${values === 1 ? 'value' : 'values'} in force`
        : `cube-dual-auth: ${file} not applied (${outcome}): ${reason}; its last good content stays in force`,
    );
    emit(this.onEvent, {
      type: 'secret-reload',
      file: SECRET_FILES[option],
      outcome,
      ...(reason !== undefined && { reason }),
      ...(values !== undefined && { values }),
    });
  }
}
