// npm run bench:require: what loading the package costs a process at start-up (Cube requires the hook from cube.js),
// measured in fresh node processes: the modules loaded (the package's own vs each dependency's) and the time the
// require() takes, as wall-clock and as CPU time (the steadier of the two on a busy machine), median of 7 runs. Any specifier resolvable from the repository can be measured, e.g.
//   node bench/require-cost.mjs cube-dual-auth cube-dual-auth/service jwks-rsa
// Options: --runs N (default 7); --preload X (require X first, untimed and uncounted: what the rest costs, e.g.
// `--preload jwks-rsa cube-dual-auth` is the package's cost if jwks-rsa were loaded only when first needed);
// --json (machine-readable output).
import { execFileSync } from 'node:child_process';
import { dirname, join, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const flag = (name) => args.includes(name);
const option = (name, fallback) => {
  const at = args.indexOf(name);
  return at === -1 ? fallback : args[at + 1];
};
const runs = Number(option('--runs', 7));
const preload = option('--preload', '');
const specifiers = args.filter((arg, i) => !arg.startsWith('--') && !['--runs', '--preload'].includes(args[i - 1]));
if (specifiers.length === 0) specifiers.push('cube-dual-auth');

// Runs in the fresh process: what require.cache gains during the timed require is exactly what that require loaded.
const probe = `
  const [specifier, preload] = process.argv.slice(1);
  if (preload) require(preload);
  const before = new Set(Object.keys(require.cache));
  const cpuStart = process.cpuUsage();
  const start = process.hrtime.bigint();
  require(specifier);
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  const cpu = process.cpuUsage(cpuStart);
  const cpuMs = (cpu.user + cpu.system) / 1e3;
  process.stdout.write(JSON.stringify({ ms, cpuMs, files: Object.keys(require.cache).filter((f) => !before.has(f)) }));`;

/** The package a loaded file belongs to: the one under the last node_modules in its path, else this package. */
function owner(file) {
  const marker = `${sep}node_modules${sep}`;
  const at = file.lastIndexOf(marker);
  if (at === -1) return null;
  const [scopeOrName, name] = file.slice(at + marker.length).split(sep);
  return scopeOrName.startsWith('@') ? `${scopeOrName}/${name}` : scopeOrName;
}

function measure(specifier) {
  const samples = [];
  const cpuSamples = [];
  let files;
  for (let i = 0; i < runs; i++) {
    const out = JSON.parse(
      execFileSync(process.execPath, ['-e', probe, specifier, preload], { cwd: root, encoding: 'utf8' }),
    );
    samples.push(out.ms);
    cpuSamples.push(out.cpuMs);
    files ??= out.files;
    if (out.files.length !== files.length) throw new Error(`${specifier}: runs loaded different modules`);
  }
  samples.sort((a, b) => a - b);
  cpuSamples.sort((a, b) => a - b);
  const median = (sorted) => sorted[Math.floor(sorted.length / 2)];
  const byDependency = {};
  let own = 0;
  for (const file of files) {
    const name = owner(file);
    if (name === null) own++;
    else byDependency[name] = (byDependency[name] ?? 0) + 1;
  }
  const dependencies = Object.values(byDependency).reduce((sum, n) => sum + n, 0);
  return {
    specifier,
    preload: preload || null,
    runs,
    medianMs: median(samples),
    minMs: samples[0],
    maxMs: samples[samples.length - 1],
    medianCpuMs: median(cpuSamples),
    modules: { total: files.length, own, dependencies, byDependency },
  };
}

const results = specifiers.map(measure);
if (flag('--json')) {
  console.log(JSON.stringify({ node: process.version, results }, null, 2));
} else {
  console.log(`node ${process.version}, ${runs} fresh processes each`);
  for (const r of results) {
    const deps = Object.entries(r.modules.byDependency)
      .sort(([, a], [, b]) => b - a)
      .map(([name, n]) => `${name} ${n}`)
      .join(', ');
    const after = r.preload ? ` with '${r.preload}' already loaded` : '';
    console.log(
      `\nrequire('${r.specifier}')${after}: ${r.medianMs.toFixed(1)} ms median (${r.minMs.toFixed(1)}–${r.maxMs.toFixed(1)}), CPU ${r.medianCpuMs.toFixed(1)} ms median`,
    );
    console.log(
      `  ${r.modules.total} modules: ${r.modules.own} own, ${r.modules.dependencies} from dependencies${deps ? ` (${deps})` : ''}`,
    );
  }
}
