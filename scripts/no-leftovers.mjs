#!/usr/bin/env node
// The last step of .ci/run, passed or failed: no process that a phase started may be left (docs/development.md#deadlines).
//
//   node scripts/no-leftovers.mjs <file of process groups>
//
// The file lists the process groups scripts/deadline.mjs started the phases in, one `<pgid> <name>` a line. A process
// is left when it is in one of those groups or carries this run's CUBE_DUAL_AUTH_CI_RUN (every process the run
// started inherits it, unless it was given an environment of its own); this process and its ancestors are not. Each one
// is printed and stopped, and the exit status is 1; with none, it prints how many groups it checked and exits 0.
import { readFileSync } from 'node:fs';
import { describeProcesses, processesOf, stopProcesses } from './lib/process-tree.mjs';

const [file] = process.argv.slice(2);
if (!file) {
  console.error('usage: node scripts/no-leftovers.mjs <file of process groups>');
  process.exit(2);
}
let lines = [];
try {
  lines = readFileSync(file, 'utf8').split('\n').filter(Boolean);
} catch {
  // No phase started: nothing to check but the marker.
}
const names = new Map(lines.map((line) => [Number(line.split(' ')[0]), line.slice(line.indexOf(' ') + 1)]));
const run = process.env.CUBE_DUAL_AUTH_CI_RUN;
const which = { groups: [...names.keys()], marker: run ? `CUBE_DUAL_AUTH_CI_RUN=${run}` : undefined };
const left = processesOf(which);
if (left.length === 0) {
  console.log(`no process left (${names.size} process groups checked)`);
  process.exit(0);
}
const phaseOf = (p) => (names.has(p.pgid) ? ` [phase: ${names.get(p.pgid)}]` : '');
console.error(`${left.length} processes left by the phases; stopping them:`);
console.error(
  describeProcesses(left)
    .split('\n')
    .map((line, i) => line + phaseOf(left[i]))
    .join('\n'),
);
await stopProcesses(which);
process.exit(1);
