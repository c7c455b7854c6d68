// The sqlite3 addon a Cube line's install builds from its bundled sources: about 140 s of CPU on the 2-core machine,
// for a file that depends only on sqlite3's release and the platform (a Node-API addon: one build for every Node).
// So a build is kept once per machine, outside the checkout, as npm keeps its downloads in ~/.npm, and a fresh clone
// copies it instead of compiling again (docs/development.md#the-ci-run).
//
//   CUBE_DUAL_AUTH_BUILD_CACHE   where builds are kept (default: $XDG_CACHE_HOME/cube-dual-auth, else ~/.cache/…)
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

const BINDING = 'build/Release/node_sqlite3.node';

/** The folder builds are kept in. */
export function buildCacheDir(env = process.env) {
  if (env.CUBE_DUAL_AUTH_BUILD_CACHE) return env.CUBE_DUAL_AUTH_BUILD_CACHE;
  return join(env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'cube-dual-auth');
}

/** Where the build of the sqlite3 installed in `projectDir` is kept: keyed by its package.json and the platform. */
function keptBuild(projectDir, env) {
  const manifest = readFileSync(join(projectDir, 'node_modules/sqlite3/package.json'));
  const key = createHash('sha256').update(manifest).update(`${process.platform}-${process.arch}`).digest('hex');
  return join(buildCacheDir(env), `sqlite3-${key.slice(0, 24)}.node`);
}

/** Whether the addon in `projectDir` loads: a copied build that does not is built again. */
function loads(projectDir) {
  const probe = spawnSync(
    process.execPath,
    ['-e', 'require(process.argv[1])', join(projectDir, 'node_modules/sqlite3')],
    {
      stdio: 'ignore',
      timeout: 30_000,
    },
  );
  return probe.status === 0;
}

/**
 * Puts the kept build of sqlite3 in `projectDir`: true when one was kept and loads there, false when it must be built
 * (and then {@link keepSqliteBuild} keeps what was made).
 */
export function restoreSqliteBuild(projectDir, env = process.env) {
  const kept = keptBuild(projectDir, env);
  if (!existsSync(kept)) return false;
  const binding = join(projectDir, 'node_modules/sqlite3', BINDING);
  mkdirSync(join(binding, '..'), { recursive: true });
  copyFileSync(kept, binding);
  if (loads(projectDir)) return true;
  rmSync(binding, { force: true });
  return false;
}

/** Keeps the build just made in `projectDir`, written whole under a temporary name, then renamed into place. */
export function keepSqliteBuild(projectDir, env = process.env) {
  const kept = keptBuild(projectDir, env);
  try {
    mkdirSync(join(kept, '..'), { recursive: true });
    const partial = `${kept}.${process.pid}.partial`;
    copyFileSync(join(projectDir, 'node_modules/sqlite3', BINDING), partial);
    renameSync(partial, kept);
  } catch {
    // A cache that cannot be written costs the next install a build, nothing more.
  }
}
