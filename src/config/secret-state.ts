/**
 * What one hook holds of each secrets file, for the metrics that compare replicas: where the value in force comes
 * from, whether the file is kept at its last good content and since when, how many changes were applied, and a
 * fingerprint of the content (docs/metrics.md#what-each-replica-holds).
 */
import { secretFingerprint } from './secret-fingerprint';
import { SECRET_FILES, SECRET_OPTIONS, type SecretFile, type SecretOption } from './secrets-dir';
import type { ResolvedOptions } from './resolve-options';

/** Where the value in force comes from: its file, the environment (or the options) as no file replaces it, or nowhere. */
export type SecretSource = 'file' | 'environment' | 'none';

/** The options that hold what the files replace. */
export type InForceSecrets = Pick<ResolvedOptions, 'secretKeys' | 'sqlKeyKeys' | 'sqlKeysRevoked' | 'sqlPassword'>;

/** One file's state as the gauges show it: never its content. */
export interface SecretFileState {
  readonly file: SecretFile;
  readonly source: SecretSource;
  /** 16 hex digits; `''` with no value in force; undefined while it is computed (about 0.1 s after a change). */
  readonly fingerprint: string | undefined;
  /** Unix seconds since which the file is kept at its last good content; undefined while it is current. */
  readonly keptSince: number | undefined;
  /** Changes applied since the hook started: 0 at start. A return to the content in force is not a change. */
  readonly generation: number;
}

interface State {
  source: SecretSource;
  /** The canonical bytes of the value in force: in memory only, as the secrets themselves are. */
  content: Buffer;
  fingerprint: string | undefined;
  keptSince: number | undefined;
  generation: number;
}

/** The value of one option in a form equal on every replica that holds it, whatever file or variable gave it. */
function canonical(option: SecretOption, secrets: InForceSecrets): Buffer | undefined {
  let value: unknown;
  if (option === 'apiSecret' || option === 'sqlKeySecrets') {
    const keys = option === 'apiSecret' ? secrets.secretKeys : secrets.sqlKeyKeys;
    value = keys.length === 0 ? undefined : keys.map((key) => key.export().toString('base64'));
  } else if (option === 'sqlKeysRevoked') {
    const revoked = secrets.sqlKeysRevoked;
    value = revoked === undefined ? undefined : { ids: [...revoked.ids].sort(), users: [...revoked.users].sort() };
  } else value = secrets.sqlPassword;
  return value === undefined ? undefined : Buffer.from(JSON.stringify(value));
}

/**
 * The state of every secrets file of one hook, told by the reload of each change it applies or keeps out.
 * @example
 * const states = new SecretStates({ secrets: resolved, fromFiles: new Set(['apiSecret']), clock: Date.now });
 * states.computeFingerprints(); // by the metrics, once they are on
 * states.readings(); // [{ file: 'api-secrets', source: 'file', fingerprint: '…', keptSince: undefined, generation: 0 }, …]
 */
export class SecretStates {
  private readonly states = {} as Record<SecretOption, State>;
  private computing = false;
  /** One fingerprint at a time: scrypt holds 32 MiB while it runs. */
  private queue: Promise<void> = Promise.resolve();

  constructor(
    private readonly setting: {
      readonly secrets: InForceSecrets;
      /** The options whose value in force a file of the secrets directory gives. */
      readonly fromFiles: ReadonlySet<SecretOption>;
      /** Epoch ms, for the time since which a file is kept. */
      readonly clock: () => number;
    },
  ) {
    for (const option of SECRET_OPTIONS) {
      this.states[option] = {
        source: 'none',
        content: Buffer.alloc(0),
        fingerprint: '',
        keptSince: undefined,
        generation: 0,
      };
      this.put(option, setting.secrets, setting.fromFiles.has(option));
    }
  }

  /** A change of `option`'s file put in force: `secrets` are the options now in force. */
  applied(option: SecretOption, secrets: InForceSecrets, fromFile: boolean): void {
    const state = this.states[option];
    state.generation += 1;
    state.keptSince = undefined;
    this.put(option, secrets, fromFile);
  }

  /** The file of `option` kept out (invalid or vanished): kept since now, unless it already was. */
  kept(option: SecretOption): void {
    const state = this.states[option];
    state.keptSince ??= this.setting.clock() / 1000;
  }

  /** The file of `option` back at the content in force: current again, with nothing new applied. */
  current(option: SecretOption): void {
    this.states[option].keptSince = undefined;
  }

  /** Starts computing fingerprints, now and at each change: only the metrics read them. */
  computeFingerprints(): void {
    if (this.computing) return;
    this.computing = true;
    for (const option of SECRET_OPTIONS) this.fingerprint(option);
  }

  readings(): readonly SecretFileState[] {
    return SECRET_OPTIONS.map((option) => {
      const { source, fingerprint, keptSince, generation } = this.states[option];
      return { file: SECRET_FILES[option], source, fingerprint, keptSince, generation };
    });
  }

  private put(option: SecretOption, secrets: InForceSecrets, fromFile: boolean): void {
    const state = this.states[option];
    const content = canonical(option, secrets);
    const source: SecretSource = fromFile ? 'file' : content === undefined ? 'none' : 'environment';
    state.source = source;
    const bytes = content ?? Buffer.alloc(0);
    if (bytes.equals(state.content)) return;
    state.content = bytes;
    state.fingerprint = content === undefined ? '' : undefined;
    if (this.computing) this.fingerprint(option);
  }

  private fingerprint(option: SecretOption): void {
    const state = this.states[option];
    if (state.fingerprint !== undefined) return;
    const { content } = state;
    this.queue = this.queue.then(async () => {
      // A change since this one was queued has queued its own.
      if (state.content !== content) return;
      try {
        const fingerprint = await secretFingerprint(SECRET_FILES[option], content);
        if (state.content === content) state.fingerprint = fingerprint;
      } catch {
        // scrypt fails only on parameters, which are constants: the series stays absent rather than wrong.
      }
    });
  }
}
