/**
 * One start of the real `cubejs-server`, judged by what Cube does: it exits by itself (a code), or it listens, is
 * asked one path, and is killed (a signal). Never a deadline (docs/development.md#timing-dependent-tests).
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { connect } from 'node:net';
import { setTimeout as pause } from 'node:timers/promises';
import { serverCommand, type CubeLine } from '../../scripts/lib/cube-lines.mjs';
import { exampleCubeEnvironment } from '../../scripts/lib/cube-server.mjs';
import { freePort } from '../../scripts/lib/ports.mjs';

/** True when something accepts a TCP connection on the port. */
export function listens(port: number): Promise<boolean> {
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

export interface CubeRun {
  readonly code: unknown;
  /** Everything Cube printed, stdout and stderr, with Cube's line wrapping undone. */
  readonly output: string;
  /** Whether anything accepted a connection on the API port while Cube ran. */
  readonly listened: boolean;
  /** The status Cube answered `ask` with once it listened, if it was asked. */
  readonly answered?: number;
}

export interface CubeRunOptions {
  /** The Cube project Cube runs in (cube.js, model/): default the line's own. */
  readonly cwd?: string;
  /** A path (`/livez`) asked once Cube listens, before it is killed. */
  readonly ask?: string;
}

/** Starts `cubejs-server` of `line` with the example's environment and `env`, and watches its API port until it exits. */
export async function runCube(
  line: CubeLine,
  env: Record<string, string>,
  options: CubeRunOptions = {},
): Promise<CubeRun> {
  const port = await freePort();
  const { command, args } = serverCommand(line);
  // Its own process group, so that the kill below also ends whatever Cube started.
  const cube = spawn(command, args, {
    cwd: options.cwd ?? line.projectDir,
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
  let answered: number | undefined;
  try {
    // The port is asked again and again until Cube exits: one accepted connection means it listened, and a Cube that
    // listened is killed, so its exit is a signal, not a code.
    while (running && !listened) {
      listened = await listens(port);
      await pause(25);
    }
    if (listened && options.ask !== undefined)
      answered = (await fetch(`http://127.0.0.1:${port}${options.ask}`, { signal: AbortSignal.timeout(15_000) }))
        .status;
  } finally {
    if (running) process.kill(-(cube.pid as number), 'SIGKILL');
  }
  const code = await exited;
  return { code, output: output.replace(/\s+/g, ' '), listened, ...(answered === undefined ? {} : { answered }) };
}
