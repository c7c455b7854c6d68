#!/usr/bin/env node
// Makes examples/cube-project runnable on a Cube line: installs Cube on first use (cached, keyed by
// a hash of the line's manifest), and installs this package into it from `npm pack`, the way a user
// installs it, whenever the build changed.
//
//   node scripts/ensure-cube.mjs [--cube 1|0.33]     (the demo and the integration tests call ensureCube())
//
// Cube 1.7.43 (the default) installs from examples/cube-project/cube-1.x/ into .cache/cube-dual-auth/cube-1.7.43/,
// next to copies of the example's cube.js, model/ and data/, so that cube.js finds that line's driver and this
// package. Cube 0.33.65 installs into examples/cube-project itself.
//
// Cube stays out of this package's own dependency tree: the example has its own package.json.
// Why the steps look the way they do:
// - `--ignore-scripts`: Cube Store's and @cubejs-backend/native's install scripts download
//   binaries from GitHub, which this machine cannot reach; 0.33 needs neither, and what 1.x calls
//   the binary for is replaced by scripts/lib/cube-1-preload.cjs. The demo asks for the native binary
//   afterwards (`nativeBinary: true`), and uses it where it can be downloaded.
// - sqlite3 is then built from its bundled sources with node-gyp (about two minutes of CPU). It is a
//   Node-API addon, so one build serves every Node version, and a clone on the same machine copies it
//   (scripts/lib/sqlite-build-cache.mjs).
// - the example's package.json names `cube-dual-auth` like any dependency; we pass the packed
//   tarball to `npm install --no-save`, which satisfies it without asking the registry and
//   leaves package.json and package-lock.json untouched. A real directory is installed, not a
//   link, so the package finds Cube's `CubejsHandlerError` next to it as it does for users.
import { createHash } from 'node:crypto';
import {
  appendFileSync,
  cpSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { cubeLine, EXAMPLE_FILES, exampleProject } from './lib/cube-lines.mjs';
import { ensureNativeBinary } from './lib/cube-native.mjs';
import { startProcess } from './lib/processes.mjs';
import { withProgress } from './lib/progress.mjs';
import { buildCacheDir, keepSqliteBuild, restoreSqliteBuild } from './lib/sqlite-build-cache.mjs';
import { style } from './lib/style.mjs';

export const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..');
export { exampleProject };
const cacheDir = join(repoRoot, '.cache/cube-dual-auth');
const installLog = join(cacheDir, 'install.log');
const MANIFESTS = ['package.json', 'package-lock.json'];

/** Where a line's install keeps what tells whether it is up to date. */
function installPaths(projectDir) {
  return {
    marker: join(projectDir, 'node_modules/.cube-dual-auth-example.json'),
    sqliteBinding: join(projectDir, 'node_modules/sqlite3/build/Release/node_sqlite3.node'),
    installedPackage: join(projectDir, 'node_modules/cube-dual-auth'),
  };
}

const NPM_INSTALL_TIMEOUT_MS = 10 * 60_000;
const SQLITE_BUILD_TIMEOUT_MS = 10 * 60_000;
const PACK_TIMEOUT_MS = 60_000;
const LOCK_WAIT_MS = 20 * 60_000;

/**
 * Brings the example project of a Cube line up to date. Quick (a pack and a hash) when nothing changed.
 * @param {{ line?: string, out?: NodeJS.WritableStream, nativeBinary?: boolean }} [options]  line: "1" (default) or
 *   "0.33"; nativeBinary: for a line that runs behind a preload, also try to install Cube's native binary
 *   (the demo does; the tests run behind the preload whatever is installed)
 * @returns {Promise<{projectDir: string, line: import('./lib/cube-lines.mjs').CubeLine, installedCube: boolean, installedPackage: boolean,
 *   nativeBinary?: { available: true } | { available: false, reason: string }}>}
 */
export async function ensureCube({ line: lineId, out = process.stdout, nativeBinary: wantNative = false } = {}) {
  const line = cubeLine(lineId);
  const { projectDir } = line;
  const paths = installPaths(projectDir);
  assertPackageBuilt();
  mkdirSync(cacheDir, { recursive: true });
  // One lock per line: the two lines install side by side (each build keeps one core busy), never one line twice.
  return withInstallLock(join(cacheDir, `install-${line.id}.lock`), out, async () => {
    copyLineFiles(line);
    const tarball = await packPackage(join(cacheDir, `pack-${line.id}`));
    const wanted = { cube: cubeInstallKey(line), package: fileHash(tarball) };
    const current = readMarker(paths.marker);

    const installCube = current.cube !== wanted.cube || !existsSync(paths.sqliteBinding);
    const installPackage = installCube || current.package !== wanted.package || !existsSync(paths.installedPackage);
    if (installCube) {
      out.write(
        `${style.bold(`Installing Cube ${line.version} into ${relative(repoRoot, projectDir)}`)} ${style.dim('(first run only, about 2 minutes)')}\n`,
      );
      writeMarker(paths.marker, {}); // An interrupted install must not look finished.
    }
    if (installPackage) {
      const what = installCube
        ? 'npm install (Cube, its SQLite driver, and this package from npm pack)'
        : 'npm install of the new cube-dual-auth build (npm pack)';
      await withProgress(what, () => npmInstallWith(projectDir, tarball), { out });
    }
    if (installCube && restoreSqliteBuild(projectDir)) {
      out.write(`  sqlite3: this machine's earlier build of the same release (${buildCacheDir()})\n`);
    } else if (installCube) {
      await withProgress('building sqlite3 from its bundled sources (node-gyp)', () => buildSqlite(projectDir), {
        out,
      });
      keepSqliteBuild(projectDir);
    }
    assertInstalledLikeAUser(paths);
    writeMarker(paths.marker, wanted);
    // Under the lock too: `npm rebuild` writes into the same tree as the installs above.
    const nativeBinary = wantNative && line.preload ? await ensureNativeBinary(projectDir) : undefined;
    return { projectDir, line, installedCube: installCube, installedPackage: installPackage, nativeBinary };
  });
}

/**
 * A line installed outside the example gets the line's manifest and the example's own files beside it; the
 * example's files are copied afresh every time, so a change to cube.js or the model reaches both lines.
 */
function copyLineFiles({ manifestDir, projectDir }) {
  if (manifestDir === projectDir) return;
  mkdirSync(projectDir, { recursive: true });
  for (const file of MANIFESTS) cpSync(join(manifestDir, file), join(projectDir, file));
  for (const file of EXAMPLE_FILES) {
    rmSync(join(projectDir, file), { recursive: true, force: true });
    cpSync(join(exampleProject, file), join(projectDir, file), { recursive: true });
  }
}

function assertPackageBuilt() {
  if (!existsSync(join(repoRoot, 'dist/index.js'))) {
    throw new Error('cube-dual-auth is not built (dist/index.js is missing): run `npm run build` first.');
  }
}

// The installed Cube is only as good as the manifest it came from and the platform sqlite3 was compiled
// for, so both are the cache key. Not the Node version: sqlite3 is a Node-API addon, one build for all.
function cubeInstallKey({ manifestDir }) {
  const hash = createHash('sha256');
  for (const file of MANIFESTS) hash.update(readFileSync(join(manifestDir, file)));
  hash.update(`${process.platform}-${process.arch}`);
  return hash.digest('hex');
}

function fileHash(file) {
  return createHash('sha256').update(readFileSync(file)).digest('hex');
}

function readMarker(marker) {
  try {
    return JSON.parse(readFileSync(marker, 'utf8'));
  } catch {
    return {};
  }
}

function writeMarker(marker, state) {
  mkdirSync(dirname(marker), { recursive: true });
  writeFileSync(marker, `${JSON.stringify(state, null, 2)}\n`);
}

/**
 * `npm pack` of the current build into `destination` (emptied first); resolves with the tarball's path. Tarballs are
 * reproducible, so an unchanged build hashes the same.
 */
export async function packPackage(destination) {
  rmSync(destination, { recursive: true, force: true });
  mkdirSync(destination, { recursive: true });
  // --ignore-scripts skips `prepare` (a second build): callers build first, and we checked dist/.
  const output = await run('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', destination], {
    cwd: repoRoot,
    timeoutMs: PACK_TIMEOUT_MS,
    what: 'npm pack',
  });
  const [{ filename }] = JSON.parse(output.slice(output.indexOf('[')));
  return join(destination, filename);
}

function npmInstallWith(projectDir, tarball) {
  return run('npm', ['install', '--ignore-scripts', '--no-save', '--no-audit', '--no-fund', tarball], {
    cwd: projectDir,
    timeoutMs: NPM_INSTALL_TIMEOUT_MS,
    what: `npm install in ${relative(repoRoot, projectDir)}`,
  });
}

// `npm rebuild` runs sqlite3's own install script: it tries a prebuilt binary first (where the
// network allows) and falls back to node-gyp with the npm configuration (nodedir) of this machine.
function buildSqlite(projectDir) {
  return run('npm', ['rebuild', 'sqlite3', '--foreground-scripts'], {
    cwd: projectDir,
    env: { JOBS: 'max' },
    timeoutMs: SQLITE_BUILD_TIMEOUT_MS,
    what: 'building sqlite3',
  });
}

function assertInstalledLikeAUser({ sqliteBinding, installedPackage }) {
  if (!existsSync(sqliteBinding))
    throw new Error(
      `sqlite3 was not built (${relative(repoRoot, sqliteBinding)} is missing); see ${relative(repoRoot, installLog)}`,
    );
  if (!existsSync(installedPackage) || lstatSync(installedPackage).isSymbolicLink()) {
    throw new Error(
      `${relative(repoRoot, installedPackage)} must be a real directory installed from the tarball, not a link`,
    );
  }
}

/** Runs a command to completion, its output going to the install log; resolves with its stdout. */
async function run(command, args, { cwd, env = {}, timeoutMs, what }) {
  appendFileSync(installLog, `\n$ (cd ${relative(repoRoot, cwd) || '.'}) ${command} ${args.join(' ')}\n`);
  let stdout = '';
  const child = startProcess(command, args, {
    cwd,
    env: { ...process.env, ...env },
    onLine: (line) => {
      stdout += `${line}\n`;
      appendFileSync(installLog, `${line}\n`);
    },
  });
  const outcome = await Promise.race([child.exited, sleep(timeoutMs, 'timeout', { ref: false })]);
  if (outcome === 'timeout') {
    await child.stop();
    throw new Error(
      `${what} did not finish within ${timeoutMs / 60_000} minutes; see ${relative(repoRoot, installLog)}`,
    );
  }
  if (outcome !== 0) {
    const tail = stdout.trim().split('\n').slice(-25).join('\n');
    throw new Error(
      `${what} failed (${outcome}); the end of its output:\n${tail}\n(full log: ${relative(repoRoot, installLog)})`,
    );
  }
  return stdout;
}

/** One installer at a time per lock (a demo and a test run may start together); a stale lock is taken over. */
async function withInstallLock(lockDir, out, work) {
  const deadline = Date.now() + LOCK_WAIT_MS;
  let told = false;
  for (;;) {
    try {
      mkdirSync(lockDir);
      break;
    } catch (error) {
      if (error.code !== 'EEXIST') throw error;
      if (lockIsStale(lockDir)) {
        rmSync(lockDir, { recursive: true, force: true });
        continue;
      }
      if (Date.now() > deadline)
        throw new Error(`Another install of the example Cube still holds ${relative(repoRoot, lockDir)}`);
      if (!told) out.write(`  … waiting for another install of the example Cube to finish\n`);
      told = true;
      await sleep(1_000);
    }
  }
  writeFileSync(join(lockDir, 'pid'), String(process.pid));
  try {
    return await work();
  } finally {
    rmSync(lockDir, { recursive: true, force: true });
  }
}

function lockIsStale(lockDir) {
  try {
    const pid = Number(readFileSync(join(lockDir, 'pid'), 'utf8'));
    process.kill(pid, 0); // Throws when that process is gone.
    return false;
  } catch (error) {
    if (error.code === 'EPERM') return false;
    // No pid file yet means the owner is between mkdir and writeFile, unless that was long ago.
    if (error.code === 'ENOENT') return Date.now() - statSync(lockDir, { throwIfNoEntry: false })?.mtimeMs > 60_000;
    return true;
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const at = process.argv.indexOf('--cube');
  const lineId = at >= 0 ? process.argv[at + 1] : undefined;
  Promise.resolve()
    .then(() => ensureCube({ line: lineId }))
    .then(
      ({ projectDir, line, installedCube, installedPackage }) => {
        const what = installedCube
          ? 'installed'
          : installedPackage
            ? 'updated (new package build)'
            : 'already up to date';
        console.log(`${style.green('✓')} Cube ${line.version} in ${relative(repoRoot, projectDir)} ${what}`);
      },
      (error) => {
        console.error(`${style.red('✗')} ${error.message}`);
        process.exitCode = 1;
      },
    );
}
