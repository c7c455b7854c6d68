// A configuration that cannot work stops the real `cubejs-server` at start, on both Cube lines: the example's cube.js
// takes `require('cube-dual-auth').checkAuth`, which checks the environment, so Cube exits while it loads cube.js,
// with the message naming the variable, and never listens. The package is installed from `npm pack` as a user
// installs it (build first).
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { connect, createServer, type AddressInfo } from 'node:net';
import { setTimeout as pause } from 'node:timers/promises';
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureCube } from '../../scripts/ensure-cube.mjs';
import { cubeLine, serverCommand, type CubeLine } from '../../scripts/lib/cube-lines.mjs';
import { exampleCubeEnvironment, startCube } from '../../scripts/lib/cube-server.mjs';
import { freePort } from '../../scripts/lib/ports.mjs';
import { createRedactor } from '../../scripts/lib/redact.mjs';
import { TENANT_CLAIMS } from '../../scripts/lib/stack.mjs';
import { randomSecret } from '../support/claims';

const INSTALL_TIMEOUT_MS = 15 * 60_000;
/**
 * How long a run may take before vitest gives up on it. Not the verdict: a Cube that stops exits by itself, one that
 * does not is seen listening and killed, whatever the machine's load (docs/development.md#timing-dependent-tests).
 */
const RUN_TIMEOUT_MS = 120_000;

/** True when something accepts a TCP connection on the port. */
function listens(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ port, host: '127.0.0.1' });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** The environment of the shell running the tests without its Cube and cube-dual-auth settings. */
function inherited(): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^(CUBEJS_|CUBE_DUAL_AUTH_)/.test(name)));
}

interface Run {
  readonly code: unknown;
  /** Everything Cube printed, stdout and stderr, with Cube's line wrapping undone. */
  readonly output: string;
  /** Whether anything accepted a connection on the API port while Cube ran. */
  readonly listened: boolean;
}

/** Starts `cubejs-server` of `line` on the example with `env`, and watches its API port until it exits. */
async function runCube(line: CubeLine, env: Record<string, string>): Promise<Run> {
  const port = await freePort();
  const { command, args } = serverCommand(line);
  // Its own process group, so that the kill below also ends whatever Cube started.
  const cube = spawn(command, args, {
    cwd: line.projectDir,
    env: { ...inherited(), ...exampleCubeEnvironment(), ...line.env, ...env, PORT: String(port) },
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  for (const stream of [cube.stdout, cube.stderr])
    stream.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  const exited = once(cube, 'exit').then(([code, signal]) => code ?? signal);
  let running = true;
  void exited.then(() => (running = false));
  let listened = false;
  try {
    // The port is asked again and again until Cube exits: one accepted connection means it listened, and a Cube that
    // listened is killed, so its exit is a signal, not a code.
    while (running && !listened) {
      listened = await listens(port);
      await pause(25);
    }
  } finally {
    if (running) process.kill(-(cube.pid as number), 'SIGKILL');
  }
  const code = await exited;
  return { code, output: output.replace(/\s+/g, ' '), listened };
}

export function failFastScenarios(lineId: string): void {
  describe(`Cube ${lineId} stops at start when the environment cannot work`, () => {
    const line = cubeLine(lineId);
    const secret = randomSecret();

    beforeAll(async () => {
      await ensureCube({ line: lineId });
    }, INSTALL_TIMEOUT_MS);

    it.each([
      [
        'a JWKS URL that is not http(s)',
        { CUBEJS_API_SECRET: secret, CUBEJS_JWK_URL: 'ftp://idp.example/jwks' },
        'cube-dual-auth: CUBEJS_JWK_URL must be an http(s) URL, not "ftp://idp.example/jwks"',
      ],
      [
        'identity providers that are not JSON',
        { CUBEJS_API_SECRET: secret, CUBE_DUAL_AUTH_PROVIDERS: '[{"issuer": }]' },
        'cube-dual-auth: CUBE_DUAL_AUTH_PROVIDERS is not valid JSON',
      ],
      [
        'a weak API secret',
        { CUBEJS_API_SECRET: 'changeme' },
        'cube-dual-auth: CUBEJS_API_SECRET is 8 base64 characters, 6 bytes: 48 bits of key material, under 32 bytes',
      ],
      [
        'a metrics port that is no port',
        { CUBEJS_API_SECRET: secret, CUBE_DUAL_AUTH_METRICS_PORT: '99999' },
        'cube-dual-auth: CUBE_DUAL_AUTH_METRICS_PORT must be a port number from 1 to 65535',
      ],
    ])(
      '%s: exits non-zero by itself, naming the variable, without listening',
      { timeout: RUN_TIMEOUT_MS },
      async (_, env, message) => {
        const run = await runCube(line, env);
        expect(run.code, run.output).not.toBe(0);
        expect(typeof run.code, `exit ${String(run.code)}, listened: ${run.listened}; ${run.output}`).toBe('number');
        expect(run.output).toContain(message);
        expect(run.listened).toBe(false);
        expect(run.output).not.toContain(secret);
      },
    );

    it(
      'a metrics port in use: exits non-zero by itself, naming the variable, without listening',
      { timeout: RUN_TIMEOUT_MS },
      async () => {
        const taken = createServer().listen(0, '127.0.0.1');
        await once(taken, 'listening');
        const { port } = taken.address() as AddressInfo;
        try {
          const run = await runCube(line, { CUBEJS_API_SECRET: secret, CUBE_DUAL_AUTH_METRICS_PORT: String(port) });
          expect(run.code, run.output).not.toBe(0);
          expect(typeof run.code, `exit ${String(run.code)}, listened: ${run.listened}; ${run.output}`).toBe('number');
          expect(run.output).toContain(
            `cube-dual-auth: CUBE_DUAL_AUTH_METRICS_PORT is ${port}, which is in use on 127.0.0.1`,
          );
          expect(run.listened).toBe(false);
        } finally {
          taken.close();
        }
      },
    );

    it(
      'says how to run with a weak secret anyway, and starts with CUBE_DUAL_AUTH_ALLOW_WEAK_SECRET=true (warning once)',
      { timeout: RUN_TIMEOUT_MS + 60_000 },
      async () => {
        const refused = await runCube(line, { CUBEJS_API_SECRET: 'changeme' });
        expect(refused.output).toContain('to run with it anyway, set CUBE_DUAL_AUTH_ALLOW_WEAK_SECRET to true');
        const lines: string[] = [];
        const cube = await startCube({
          projectDir: line.projectDir,
          line,
          // The example's tenant filter needs its tenant claims, as the example is run everywhere else.
          env: { CUBEJS_API_SECRET: 'changeme', CUBE_DUAL_AUTH_ALLOW_WEAK_SECRET: 'true', ...TENANT_CLAIMS },
          redact: createRedactor([]),
          onLine: (text: string) => lines.push(text),
        });
        try {
          expect(await listens(cube.port)).toBe(true);
          const warnings = lines.filter((text) =>
            text.includes('cube-dual-auth: CUBEJS_API_SECRET is 8 base64 characters, 6 bytes: 48 bits of key material'),
          );
          expect(warnings).toHaveLength(1);
        } finally {
          await cube.stop();
        }
      },
    );
  });
}
