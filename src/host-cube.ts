/** Where the running Cube is, found one way for the hook, `doctor` and the logger. */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/** The package that holds Cube's `CubejsHandlerError`. */
export const GATEWAY = '@cubejs-backend/api-gateway';

/** Cube's own logger module (0.33 and 1.x alike), where its default logger is made. */
const LOGGER = '@cubejs-backend/server-core/dist/src/core/logger';
const LOGGER_MODULE = /[\\/]@cubejs-backend[\\/]server-core[\\/]dist[\\/]src[\\/]core[\\/]logger\.js$/;

/** Cube 0.33 and 1.x name the module of the class differently. */
const GATEWAY_ERROR_MODULE =
  /[\\/]@cubejs-backend[\\/]api-gateway[\\/]dist[\\/]src[\\/](CubejsHandlerError|cubejs-handler-error)\.js$/;

/** This package's own directory (dist/, or src/ in the tests), the last place {@link findGateway} looks from. */
export const OWN_DIRECTORY = __dirname;

/** Cube's error class, as its gateway constructs it. */
export type HandlerErrorClass = new (status: number, type: string, message: string) => Error;

/** What {@link findGateway} or {@link findCubeLogger} found. */
type FoundModule =
  | { readonly kind: 'loaded'; readonly file: string; readonly exports: unknown }
  | { readonly kind: 'resolved'; readonly file: string; readonly from: string };

/** A module of Cube: the loaded one, else resolved from the Cube project, else from this package. */
function findCubeModule(loadedFile: RegExp, specifier: string, cwd: string): FoundModule | undefined {
  for (const [file, loaded] of Object.entries(require.cache)) {
    if (loaded?.loaded && loadedFile.test(file)) return { kind: 'loaded', file, exports: loaded.exports };
  }
  for (const from of [cwd, OWN_DIRECTORY]) {
    try {
      return { kind: 'resolved', file: createRequire(join(from, 'package.json')).resolve(specifier), from };
    } catch {
      // Not resolvable from there; try the next place.
    }
  }
  return undefined;
}

/** Finds Cube's gateway, by its `CubejsHandlerError` module when loaded (see {@link findCubeModule}). */
export function findGateway(cwd: string): FoundModule | undefined {
  return findCubeModule(GATEWAY_ERROR_MODULE, GATEWAY, cwd);
}

/** Finds Cube's logger module (see {@link findCubeModule}). */
export function findCubeLogger(cwd: string): FoundModule | undefined {
  return findCubeModule(LOGGER_MODULE, LOGGER, cwd);
}

/** The exports of a module found: the loaded module's, or the resolved file's, which is loaded now (and may throw). */
export function exportsOf(found: FoundModule): unknown {
  return found.kind === 'loaded' ? found.exports : createRequire(found.file)(found.file);
}

/** The gateway's `CubejsHandlerError` class, loading the gateway if needed (throwing what that throws); else null. */
export function handlerErrorClass(found: FoundModule): HandlerErrorClass | null {
  const exports = exportsOf(found);
  const candidate = (exports as { CubejsHandlerError?: unknown } | undefined)?.CubejsHandlerError ?? exports;
  return typeof candidate === 'function' ? (candidate as HandlerErrorClass) : null;
}

/** The version of the gateway package a found file belongs to, from the nearest package.json that names it. */
export function gatewayVersion(file: string): string | undefined {
  for (let dir = dirname(file); dir !== dirname(dir); dir = dirname(dir)) {
    try {
      const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as {
        name?: unknown;
        version?: unknown;
      };
      if (manifest.name === GATEWAY) return typeof manifest.version === 'string' ? manifest.version : undefined;
    } catch {
      // No readable package.json at this level: keep climbing.
    }
  }
  return undefined;
}
