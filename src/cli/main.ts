#!/usr/bin/env node
import { run } from './run';

const io = { stdout: process.stdout, stderr: process.stderr, stdin: process.stdin, env: process.env, cwd: process.cwd() };
run(process.argv.slice(2), io).then((code) => {
  process.exitCode = code;
});
