// The demo's choice for Cube 1.x (scripts/lib/cube-native.mjs): Cube's own native binary where it loads, the preload
// otherwise. Whether a binary is usable is asked of Cube's own loader (loadNative() of the installed
// @cubejs-backend/native 1.7.43), in copies of that package holding no binary, a file that is no binary, and a Node
// addon that is not Cube's. A usable binary cannot be had on these machines (it is downloaded from GitHub), so the
// case where the demo runs without the preload is not run here.
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureCube } from '../../scripts/ensure-cube.mjs';
import { cubeLine, serverCommand } from '../../scripts/lib/cube-lines.mjs';
import { nativeBinaryStatus, withNativeBinary } from '../../scripts/lib/cube-native.mjs';

const INSTALL_TIMEOUT_MS = 15 * 60_000;

let installed: string;
const projects: string[] = [];

beforeAll(async () => {
  installed = (await ensureCube({ line: '1' })).projectDir;
}, INSTALL_TIMEOUT_MS);

afterAll(() => {
  for (const dir of projects) rmSync(dir, { recursive: true, force: true });
});

/** A project holding a copy of the installed @cubejs-backend/native (its JavaScript only), and `binary` where its loader looks first. */
function projectWithNative(binary?: string | Buffer): string {
  const dir = mkdtempSync(join(tmpdir(), 'cube-native-'));
  projects.push(dir);
  const native = join(dir, 'node_modules/@cubejs-backend/native');
  cpSync(join(installed, 'node_modules/@cubejs-backend/native'), native, { recursive: true });
  rmSync(join(native, 'index.node'), { force: true });
  rmSync(join(native, 'native'), { recursive: true, force: true });
  if (binary !== undefined) writeFileSync(join(native, 'index.node'), binary);
  return dir;
}

describe('nativeBinaryStatus', () => {
  it("is unavailable without a binary, in the words of Cube's loader", async () => {
    expect(await nativeBinaryStatus(projectWithNative())).toEqual({
      available: false,
      reason: `Unable to load @cubejs-backend/native, probably your system (${process.arch}-${process.platform}) with Node.js ${process.version} is not supported.`,
    });
  });

  it('is unavailable when the file there does not load', async () => {
    expect(await nativeBinaryStatus(projectWithNative('not a shared object'))).toEqual({
      available: false,
      reason: expect.stringMatching(/index\.node: (invalid ELF header|file too short)/),
    });
  });

  it("is unavailable when what loads is a Node addon but not Cube's binary (sqlite3's)", async () => {
    const sqlite = readFileSync(join(installed, 'node_modules/sqlite3/build/Release/node_sqlite3.node'));
    expect(await nativeBinaryStatus(projectWithNative(sqlite))).toEqual({
      available: false,
      reason: 'what loads is not its binary: no registerInterface, getFinalQueryResult',
    });
  });
});

describe('withNativeBinary', () => {
  it('starts Cube 1.7.43 without the preload and without the settings the preload needs', () => {
    const line = cubeLine('1');
    const native = withNativeBinary(line);
    expect(native).toMatchObject({
      id: '1',
      version: line.version,
      projectDir: line.projectDir,
      preload: undefined,
      env: {},
    });
    expect(serverCommand(native, 24).args).toEqual([
      join(line.projectDir, 'node_modules/@cubejs-backend/server/bin/server'),
    ]);
    expect(serverCommand(line, 24).args).toEqual([
      '--require',
      line.preload,
      join(line.projectDir, 'node_modules/@cubejs-backend/server/bin/server'),
    ]);
    // Below the Node its bin accepts, the entry behind the bin's version check, with or without the preload.
    expect(serverCommand(native, 20).args).toEqual([
      join(line.projectDir, 'node_modules/@cubejs-backend/server/dist/src/bin/server.js'),
    ]);
  });
});
