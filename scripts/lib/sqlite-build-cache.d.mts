// Types for the TypeScript tests (the module itself is plain ESM).
/** The folder builds are kept in: CUBE_DUAL_AUTH_BUILD_CACHE, else under XDG_CACHE_HOME, else under ~/.cache. */
export declare function buildCacheDir(env?: NodeJS.ProcessEnv): string;
/** Puts the kept sqlite3 build in `projectDir`: true when one was kept and loads there. */
export declare function restoreSqliteBuild(projectDir: string, env?: NodeJS.ProcessEnv): boolean;
/** Keeps the sqlite3 build just made in `projectDir`. */
export declare function keepSqliteBuild(projectDir: string, env?: NodeJS.ProcessEnv): void;
