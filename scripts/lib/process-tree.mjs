// The processes a run started, found three ways, since each alone misses some (docs/development.md#deadlines): the
// children of its root, its process group (what is left once the root has exited), and a marker in the environment
// (what a test spawned `detached`, in a group of its own, as Cube is, and whose parent has died since).
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * Every process: `{ pid, ppid, pgid, command }`, and `environ` (its environment as one string) where /proc shows it.
 * Without /proc (macOS), from `ps`, without environments.
 */
export function listProcesses() {
  let pids;
  try {
    pids = readdirSync('/proc').filter((name) => /^\d+$/.test(name));
  } catch {
    return fromPs();
  }
  const processes = [];
  for (const pid of pids) {
    try {
      // Fields after the command, which is in parentheses and may hold spaces: state, ppid, pgid.
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const [state, ppid, pgid] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      // A zombie has exited: only its parent's wait is left of it.
      if (state === 'Z') continue;
      const command = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ').trim();
      let environ = '';
      try {
        environ = readFileSync(`/proc/${pid}/environ`, 'utf8');
      } catch {
        // Another user's process: none of ours.
      }
      processes.push({ pid: Number(pid), ppid: Number(ppid), pgid: Number(pgid), command, environ });
    } catch {
      // Exited while we read.
    }
  }
  return processes;
}

function fromPs() {
  const text = execFileSync('ps', ['-A', '-o', 'pid=,ppid=,pgid=,stat=,command='], { encoding: 'utf8' });
  return text
    .split('\n')
    .map((line) => line.trim().match(/^(\d+)\s+(\d+)\s+(\d+)\s+(\S+)\s*(.*)$/))
    .filter((match) => match && !match[4].startsWith('Z'))
    .map(([, pid, ppid, pgid, , command]) => ({
      pid: Number(pid),
      ppid: Number(ppid),
      pgid: Number(pgid),
      command,
      environ: '',
    }));
}

/** This process and its ancestors: never stopped, though they carry the marker of an outer run. */
function selfAndAncestors(processes) {
  const byPid = new Map(processes.map((p) => [p.pid, p]));
  const kept = new Set();
  for (let pid = process.pid; pid > 1 && !kept.has(pid); pid = byPid.get(pid)?.ppid ?? 0) kept.add(pid);
  return kept;
}

/**
 * The processes of a run: descendants of `root` (a pid), members of the process groups `groups`, and those whose
 * environment holds `marker` (a `NAME=value` string), less this process and its ancestors.
 */
export function processesOf({ root, groups = [], marker }) {
  const processes = listProcesses();
  const kept = selfAndAncestors(processes);
  const found = new Map();
  const add = (p) => {
    if (!kept.has(p.pid)) found.set(p.pid, p);
  };
  const wanted = new Set(groups);
  for (const p of processes) {
    if (wanted.has(p.pgid)) add(p);
    if (marker && p.environ.split('\0').includes(marker)) add(p);
  }
  if (root !== undefined) {
    const children = new Map();
    for (const p of processes) children.set(p.ppid, [...(children.get(p.ppid) ?? []), p]);
    const queue = processes.filter((p) => p.pid === root);
    const seen = new Set();
    while (queue.length > 0) {
      const p = queue.pop();
      if (seen.has(p.pid)) continue;
      seen.add(p.pid);
      add(p);
      queue.push(...(children.get(p.pid) ?? []));
    }
  }
  return [...found.values()].sort((a, b) => a.pid - b.pid);
}

function signal(target, name) {
  try {
    process.kill(target, name);
  } catch {
    // Gone already, or never ours.
  }
}

/**
 * Stops the processes of a run (see {@link processesOf}): SIGTERM to each one and its group, SIGKILL to what is left
 * after `graceMs`. Resolves with the processes found at first (empty when there were none) once none is left, or
 * after a last second of waiting.
 */
export async function stopProcesses(which, { graceMs = 5_000 } = {}) {
  const ownGroup = Number(readOwnGroup());
  const first = processesOf(which);
  const send = (processes, name) => {
    for (const p of processes) {
      if (p.pgid !== ownGroup && p.pgid > 1) signal(-p.pgid, name);
      signal(p.pid, name);
    }
  };
  send(first, 'SIGTERM');
  const until = Date.now() + graceMs;
  let left = first;
  while (left.length > 0 && Date.now() < until) {
    await sleep(100);
    left = processesOf(which);
  }
  if (left.length > 0) {
    send(left, 'SIGKILL');
    const last = Date.now() + 1_000;
    while (processesOf(which).length > 0 && Date.now() < last) await sleep(50);
  }
  return first;
}

function readOwnGroup() {
  try {
    const stat = readFileSync('/proc/self/stat', 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2];
  } catch {
    return execFileSync('ps', ['-o', 'pgid=', '-p', String(process.pid)], { encoding: 'utf8' }).trim();
  }
}

/** One line per process, for a message: `  pid 123 (group 120): node worker.js …`, the command cut at 160 characters. */
export function describeProcesses(processes) {
  return processes
    .map((p) => {
      const command = p.command.length > 160 ? `${p.command.slice(0, 157)}...` : p.command;
      return `  pid ${p.pid} (group ${p.pgid}): ${command || '(exited)'}`;
    })
    .join('\n');
}
