// The Cube lines the example project runs on, and how each is installed and started. 1.7.43, the line users run
// today, is the default: where its native binary cannot be downloaded (here), it starts behind
// scripts/lib/cube-1-preload.cjs (see there for what that replaces). 0.33.65 runs unpatched.
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '../..');
const exampleProject = join(repoRoot, 'examples/cube-project');

/**
 * @typedef {object} CubeLine
 * @property {string} id  what `--cube` and the tests call it: "0.33" or "1"
 * @property {string} version  the exact Cube version installed
 * @property {string} manifestDir  holds the package.json and package-lock.json of this line
 * @property {string} projectDir  where Cube is installed and runs (cube.js, model/, data/, node_modules/)
 * @property {string | undefined} preload  the `--require` preload, when the line needs one
 * @property {number | undefined} binNodeMajor  the least Node major the line's `cubejs-server` bin starts on
 * @property {Record<string, string>} env  environment this line needs to run the example
 */

/** @type {Readonly<Record<string, CubeLine>>} */
export const CUBE_LINES = Object.freeze({
  0.33: {
    id: '0.33',
    version: '0.33.65',
    manifestDir: exampleProject,
    projectDir: exampleProject,
    preload: undefined,
    binNodeMajor: undefined,
    env: {},
  },
  1: {
    id: '1',
    version: '1.7.43',
    manifestDir: join(exampleProject, 'cube-1.x'),
    // The example's cube.js requires Cube's driver and this package from the node_modules next to it, so the
    // 1.x install gets its own directory, with copies of the example's files (refreshed on every start).
    projectDir: join(repoRoot, '.cache/cube-dual-auth/cube-1.7.43'),
    preload: join(repoRoot, 'scripts/lib/cube-1-preload.cjs'),
    binNodeMajor: 22,
    // SQL generation by Cube's JavaScript planner: the Rust one (Tesseract) is in the native binary.
    env: { CUBEJS_TESSERACT_SQL_PLANNER: 'false' },
  },
});

export const DEFAULT_CUBE_LINE = '1';

/** The files of the example that make the project, copied beside a line's own install. */
export const EXAMPLE_FILES = ['cube.js', 'model', 'data'];
export { exampleProject };

/** @returns {CubeLine} */
export function cubeLine(id = DEFAULT_CUBE_LINE) {
  const line = CUBE_LINES[String(id)];
  if (!line)
    throw new Error(
      `Unknown Cube line "${id}": use one of ${Object.keys(CUBE_LINES)
        .map((known) => `"${known}"`)
        .join(', ')}`,
    );
  return line;
}

/**
 * The command that starts `cubejs-server` of a line (its package's bin), with the Node running us, behind the line's
 * preload if it has one. Cube 1.x's bin refuses Node below 22 before anything else; on Node 20 the line starts
 * through the entry that bin loads after its version check (dist/src/bin/server.js), the same server without the check.
 * @returns {{ command: string, args: string[] }}
 */
export function serverCommand(line, nodeMajor = Number(process.versions.node.split('.')[0])) {
  const server = join(line.projectDir, 'node_modules/@cubejs-backend/server');
  const entry =
    line.binNodeMajor && nodeMajor < line.binNodeMajor
      ? join(server, 'dist/src/bin/server.js')
      : join(server, 'bin/server');
  return { command: process.execPath, args: [...(line.preload ? ['--require', line.preload] : []), entry] };
}
