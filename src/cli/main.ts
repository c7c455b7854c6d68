#!/usr/bin/env node
import { run } from './run';

run(process.argv.slice(2), { stdout: process.stdout, stderr: process.stderr, stdin: process.stdin, env: process.env }).then(
  (code) => {
    process.exitCode = code;
  },
);
