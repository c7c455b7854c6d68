#!/usr/bin/env node
// Runs a command with an outer deadline, so that a test run or a CI phase ends, passed or failed, within a bound, and
// leaves no process behind (docs/development.md#deadlines):
//
//   node scripts/deadline.mjs --seconds 900 --name "npm test" -- vitest run --project 'unit*'
//
// The command runs in a process group of its own. When the deadline passes, this prints the test files still running
// (scripts/lib/running-files-reporter.mjs keeps them) and the processes it stops, stops the command and everything it
// started, and exits 1. When the command ends in time, whatever it started and left running is reported, stopped, and
// fails the run too. Otherwise the command's own exit status is this one's.
import { spawn } from 'node:child_process';
import { appendFileSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { describeProcesses, processesOf, stopProcesses } from './lib/process-tree.mjs';

/** How long what a finished command started may take to exit by itself before it counts as left behind. */
const SETTLE_MS = 5_000;
/** After a forwarded Ctrl-C or SIGTERM, how long the command has to exit before it is stopped. */
const SIGNAL_GRACE_MS = 10_000;

function usage(message) {
  console.error(`deadline: ${message}`);
  console.error('usage: node scripts/deadline.mjs --seconds <n> [--name <what>] -- <command> [args...]');
  process.exit(2);
}

function parse(argv) {
  const split = argv.indexOf('--');
  if (split === -1 || split === argv.length - 1) usage('no command after --');
  const options = { name: undefined, seconds: undefined };
  const own = argv.slice(0, split);
  for (let i = 0; i < own.length; i += 2) {
    const [flag, value] = [own[i], own[i + 1]];
    if (value === undefined) usage(`${flag} needs a value`);
    if (flag === '--seconds') options.seconds = Number(value);
    else if (flag === '--name') options.name = value;
    else usage(`unknown option ${flag}`);
  }
  if (!(options.seconds > 0)) usage('--seconds must be a number of seconds above 0');
  const [command, ...args] = argv.slice(split + 1);
  return { ...options, name: options.name ?? [command, ...args].join(' '), command, args };
}

/**
 * The files each vitest run under this deadline has started and not finished, longest-running first; undefined when
 * no vitest run with the reporter has started under it.
 */
function runningFiles(folder) {
  const files = [];
  let names = [];
  try {
    names = readdirSync(folder).filter((name) => name.endsWith('.json'));
  } catch {
    return undefined;
  }
  if (names.length === 0) return undefined;
  for (const name of names) {
    try {
      const { files: running } = JSON.parse(readFileSync(join(folder, name), 'utf8'));
      for (const [file, since] of Object.entries(running)) files.push({ file, since });
    } catch {
      // Written as we read: the next write is whole, and one file more or less changes nothing here.
    }
  }
  return files.sort((a, b) => a.since - b.since);
}

function seconds(ms) {
  return `${(ms / 1000).toFixed(1)} s`;
}

async function main() {
  const { name, seconds: limit, command, args } = parse(process.argv.slice(2));
  const started = Date.now();
  const folder = mkdtempSync(join(tmpdir(), 'deadline-'));
  // Every process the command starts inherits this, unless it is given an environment of its own.
  const marker = `CUBE_DUAL_AUTH_DEADLINE_${process.pid}_${started}`;
  const env = {
    ...process.env,
    [marker]: '1',
    CUBE_DUAL_AUTH_RUNNING_FILES: [process.env.CUBE_DUAL_AUTH_RUNNING_FILES, folder].filter(Boolean).join(delimiter),
  };
  // Its own group (and session): stopping it stops its workers too, and never this process or the shell above.
  const child = spawn(command, args, { stdio: 'inherit', env, detached: true });
  const which = { root: child.pid, groups: [child.pid], marker: `${marker}=1` };
  // .ci/run checks, before it exits, that no process of these groups is left (docs/development.md#deadlines).
  if (process.env.CUBE_DUAL_AUTH_PROCESS_GROUPS && child.pid !== undefined)
    appendFileSync(process.env.CUBE_DUAL_AUTH_PROCESS_GROUPS, `${child.pid} ${name}\n`);

  const exited = new Promise((resolve) => {
    child.once('exit', (code, signal) => resolve({ code, signal }));
    child.once('error', (error) => resolve({ code: 127, error }));
  });

  // Ctrl-C reaches this process, not the command's group, which is no longer the terminal's: pass it on.
  let interrupted;
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
    process.on(signal, () => {
      interrupted ??= signal;
      try {
        process.kill(-child.pid, signal);
      } catch {
        // Already gone.
      }
      setTimeout(() => stopProcesses(which), SIGNAL_GRACE_MS).unref();
    });
  }

  let timer;
  const expired = new Promise((resolve) => {
    timer = setTimeout(() => resolve('expired'), limit * 1000);
  });
  const outcome = await Promise.race([exited, expired]);
  clearTimeout(timer);

  let status;
  if (outcome === 'expired') {
    const now = Date.now();
    const lines = [`deadline: ${name} passed its deadline of ${limit} s (after ${seconds(now - started)})`];
    const files = runningFiles(folder);
    if (files?.length) {
      lines.push('deadline: test files still running:');
      for (const { file, since } of files) lines.push(`  ${file} (for ${seconds(now - since)})`);
    } else if (files) {
      lines.push('deadline: no test file was running (the run was starting or closing)');
    }
    const stopping = processesOf(which);
    lines.push(`deadline: stopping ${stopping.length === 1 ? '1 process' : `${stopping.length} processes`}:`);
    lines.push(describeProcesses(stopping));
    console.error(lines.join('\n'));
    await stopProcesses(which);
    await Promise.race([exited, sleep(1_000)]);
    console.error(`deadline: ${name} stopped after ${seconds(Date.now() - started)}, exit status 1`);
    status = 1;
  } else {
    if (outcome.error) console.error(`deadline: cannot run ${command}: ${outcome.error.message}`);
    status = outcome.code ?? 1;
    if (interrupted) status = status || 1;
    // What the command started may still be exiting: give it a moment before it counts as left behind.
    const until = Date.now() + SETTLE_MS;
    let left = processesOf(which);
    while (left.length > 0 && Date.now() < until) {
      await sleep(100);
      left = processesOf(which);
    }
    if (left.length > 0) {
      const what =
        left.length === 1 ? '1 process running; stopping it' : `${left.length} processes running; stopping them`;
      console.error(`deadline: ${name} ended and left ${what}:\n${describeProcesses(left)}`);
      await stopProcesses(which);
      status = 1;
    }
  }
  rmSync(folder, { recursive: true, force: true });
  process.exit(status);
}

await main();
