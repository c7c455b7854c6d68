// Compiles the package to CommonJS and adds an ES module entry that re-exports the same
// instance, so `import` and `require()` share one module (no dual-package hazard).
import { execFileSync } from 'node:child_process';
import { chmodSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const dist = join(root, 'dist');

rmSync(dist, { recursive: true, force: true });
execFileSync(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', join(root, 'tsconfig.json')], {
  stdio: 'inherit',
});

const names = Object.keys(createRequire(import.meta.url)(join(dist, 'index.js'))).filter((n) => n !== 'default');
const esm = [
  "import cjs from './index.js';",
  ...names.map((name) => `export const ${name} = cjs.${name};`),
  'export default cjs;',
  '',
].join('\n');
writeFileSync(join(dist, 'index.mjs'), esm);
chmodSync(join(dist, 'cli/main.js'), 0o755);
