#!/usr/bin/env node
import { faultReport } from './fault';
import { EXIT_FAILURE } from './io';
import { run } from './run';
import { Scrubber } from './scrub';

// A reader that stops early (`cube-dual-auth doctor | head -1`) is no failure of the command: what is left to print is
// dropped, and the command ends as it would have, with its own exit status. Any other write error still ends the
// process as Node ends it.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error;
  });
}

const argv = process.argv.slice(2);
const scrubber = new Scrubber();

// A fault outside the command's own await (a stream's callback, a timer) is told as one too: one scrubbed line with
// an id, never Node's stack trace (docs/cli.md, "Faults and limits").
const fault = (error: unknown): void => {
  const command = argv.find((arg) => !arg.startsWith('-')) ?? 'cli';
  process.stderr.write(scrubber.scrub(faultReport(command, error, argv.includes('--verbose'))));
  process.exit(EXIT_FAILURE);
};
process.on('uncaughtException', fault);
process.on('unhandledRejection', fault);

const io = {
  stdout: process.stdout,
  stderr: process.stderr,
  stdin: process.stdin,
  env: process.env,
  cwd: process.cwd(),
  scrubber,
};

/** How long the process may live after its command has ended: what it started that lingers does not hold it. */
const EXIT_GRACE_MS = 1_000;

run(argv, io).then((code) => {
  process.exitCode = code;
  // No command runs past its deadline (docs/cli.md, "Faults and limits"): a request or a child's pipe left behind
  // would otherwise keep the process alive. Unref'd, the timer keeps nothing alive itself.
  setTimeout(() => process.exit(code), EXIT_GRACE_MS).unref();
});
