// Types for the TypeScript tests (the module itself is plain ESM).
export interface ProcessInfo {
  readonly pid: number;
  readonly ppid: number;
  readonly pgid: number;
  readonly command: string;
  /** Its environment as /proc shows it (NUL-separated); empty where the system shows none. */
  readonly environ: string;
}

/** Every running process (zombies left out). */
export declare function listProcesses(): ProcessInfo[];

export interface RunProcesses {
  readonly root?: number;
  readonly groups?: readonly number[];
  readonly marker?: string;
}

/** Descendants of `root`, members of `groups` and holders of `marker` in their environment, less this process and its ancestors. */
export declare function processesOf(which: RunProcesses): ProcessInfo[];

/** SIGTERM, then SIGKILL after `graceMs`, to the processes of a run; resolves with those found at first. */
export declare function stopProcesses(which: RunProcesses, options?: { graceMs?: number }): Promise<ProcessInfo[]>;

/** One line per process, for a message. */
export declare function describeProcesses(processes: readonly ProcessInfo[]): string;
