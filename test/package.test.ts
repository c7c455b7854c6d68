import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(__dirname, '..');

function node(args: string[]): string {
  return execFileSync(process.execPath, args, { cwd: root, encoding: 'utf8' });
}

describe('the published package', () => {
  it('is built (npm test builds first)', () => {
    expect(existsSync(join(root, 'dist/index.js')), 'dist/index.js is missing: run `npm run build`').toBe(true);
  });

  it('works with require() (cube.js is CommonJS) and with import, sharing one instance', () => {
    const script = `
      const viaRequire = require('cube-dual-auth');
      import('cube-dual-auth').then((viaImport) => {
        console.log(JSON.stringify({
          same: viaImport.checkAuth === viaRequire.checkAuth && viaImport.DualAuthError === viaRequire.DualAuthError,
          requireExports: Object.keys(viaRequire).sort(),
          importExports: Object.keys(viaImport).filter((k) => k !== 'default').sort(),
        }));
      });`;
    const result = JSON.parse(node(['-e', script]));
    expect(result.same).toBe(true);
    expect(result.requireExports).toEqual(expect.arrayContaining(['checkAuth', 'createCheckAuth', 'DualAuthError', 'DualAuthConfigError', 'optionsFromEnv']));
    expect(result.importExports).toEqual(result.requireExports);
  });

  it('packs only what a user needs: compiled code, types, README, licence', () => {
    const [pack] = JSON.parse(execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: root, encoding: 'utf8' }));
    const files: string[] = pack.files.map((f: { path: string }) => f.path);
    expect(files).toEqual(expect.arrayContaining(['package.json', 'README.md', 'LICENSE', 'dist/index.js', 'dist/index.mjs', 'dist/index.d.ts', 'dist/cli/main.js']));
    expect(files.filter((f) => !/^(dist\/.*\.(js|mjs|d\.ts)|package\.json|README\.md|LICENSE)$/.test(f))).toEqual([]);
  });

  it('ships a working bin', () => {
    expect(node(['dist/cli/main.js', '--help'])).toMatch(/^Usage: cube-dual-auth <command>/);
  });
});
