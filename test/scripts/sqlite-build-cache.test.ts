// scripts/lib/sqlite-build-cache.mjs: a Cube line's sqlite3 build kept once per machine, and copied only when it loads.
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildCacheDir, keepSqliteBuild, restoreSqliteBuild } from '../../scripts/lib/sqlite-build-cache.mjs';
import { scratchDirs } from '../support/scratch';

const scratch = scratchDirs('sqlite-build-cache-');
const BINDING = 'node_modules/sqlite3/build/Release/node_sqlite3.node';

/** A project whose sqlite3 of `version` loads its binding with `loader` (its index.js). */
function project(version: string, loader: string): string {
  const dir = scratch();
  mkdirSync(join(dir, 'node_modules/sqlite3/build/Release'), { recursive: true });
  writeFileSync(join(dir, 'node_modules/sqlite3/package.json'), JSON.stringify({ name: 'sqlite3', version }));
  writeFileSync(join(dir, 'node_modules/sqlite3/index.js'), loader);
  return dir;
}
const READS_BINDING = `require('fs').readFileSync(require('path').join(__dirname, 'build/Release/node_sqlite3.node'));`;

describe('the sqlite3 build kept per machine', () => {
  it('keeps a build, and copies it into a new install of the same release that loads it', () => {
    const env = { CUBE_DUAL_AUTH_BUILD_CACHE: join(scratch(), 'cache') };
    const built = project('6.0.1', READS_BINDING);
    writeFileSync(join(built, BINDING), 'the compiled addon');
    const fresh = project('6.0.1', READS_BINDING);
    expect(restoreSqliteBuild(fresh, env)).toBe(false);
    keepSqliteBuild(built, env);
    expect(readdirSync(env.CUBE_DUAL_AUTH_BUILD_CACHE)).toEqual([
      expect.stringMatching(/^sqlite3-[0-9a-f]{24}\.node$/),
    ]);
    expect(restoreSqliteBuild(fresh, env)).toBe(true);
    expect(readFileSync(join(fresh, BINDING), 'utf8')).toBe('the compiled addon');
    expect(restoreSqliteBuild(project('5.1.7', READS_BINDING), env)).toBe(false);
  });

  it('copies nothing into an install that does not load the kept build, which is then built again', () => {
    const env = { CUBE_DUAL_AUTH_BUILD_CACHE: join(scratch(), 'cache') };
    const built = project('6.0.1', READS_BINDING);
    writeFileSync(join(built, BINDING), 'the compiled addon');
    keepSqliteBuild(built, env);
    const broken = project('6.0.1', "throw new Error('wrong ELF class');");
    expect(restoreSqliteBuild(broken, env)).toBe(false);
    expect(existsSync(join(broken, BINDING))).toBe(false);
  });

  it('lives in CUBE_DUAL_AUTH_BUILD_CACHE, else under XDG_CACHE_HOME, else under ~/.cache', () => {
    expect(buildCacheDir({ CUBE_DUAL_AUTH_BUILD_CACHE: '/var/cache/builds' })).toBe('/var/cache/builds');
    expect(buildCacheDir({ XDG_CACHE_HOME: '/home/ci/.xdg' })).toBe('/home/ci/.xdg/cube-dual-auth');
    expect(buildCacheDir({})).toMatch(/\/\.cache\/cube-dual-auth$/);
  });
});
