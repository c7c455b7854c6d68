// Compiles the package to CommonJS and gives each entry point an ES module twin that re-exports the same instance,
// so `import` and `require()` share one module (no dual-package hazard). Each twin gets its own .d.mts, so the types
// for `import` describe an ES module and do not masquerade as CommonJS. No source maps: the compiled JavaScript is
// tsc's near line-for-line copy of the TypeScript, and a map would point at sources the package does not ship.
//
// `--if-stale` (what `npm test` and `vitest` run, docs/development.md#tests) skips the build when dist/ was built from
// the sources as they are now: a hash of src/, the compiler's configuration and this script, kept outside dist/ (it is
// published) in .cache/, written only after a build that finished.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const dist = join(root, 'dist');
const stamp = join(root, '.cache/build-inputs.sha256');
/** The package's entry points (the exports map's targets), without extension: the hook and the service's client. */
const entries = ['index', 'service/index'];

const inputs = inputsHash();
if (process.argv.includes('--if-stale') && builtFrom(inputs)) process.exit(0);

rmSync(dist, { recursive: true, force: true });
rmSync(stamp, { force: true });
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

mkdirSync(dirname(stamp), { recursive: true });
writeFileSync(stamp, `${inputs}\n`);

/** A hash of every file the build reads: src/, tsconfig.json, package.json and this script. */
function inputsHash() {
  const files = [
    ...walk(join(root, 'src')),
    join(root, 'tsconfig.json'),
    join(root, 'package.json'),
    fileURLToPath(import.meta.url),
  ];
  const hash = createHash('sha256');
  for (const file of files.sort())
    hash
      .update(`${relative(root, file)}\0`)
      .update(readFileSync(file))
      .update('\0');
  return hash.digest('hex');
}

function* walk(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* walk(path);
    else yield path;
  }
}

function builtFrom(hash) {
  const entryPoints = ['index.js', 'index.mjs', 'service/index.js', 'service/index.mjs', 'cli/main.js'];
  if (!entryPoints.every((file) => existsSync(join(dist, file)))) return false;
  return existsSync(stamp) && readFileSync(stamp, 'utf8').trim() === hash;
}
