// A configuration that cannot work stops the real `cubejs-server` at start, on both Cube lines: the example's cube.js
// takes `require('cube-dual-auth').checkAuth`, which checks the environment, so Cube exits while it loads cube.js,
// with the message naming the variable, and never listens. The package is installed from `npm pack` as a user
// installs it (build first).
import { connect } from 'node:net';
import { performance } from 'node:perf_hooks';
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureCube } from '../../scripts/ensure-cube.mjs';
import { cubeLine, serverCommand, type CubeLine } from '../../scripts/lib/cube-lines.mjs';
import { exampleCubeEnvironment, startCube } from '../../scripts/lib/cube-server.mjs';
import { freePort } from '../../scripts/lib/ports.mjs';
import { startProcess, waitUntil } from '../../scripts/lib/processes.mjs';
import { createRedactor } from '../../scripts/lib/redact.mjs';
import { randomSecret } from '../support/claims';

const INSTALL_TIMEOUT_MS = 15 * 60_000;
/** Cube loads cube.js after its own modules: a few seconds on a busy 2-core machine. */
const STOPS_WITHIN_MS = 30_000;

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
  readonly elapsedMs: number;
  /** Everything Cube printed, stdout and stderr, with Cube's line wrapping undone. */
  readonly output: string;
  /** Whether anything accepted a connection on the API port while Cube ran. */
  readonly listened: boolean;
}

/** Starts `cubejs-server` of `line` on the example with `env`, and watches its API port until it exits. */
async function runCube(line: CubeLine, env: Record<string, string>): Promise<Run> {
  const port = await freePort();
  const lines: string[] = [];
  const { command, args } = serverCommand(line);
  const started = performance.now();
  const cube = startProcess(command, args, {
    cwd: line.projectDir,
    env: { ...inherited(), ...exampleCubeEnvironment(), ...line.env, ...env, PORT: String(port) },
    onLine: (text: string) => lines.push(text),
  });
  let listened = false;
  try {
    // Asked again and again until Cube exits: any connection accepted on its port means it listened.
    listened = await waitUntil(() => listens(port), { timeoutMs: STOPS_WITHIN_MS, intervalMs: 25, what: 'the API port', giveUp: cube.exited }).then(
      () => true,
      () => false,
    );
  } finally {
    await cube.stop();
  }
  const code = await cube.exited;
  return { code, elapsedMs: performance.now() - started, output: lines.join('\n').replace(/\s+/g, ' '), listened };
}

describe.each(['0.33', '1'])('Cube %s stops at start when the environment cannot work', (lineId) => {
  const line = cubeLine(lineId);
  const secret = randomSecret();

  beforeAll(async () => {
    await ensureCube({ line: lineId });
  }, INSTALL_TIMEOUT_MS);

  it.each([
    ['a JWKS URL that is not http(s)', { CUBEJS_API_SECRET: secret, CUBEJS_JWK_URL: 'ftp://idp.example/jwks' }, 'cube-dual-auth: CUBEJS_JWK_URL must be an http(s) URL'],
    ['identity providers that are not JSON', { CUBEJS_API_SECRET: secret, CUBE_DUAL_AUTH_PROVIDERS: '[{"issuer": }]' }, 'cube-dual-auth: CUBE_DUAL_AUTH_PROVIDERS is not valid JSON'],
    ['a weak API secret', { CUBEJS_API_SECRET: 'changeme' }, 'cube-dual-auth: CUBEJS_API_SECRET holds 6 bytes of key material, under 32'],
  ])('%s: exits non-zero within seconds, naming the variable, without listening', { timeout: 2 * STOPS_WITHIN_MS }, async (_, env, message) => {
    const run = await runCube(line, env);
    expect(run.code, run.output).not.toBe(0);
    expect(typeof run.code).toBe('number');
    expect(run.elapsedMs).toBeLessThan(STOPS_WITHIN_MS);
    expect(run.output).toContain(message);
    expect(run.listened).toBe(false);
    expect(run.output).not.toContain(secret);
  });

  it('says how to run with a weak secret anyway, and starts with CUBE_DUAL_AUTH_ALLOW_WEAK_SECRET=true (warning once)', { timeout: 2 * STOPS_WITHIN_MS + 60_000 }, async () => {
    const refused = await runCube(line, { CUBEJS_API_SECRET: 'changeme' });
    expect(refused.output).toContain('to run with it anyway, set CUBE_DUAL_AUTH_ALLOW_WEAK_SECRET to true');
    const lines: string[] = [];
    const cube = await startCube({
      projectDir: line.projectDir,
      line,
      env: { CUBEJS_API_SECRET: 'changeme', CUBE_DUAL_AUTH_ALLOW_WEAK_SECRET: 'true' },
      redact: createRedactor([]),
      onLine: (text: string) => lines.push(text),
    });
    try {
      expect(await listens(cube.port)).toBe(true);
      const warnings = lines.filter((text) => text.includes('cube-dual-auth: CUBEJS_API_SECRET holds 6 bytes of key material'));
      expect(warnings).toHaveLength(1);
    } finally {
      await cube.stop();
    }
  });
});
