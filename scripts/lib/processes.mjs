// Child processes that never outlive us: each starts in its own process group, so stopping it
// also stops whatever it spawned, and every wait has a deadline.
import { spawn } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';

const running = new Set();

// Last line of defence when the parent exits without stopping its children (an uncaught error,
// process.exit in a signal handler): kill the groups synchronously, as 'exit' handlers must be.
process.on('exit', () => {
  for (const child of running) killGroup(child, 'SIGKILL');
});

function killGroup(child, signal) {
  try {
    process.kill(-child.pid, signal);
  } catch {
    // Already gone.
  }
}

/**
 * Starts `command` and hands each line it prints to `onLine` (stdout and stderr alike).
 * Returns a handle with `exited` (resolves with the exit code or signal) and `stop()`.
 */
export function startProcess(command, args, { cwd, env, onLine = () => {} }) {
  const child = spawn(command, args, { cwd, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  running.add(child);
  const exited = new Promise((resolve) => {
    child.once('exit', (code, signal) => {
      running.delete(child);
      resolve(code ?? signal);
    });
    child.once('error', (error) => {
      running.delete(child);
      resolve(error.message);
    });
  });
  for (const stream of [child.stdout, child.stderr]) forEachLine(stream, onLine);

  return {
    pid: child.pid,
    exited,
    /** SIGTERM to the whole group, then SIGKILL if it is still there after `graceMs`. */
    async stop(graceMs = 5_000) {
      if (!running.has(child)) return;
      killGroup(child, 'SIGTERM');
      const stoppedInTime = await Promise.race([exited.then(() => true), sleep(graceMs, false, { ref: false })]);
      if (!stoppedInTime) {
        killGroup(child, 'SIGKILL');
        await exited;
      }
    },
  };
}

function forEachLine(stream, onLine) {
  let pending = '';
  stream.setEncoding('utf8');
  stream.on('data', (chunk) => {
    const lines = (pending + chunk).split('\n');
    pending = lines.pop() ?? '';
    for (const line of lines) onLine(line);
  });
  stream.on('end', () => {
    if (pending) onLine(pending);
  });
}

/**
 * Calls `probe` until it returns something truthy, at most until `timeoutMs` has passed.
 * `giveUp` (a promise) ends the wait early, e.g. when the server being waited for has exited.
 */
export async function waitUntil(probe, { timeoutMs, intervalMs = 200, what, giveUp }) {
  const deadline = Date.now() + timeoutMs;
  let stopped;
  giveUp?.then((reason) => {
    stopped = reason;
  });
  let lastError;
  while (Date.now() < deadline) {
    if (stopped !== undefined) throw new Error(`${what}: gave up, ${stopped}`);
    try {
      const result = await probe();
      if (result) return result;
    } catch (error) {
      lastError = error;
    }
    await sleep(intervalMs);
  }
  const detail = lastError ? ` (last error: ${lastError.message})` : '';
  throw new Error(`${what}: not ready after ${Math.round(timeoutMs / 1000)} s${detail}`);
}
