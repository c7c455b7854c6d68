// Cube 1.x's native binary (@cubejs-backend/native, Rust), which its install script downloads from GitHub's releases.
// The example projects are installed with --ignore-scripts (scripts/ensure-cube.mjs), so for the demo that script is
// run afterwards (ensureCube({ nativeBinary: true })): where the binary arrives and loads, Cube runs as users run it;
// where it does not (the machines of this project reach no GitHub), the demo says why and runs Cube behind
// scripts/lib/cube-1-preload.cjs, as the tests do.
import { execFile } from 'node:child_process';

const NATIVE = '@cubejs-backend/native';
const INSTALL_TIMEOUT_MS = 2 * 60_000;
const LOAD_TIMEOUT_MS = 30_000;

/**
 * Functions of the binary that Cube calls where the preload steps in (the SQL API's interface, the result
 * serialiser): a module that loads without them is not Cube's binary.
 */
const EXPECTED_EXPORTS = ['registerInterface', 'getFinalQueryResult'];

/** Runs a command to completion; resolves with its exit code (or error) and everything it printed. */
function run(command, args, options) {
  return new Promise((resolve) => {
    execFile(command, args, { ...options, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
      resolve({ ok: !error, output: `${stdout}\n${stderr}`, error });
    });
  });
}

/**
 * Whether the native binary of the Cube installed in `projectDir` loads, by Cube's own loader (`loadNative()` of
 * @cubejs-backend/native), in a child Node: a binary is only loaded once per process, and a broken one stays out of ours.
 * @param {string} projectDir  holds node_modules/@cubejs-backend/native
 * @returns {Promise<{ available: true } | { available: false, reason: string }>}
 */
export async function nativeBinaryStatus(projectDir) {
  const script = `
    const native = require(require.resolve(${JSON.stringify(NATIVE)}, { paths: [process.cwd()] }));
    let binary;
    try { binary = native.loadNative(); } catch (error) { console.log(JSON.stringify({ reason: error.message.split('\\n')[0] })); process.exit(0); }
    const missing = ${JSON.stringify(EXPECTED_EXPORTS)}.filter((name) => typeof binary[name] !== 'function');
    console.log(JSON.stringify(missing.length ? { reason: 'what loads is not its binary: no ' + missing.join(', ') } : {}));`;
  const { ok, output, error } = await run(process.execPath, ['-e', script], {
    cwd: projectDir,
    timeout: LOAD_TIMEOUT_MS,
  });
  if (!ok) return { available: false, reason: `checking it failed: ${error.message.split('\n')[0]}` };
  const { reason } = JSON.parse(output.trim().split('\n')[0]);
  return reason === undefined ? { available: true } : { available: false, reason };
}

/**
 * Makes the native binary of the Cube installed in `projectDir` available if it can be: when it does not load yet,
 * runs the package's own install script (`npm rebuild @cubejs-backend/native`, which downloads it), then asks again.
 * @param {string} projectDir
 * @returns {Promise<{ available: true } | { available: false, reason: string }>}  the reason says what failed: the
 *   download (as the installer reported it), or loading what is there
 */
export async function ensureNativeBinary(projectDir) {
  if ((await nativeBinaryStatus(projectDir)).available) return { available: true };
  // The package's script ends in `|| echo …`: it exits 0 whatever happened, so its output says why.
  const { output } = await run('npm', ['rebuild', NATIVE, '--foreground-scripts'], {
    cwd: projectDir,
    timeout: INSTALL_TIMEOUT_MS,
  });
  const status = await nativeBinaryStatus(projectDir);
  if (status.available) return status;
  const download = /request to (\S+) failed, reason: (.+)$/m.exec(output);
  return {
    available: false,
    reason: download ? `its download from ${new URL(download[1]).host} failed (${download[2].trim()})` : status.reason,
  };
}

/** A Cube line as users run it where its native binary is installed: no preload, nor what the preload needs. */
export function withNativeBinary(line) {
  return { ...line, preload: undefined, env: {} };
}
