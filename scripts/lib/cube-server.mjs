// Runs the example Cube project with the real `cubejs-server`, configured only through the
// environment, as a user's deployment would be.
import { cubeLine, serverCommand } from './cube-lines.mjs';
import { freePort } from './ports.mjs';
import { startProcess, waitUntil } from './processes.mjs';

const READY_TIMEOUT_MS = 60_000;
const KEPT_LOG_LINES = 200;

/** What Cube needs to run the example without Cube Store, a database server, or dev mode. */
export function exampleCubeEnvironment() {
  return {
    NODE_ENV: 'production',
    CUBEJS_DEV_MODE: 'false',
    CUBEJS_TELEMETRY: 'false',
    CUBEJS_CACHE_AND_QUEUE_DRIVER: 'memory',
    CUBEJS_DB_TYPE: 'sqlite',
    CUBEJS_SCHEMA_PATH: 'model',
    CUBEJS_WEB_SOCKETS: 'true',
    CUBEJS_LOG_LEVEL: 'warn',
  };
}

/**
 * Starts `cubejs-server` of a Cube line in `projectDir` and resolves once Cube answers its readiness probe.
 * @param {object} options
 * @param {string} options.projectDir  the Cube project, where Cube runs (holds cube.js and model/)
 * @param {string} [options.cubeDir]  holds the node_modules/ with Cube, when that is not projectDir's (Cube's Docker
 *   image: Cube in /cube/node_modules, the project in /cube/conf); the environment then gives NODE_PATH, as the image does
 * @param {import('./cube-lines.mjs').CubeLine} [options.line]  the Cube line installed there (default 1.7.43)
 * @param {Record<string, string>} options.env  extra environment: the auth settings
 * @param {(line: string) => string} options.redact  applied to every log line before it is kept or shown
 * @param {(line: string) => void} [options.onLine]  receives each redacted log line
 */
export async function startCube({
  projectDir,
  cubeDir = projectDir,
  line = cubeLine(),
  env,
  redact,
  onLine = () => {},
}) {
  const port = await freePort();
  const recentLines = [];
  const { command, args } = serverCommand({ ...line, projectDir: cubeDir });
  const server = startProcess(command, args, {
    cwd: projectDir,
    env: { ...inheritedEnvironment(), ...exampleCubeEnvironment(), ...line.env, ...env, PORT: String(port) },
    onLine: (raw) => {
      const line = redact(raw);
      recentLines.push(line);
      if (recentLines.length > KEPT_LOG_LINES) recentLines.shift();
      onLine(line);
    },
  });
  const url = `http://127.0.0.1:${port}`;
  const cube = {
    url,
    apiUrl: `${url}/cubejs-api/v1`,
    webSocketUrl: `ws://127.0.0.1:${port}/`,
    port,
    pid: server.pid,
    exited: server.exited,
    stop: () => server.stop(),
    /** The last log lines, redacted; shown when something goes wrong. */
    recentLogs: () => recentLines.join('\n'),
  };
  try {
    await waitUntil(() => isReady(url), {
      timeoutMs: READY_TIMEOUT_MS,
      what: `Cube ${line.version} on port ${port}`,
      giveUp: server.exited.then((code) => `cubejs-server exited (${code})`),
    });
  } catch (error) {
    await server.stop();
    error.message += `\n--- last lines Cube printed ---\n${cube.recentLogs()}`;
    throw error;
  }
  return cube;
}

// Cube and cube-dual-auth settings from the shell running us would change what is being shown or
// tested; only the ones given explicitly count.
function inheritedEnvironment() {
  return Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^(CUBEJS_|CUBE_DUAL_AUTH_)/.test(name)));
}

// /readyz turns 200 only once Cube has tested its database connection, so the first query
// afterwards does not race the seeding of the example's data.
async function isReady(url) {
  const response = await fetch(`${url}/readyz`, { signal: AbortSignal.timeout(2_000) });
  return response.ok;
}
