// Compiles the package to CommonJS and gives each entry point an ES module twin that re-exports the same instance,
// so `import` and `require()` share one module (no dual-package hazard). Each twin gets its own .d.mts, so the types
// for `import` describe an ES module and do not masquerade as CommonJS. No source maps: the compiled JavaScript is
// tsc's near line-for-line copy of the TypeScript, and a map would point at sources the package does not ship.
import { execFileSync } from 'node:child_process';
import { chmodSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const dist = join(root, 'dist');
/** The package's entry points (the exports map's targets), without extension: the hook and the service's client. */
const entries = ['index', 'service/index'];

rmSync(dist, { recursive: true, force: true });
execFileSync(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', join(root, 'tsconfig.json')], {
  stdio: 'inherit',
});

// The root's `checkAuth` is a getter of the CommonJS exports that checks the environment when read (src/index.ts). An
// ES module's named exports are all bound at import, so its twin binds `checkAuth` through checkAuthForImport
// (src/hook/ready-made.ts), which checks at import only when the environment configures a path: `import { createCheckAuth }`
// works in an environment that configures nothing, and a broken configuration still stops Cube at start.
const bound = {
  index: { checkAuth: ["import readyMade from './hook/ready-made.js';", 'readyMade.checkAuthForImport()'] },
};

const require = createRequire(import.meta.url);
for (const entry of entries) {
  const cjs = `./${entry.split('/').pop()}.js`;
  const names = Object.keys(require(join(dist, `${entry}.js`))).filter((n) => n !== 'default');
  const special = bound[entry] ?? {};
  const esm = [
    `import cjs from '${cjs}';`,
    ...Object.values(special).map(([line]) => line),
    ...names.map((name) => `export const ${name} = ${special[name]?.[1] ?? `cjs.${name}`};`),
    'export default cjs;',
    '',
  ];
  writeFileSync(join(dist, `${entry}.mjs`), esm.join('\n'));
  const types = [`import cjs from '${cjs}';`, `export * from '${cjs}';`, 'export default cjs;', ''];
  writeFileSync(join(dist, `${entry}.d.mts`), types.join('\n'));
}
chmodSync(join(dist, 'cli/main.js'), 0o755);
