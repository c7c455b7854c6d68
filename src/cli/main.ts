#!/usr/bin/env node
import { run } from './run';

// A reader that stops early (`cube-dual-auth doctor | head -1`) is no failure of the command: what is left to print is
// dropped, and the command ends as it would have, with its own exit status. Any other write error still ends the
// process as Node ends it.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error;
  });
}

const io = {
  stdout: process.stdout,
  stderr: process.stderr,
  stdin: process.stdin,
  env: process.env,
  cwd: process.cwd(),
};
run(process.argv.slice(2), io).then((code) => {
  process.exitCode = code;
});
