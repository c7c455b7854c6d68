/**
 * doctor's cube-gateway check finds Cube's gateway as the hook does (src/host-cube.ts). Here cube-dual-auth is
 * installed in a Cube project's node_modules (a copy of the built package) and run from another directory, from
 * which only the package's own directory leads to Cube: the hook then throws Cube's class, and Cube answers 403.
 */
import { execFile } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { CLI, jsonOf, runBin } from '../support/cli';
import { randomSecret } from '../support/claims';

const root = join(__dirname, '..', '..');
const SECRET = randomSecret(32);
let project: string;
let elsewhere: string;
let installed: string;

beforeAll(() => {
  project = mkdtempSync(join(tmpdir(), 'cube-project-'));
  elsewhere = mkdtempSync(join(tmpdir(), 'elsewhere-'));
  const modules = join(project, 'node_modules');
  const gateway = join(modules, '@cubejs-backend', 'api-gateway');
  mkdirSync(gateway, { recursive: true });
  writeFileSync(
    join(gateway, 'package.json'),
    JSON.stringify({ name: '@cubejs-backend/api-gateway', version: '1.7.43', main: 'index.js' }),
  );
  // The shape of Cube's class: (status, type, message).
  writeFileSync(
    join(gateway, 'index.js'),
    'class CubejsHandlerError extends Error { constructor(status, type, message) { super(message); this.status = status; this.type = type; } }\nmodule.exports = { CubejsHandlerError };\n',
  );
  installed = join(modules, 'cube-dual-auth');
  cpSync(dirname(dirname(CLI)), join(installed, 'dist'), { recursive: true });
  cpSync(join(root, 'package.json'), join(installed, 'package.json'));
  // The package's dependencies, where npm would have put them.
  for (const dependency of ['jsonwebtoken', 'jwks-rsa'])
    symlinkSync(join(root, 'node_modules', dependency), join(modules, dependency));
});
afterAll(() => {
  rmSync(project, { recursive: true, force: true });
  rmSync(elsewhere, { recursive: true, force: true });
});

it("doctor, run outside the Cube project, finds Cube from its own directory as the hook does, which answers with Cube's class", async () => {
  const result = await runBin(['doctor', '--json'], {
    bin: join(installed, 'dist', 'cli', 'main.js'),
    cwd: elsewhere,
    env: { CUBEJS_API_SECRET: SECRET },
  });
  const gatewayCheck = jsonOf<{ checks: { id: string; status: string; message: string }[] }>(result).checks.find(
    (c) => c.id === 'cube-gateway',
  );
  expect(gatewayCheck).toEqual({
    id: 'cube-gateway',
    status: 'ok',
    message: `@cubejs-backend/api-gateway 1.7.43 resolves from cube-dual-auth's own directory (${join(installed, 'dist')}), not from ${elsewhere}: rejections become HTTP 403`,
  });

  const hook = `
    const { createCheckAuth } = require(${JSON.stringify(installed)});
    const { CubejsHandlerError } = require(${JSON.stringify(join(project, 'node_modules', '@cubejs-backend', 'api-gateway'))});
    createCheckAuth({ apiSecret: process.env.SECRET })({ headers: {} }, undefined).catch((error) => console.log(error instanceof CubejsHandlerError, error.status));`;
  const { stdout } = await promisify(execFile)(process.execPath, ['-e', hook], {
    cwd: elsewhere,
    env: { PATH: process.env.PATH ?? '', SECRET },
  });
  expect(stdout).toBe('true 403\n');
});
