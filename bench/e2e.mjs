#!/usr/bin/env node
// npm run bench:e2e: the end-to-end figure. Requests per second of the example Cube (the real
// cubejs-server 0.33.65 on the example project) under autocannon, with cube-dual-auth vs. the naive
// jsonwebtoken + jwks-rsa hook (bench/naive-cube.js), same query, same tokens, same machine, one run.
//
//   npm run bench:e2e                 10 connections; per Cube start 8 s warm-up, then per case 2 s warm-up
//                                     and 10 s measured; 2 rounds (about 4 minutes)
//   npm run bench:e2e -- --quick      1 round, shorter warm-ups, 3 s measured (a smoke test, not a figure)
//
// Cases: each path (the service's HS256 token with `Request-Origin: embeddable`, the identity
// provider's RS256 token) against Cube with cube-dual-auth, with the naive hook, and with
// cube-dual-auth's token cache off (CUBE_DUAL_AUTH_TOKEN_CACHE_SIZE=0: every request verified).
// A token is reused for the whole run, as a dashboard reuses its token. One Cube runs at a time,
// so the Cubes do not compete for the cores (autocannon does share them, the same way for all);
// the hooks take turns in each round, and each figure is the mean of its rounds.
// Before any load, every Cube is checked to answer 200 with the same rows for both tokens and to
// refuse a tampered token; every measured run must have no non-2xx, error, timeout or unexpected
// body. Prints a table and writes bench/results/e2e.json. Stops Cube and the identity provider at
// the end, on error and on Ctrl-C.
import { randomBytes } from 'node:crypto';
import { copyFileSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { ensureCube, exampleProject, repoRoot } from '../scripts/ensure-cube.mjs';
import { startCube } from '../scripts/lib/cube-server.mjs';
import { startIdentityProvider } from '../scripts/lib/identity-provider.mjs';
import { createRedactor } from '../scripts/lib/redact.mjs';
import { SERVICE_ORIGIN_HEADER, signServiceToken } from '../scripts/lib/service-token.mjs';
import { CLAIMS_NAMESPACE, CUBE_AUDIENCE, CUSTOMER_APP, ORDERS_BY_TENANT_AND_REGION, SERVICE_VIEWER } from '../scripts/lib/stack.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const quick = process.argv.includes('--quick');
const CONNECTIONS = 10;
// A freshly started Cube needs several seconds of load before its rate settles (about 35% lower in
// the first 3 s on this machine): each start gets a warm-up on both paths, then each case its own.
const START_WARMUP_SECONDS = quick ? 2 : 8;
const WARMUP_SECONDS = quick ? 1 : 2;
const MEASURED_SECONDS = quick ? 3 : 10;
const ROUNDS = quick ? 1 : 2; // every hook once per round, rounds alternate, the figure is their mean
const REQUEST_TIMEOUT_SECONDS = 10;
const RUN_DEADLINE_MS = 15 * 60_000; // the whole run, installs excluded; each step has its own deadline too
const naiveDir = join(repoRoot, '.cache/naive-cube');
const resultsFile = join(here, 'results/e2e.json');

const HOOKS = [
  { id: 'ours', label: 'cube-dual-auth', projectDir: exampleProject, env: {} },
  { id: 'naive', label: 'naive jsonwebtoken + jwks-rsa', projectDir: naiveDir, env: {} },
  { id: 'ours-no-cache', label: 'cube-dual-auth, token cache off', projectDir: exampleProject, env: { CUBE_DUAL_AUTH_TOKEN_CACHE_SIZE: '0' } },
];

const state = { identityProvider: undefined, cube: undefined, load: undefined, stopping: undefined };

main().then(
  () => shutDown(0),
  async (error) => {
    if (state.stopping) return; // interrupted: shutDown is already stopping everything
    console.error(`\n✗ ${error.message}`);
    if (state.cube) console.error(`\nThe last lines Cube printed:\n${state.cube.recentLogs()}`);
    await shutDown(1);
  },
);
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    console.log('\nStopping the load, Cube and the identity provider…');
    shutDown(signal === 'SIGINT' ? 130 : 143);
  });
}
setTimeout(() => {
  console.error(`\n✗ The benchmark did not finish within ${RUN_DEADLINE_MS / 60_000} minutes; stopping.`);
  shutDown(1);
}, RUN_DEADLINE_MS).unref();

async function main() {
  console.log('cube-dual-auth end-to-end benchmark (real Cube under autocannon)\n');
  const { projectDir } = await ensureCube();
  if (projectDir !== exampleProject) throw new Error(`Unexpected example project ${projectDir}`);
  const libraries = prepareNaiveProject();
  console.log(`naive hook: jsonwebtoken ${libraries.jsonwebtoken}, jwks-rsa ${libraries['jwks-rsa']} (${relative(repoRoot, naiveDir)})`);

  const apiSecret = randomBytes(32).toString('base64url');
  const redact = createRedactor([apiSecret]);
  state.identityProvider = await startIdentityProvider({ audience: CUBE_AUDIENCE, claimsNamespace: CLAIMS_NAMESPACE, apps: [CUSTOMER_APP] });
  const idp = state.identityProvider;
  const env = {
    CUBEJS_API_SECRET: apiSecret,
    CUBEJS_JWK_URL: idp.jwksUrl,
    CUBEJS_JWT_AUDIENCE: CUBE_AUDIENCE,
    CUBEJS_JWT_ISSUER: idp.issuer,
    CUBEJS_JWT_CLAIMS_NAMESPACE: CLAIMS_NAMESPACE,
    CUBE_DUAL_AUTH_CLOCK_TOLERANCE: '5',
  };
  // One token per path for the whole run (both live an hour), as a dashboard session reuses its token.
  const serviceToken = signServiceToken(apiSecret, SERVICE_VIEWER, { expiresInSeconds: 3600 });
  const customerToken = await idp.issueToken(CUSTOMER_APP.clientId);
  const paths = [
    { id: 'hs256', label: 'HS256 service token', headers: { Authorization: serviceToken, ...SERVICE_ORIGIN_HEADER } },
    { id: 'rs256', label: 'RS256 IdP token', headers: { Authorization: customerToken } },
  ];
  const query = `/cubejs-api/v1/load?query=${encodeURIComponent(JSON.stringify(ORDERS_BY_TENANT_AND_REGION))}`;
  console.log(`query: GET ${decodeURIComponent(query)}`);
  console.log(`load: autocannon, ${CONNECTIONS} connections; ${START_WARMUP_SECONDS} s warm-up per Cube start, ${WARMUP_SECONDS} s warm-up then ${MEASURED_SECONDS} s measured per case; ${ROUNDS} round(s)\n`);

  const start = (hook) => withCube(hook, { env: { ...env, ...hook.env }, redact });

  // Both Cubes answer alike before either is loaded: the naive one first sets the reference rows.
  const reference = {};
  await start(HOOKS[1]).then(async (cube) => {
    await checkAnswers(cube, HOOKS[1], paths, query, reference);
    await stopCube();
  });

  const runs = [];
  for (let round = 1; round <= ROUNDS; round++) {
    console.log(`round ${round} of ${ROUNDS}`);
    for (const hook of HOOKS) {
      const cube = await start(hook);
      await checkAnswers(cube, hook, paths, query, reference);
      for (const path of paths) await load(cube.url + query, path.headers, START_WARMUP_SECONDS / paths.length);
      for (const path of paths) {
        process.stdout.write(`  ${hook.label.padEnd(34)} ${path.label.padEnd(20)} `);
        await load(cube.url + query, path.headers, WARMUP_SECONDS);
        const measured = await load(cube.url + query, path.headers, MEASURED_SECONDS);
        assertClean(measured, `${hook.label}, ${path.label}`);
        const run = { round, ...summarize(hook, path, measured) };
        runs.push(run);
        console.log(`${fmt(run.requestsPerSecond, 0).padStart(6)} req/s  p50 ${fmt(run.latencyMs.p50, 1)} ms  p99 ${fmt(run.latencyMs.p99, 1)} ms`);
      }
      await stopCube();
    }
  }

  const results = combineRounds(runs, paths);
  for (const result of results) {
    const naive = results.find((other) => other.hook === 'naive' && other.path === result.path);
    result.ratioToNaive = result.requestsPerSecond / naive.requestsPerSecond;
  }
  printTable(results, paths);
  writeResults({ results, runs, paths, reference, libraries });
}

/** One result per hook and path: the mean of its rounds (each round's figures are kept in the JSON). */
function combineRounds(runs, paths) {
  const mean = (values) => values.reduce((sum, value) => sum + value, 0) / values.length;
  return paths.flatMap((path) =>
    HOOKS.map((hook) => {
      const own = runs.filter((run) => run.hook === hook.id && run.path === path.id);
      return {
        hook: hook.id,
        hookLabel: hook.label,
        path: path.id,
        pathLabel: path.label,
        rounds: own.length,
        requestsPerSecond: mean(own.map((run) => run.requestsPerSecond)),
        requestsPerSecondByRound: own.map((run) => run.requestsPerSecond),
        requestsTotal: own.reduce((sum, run) => sum + run.requestsTotal, 0),
        latencyMs: { p50: mean(own.map((run) => run.latencyMs.p50)), p99: mean(own.map((run) => run.latencyMs.p99)) },
      };
    }),
  );
}

// ---- the naive project ---------------------------------------------------------------------

/**
 * .cache/naive-cube: bench/naive-cube.js as cube.js, links to the example's model/ and data/, and a
 * node_modules/ of links to the example's packages. One exception: the example's top-level
 * jsonwebtoken is Cube 0.33's own 8.5.1, while a project that writes this hook installs jsonwebtoken
 * itself and gets 9 (what the anchors of issue 5 measured); so jsonwebtoken links to the 9 that
 * cube-dual-auth brought. Cube's own packages keep resolving their 8.5.1 from where they really are.
 */
function prepareNaiveProject() {
  assertSameQueryRewrite();
  rmSync(naiveDir, { recursive: true, force: true });
  mkdirSync(join(naiveDir, 'node_modules'), { recursive: true });
  copyFileSync(join(here, 'naive-cube.js'), join(naiveDir, 'cube.js'));
  for (const entry of ['model', 'data']) symlinkSync(join(exampleProject, entry), join(naiveDir, entry), 'dir');
  const exampleModules = join(exampleProject, 'node_modules');
  const fromOurPackage = createRequire(join(exampleModules, 'cube-dual-auth/package.json'));
  const jsonwebtoken9 = dirname(fromOurPackage.resolve('jsonwebtoken/package.json'));
  for (const entry of readdirSync(exampleModules)) {
    const target = entry === 'jsonwebtoken' ? jsonwebtoken9 : join(exampleModules, entry);
    symlinkSync(target, join(naiveDir, 'node_modules', entry), 'dir');
  }
  // What the naive cube.js really loads, checked rather than assumed.
  const fromNaive = createRequire(join(naiveDir, 'cube.js'));
  const version = (name) => JSON.parse(readFileSync(fromNaive.resolve(`${name}/package.json`), 'utf8')).version;
  const libraries = { jsonwebtoken: version('jsonwebtoken'), 'jwks-rsa': version('jwks-rsa') };
  if (!libraries.jsonwebtoken.startsWith('9.')) throw new Error(`The naive hook would load jsonwebtoken ${libraries.jsonwebtoken}, not 9`);
  return libraries;
}

function assertSameQueryRewrite() {
  const rewriteOf = (file) => readFileSync(file, 'utf8').match(/\n {2}queryRewrite:[\s\S]*?\n {2}\},\n/)?.[0];
  const ours = rewriteOf(join(exampleProject, 'cube.js'));
  if (!ours || ours !== rewriteOf(join(here, 'naive-cube.js'))) {
    throw new Error('bench/naive-cube.js must have the same queryRewrite as examples/cube-project/cube.js (copy it over)');
  }
}

// ---- Cube -------------------------------------------------------------------------------------

async function withCube(hook, { env, redact }) {
  process.stdout.write(`starting Cube with ${hook.label}${hook.projectDir === naiveDir ? ` (${relative(repoRoot, naiveDir)})` : ''}… `);
  const started = Date.now();
  if (state.stopping) throw new Error('interrupted');
  state.cube = await startCube({ projectDir: hook.projectDir, env, redact });
  console.log(`ready in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return state.cube;
}

async function stopCube() {
  const cube = state.cube;
  state.cube = undefined;
  await cube?.stop();
}

/** 200 with the same rows as the reference for each token, only the token's tenant, and a tampered token refused. */
async function checkAnswers(cube, hook, paths, query, reference) {
  for (const path of paths) {
    const { status, body } = await get(cube.url + query, path.headers);
    if (status !== 200 || !Array.isArray(body.data)) {
      throw new Error(`${hook.label}, ${path.label}: Cube answered ${status} ${JSON.stringify(body).slice(0, 300)}`);
    }
    const rows = JSON.stringify(body.data);
    const tenants = new Set(body.data.map((row) => row['orders.tenant']));
    if (body.data.length === 0 || tenants.size !== 1) throw new Error(`${hook.label}, ${path.label}: expected the rows of one tenant, got ${rows}`);
    reference[path.id] ??= rows;
    if (reference[path.id] !== rows) {
      throw new Error(`${hook.label}, ${path.label}: different rows than the other Cube:\n  ${rows}\n  ${reference[path.id]}`);
    }
    const tampered = { ...path.headers, Authorization: tamper(path.headers.Authorization) };
    const refused = await get(cube.url + query, tampered);
    if (refused.status < 400) throw new Error(`${hook.label}, ${path.label}: a token with an altered signature was accepted (${refused.status})`);
  }
  console.log(`  ✓ 200 and the same rows for both tokens, tampered tokens refused`);
}

async function get(url, headers) {
  const response = await fetch(url, { headers, signal: AbortSignal.timeout(15_000) });
  return { status: response.status, body: await response.json() };
}

function tamper(token) {
  const dot = token.lastIndexOf('.');
  const signature = Buffer.from(token.slice(dot + 1), 'base64url');
  signature[0] ^= 0xff;
  return `${token.slice(0, dot + 1)}${signature.toString('base64url')}`;
}

// ---- load ------------------------------------------------------------------------------------

function load(url, headers, seconds) {
  return new Promise((resolve, reject) => {
    state.load = autocannon(
      {
        url,
        method: 'GET',
        headers,
        connections: CONNECTIONS,
        duration: seconds,
        timeout: REQUEST_TIMEOUT_SECONDS,
        // Cube answers 200 {"error":"Continue wait"} while a query is still queued: not a result.
        verifyBody: (body) => body.includes('"data":[{') && !body.includes('"error"'),
      },
      (error, result) => {
        state.load = undefined;
        if (state.stopping) reject(new Error('interrupted'));
        else if (error) reject(error);
        else resolve(result);
      },
    );
  });
}

function assertClean(result, what) {
  const problems = [
    result.non2xx && `${result.non2xx} non-2xx responses`,
    result.errors && `${result.errors} errors`,
    result.timeouts && `${result.timeouts} timeouts`,
    result.mismatches && `${result.mismatches} answers without rows (e.g. "Continue wait")`,
    result.requests.total === 0 && 'no requests completed',
  ].filter(Boolean);
  if (problems.length > 0) throw new Error(`${what}: ${problems.join(', ')}; the figure would not be comparable`);
}

function summarize(hook, path, result) {
  return {
    hook: hook.id,
    hookLabel: hook.label,
    path: path.id,
    pathLabel: path.label,
    requestsPerSecond: result.requests.average,
    requestsPerSecondStddev: result.requests.stddev,
    requestsTotal: result.requests.total,
    durationSeconds: result.duration,
    latencyMs: { mean: result.latency.mean, p50: result.latency.p50, p90: result.latency.p90, p99: result.latency.p99, max: result.latency.max },
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    mismatches: result.mismatches,
  };
}

// ---- output -----------------------------------------------------------------------------------

function fmt(value, digits) {
  return value.toFixed(digits);
}

function printTable(results, paths) {
  const columns = ['case', 'hook', 'req/s', 'p50 ms', 'p99 ms', 'ours/naive'];
  const rows = [];
  for (const path of paths) {
    for (const hook of HOOKS) {
      const r = results.find((result) => result.hook === hook.id && result.path === path.id);
      rows.push([path.label, hook.label, fmt(r.requestsPerSecond, 0), fmt(r.latencyMs.p50, 1), fmt(r.latencyMs.p99, 1), `${fmt(r.ratioToNaive, 2)}x`]);
    }
  }
  const widths = columns.map((_, i) => Math.max(...[columns, ...rows].map((row) => row[i].length)));
  const numeric = (i) => i >= 2;
  const line = (row) => row.map((cell, i) => (numeric(i) ? cell.padStart(widths[i]) : cell.padEnd(widths[i]))).join('  ');
  console.log(`\n${line(columns)}\n${widths.map((w) => '-'.repeat(w)).join('  ')}`);
  for (const row of rows) console.log(line(row));
  const cpus = os.cpus();
  console.log(`\n${cpus.length} × ${cpus[0]?.model.trim()}, Node ${process.version}, Cube ${cubeVersion()}; ${CONNECTIONS} connections, ${MEASURED_SECONDS} s per case after warm-up, mean of ${ROUNDS} round(s)${quick ? ' (--quick: not a figure)' : ''}`);
}

function cubeVersion() {
  return JSON.parse(readFileSync(join(exampleProject, 'node_modules/@cubejs-backend/server/package.json'), 'utf8')).version;
}

function writeResults({ results, runs, paths, reference, libraries }) {
  const cpus = os.cpus();
  const report = {
    date: new Date().toISOString(),
    quick,
    machine: { cpus: cpus.length, cpuModel: cpus[0]?.model.trim(), memoryGiB: Math.round(os.totalmem() / 2 ** 30), platform: `${process.platform}-${process.arch}`, node: process.version },
    cube: cubeVersion(),
    package: JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')).version,
    query: ORDERS_BY_TENANT_AND_REGION,
    load: { tool: 'autocannon', connections: CONNECTIONS, startWarmupSeconds: START_WARMUP_SECONDS, warmupSeconds: WARMUP_SECONDS, measuredSeconds: MEASURED_SECONDS, rounds: ROUNDS, method: 'GET /cubejs-api/v1/load' },
    naiveHookLibraries: libraries,
    paths: paths.map(({ id, label }) => ({ id, label, rows: JSON.parse(reference[id]) })),
    hooks: HOOKS.map(({ id, label, env }) => ({ id, label, env })),
    results,
    runs,
  };
  mkdirSync(dirname(resultsFile), { recursive: true });
  writeFileSync(resultsFile, `${JSON.stringify(report, null, 2)}\n`);
  console.log(`wrote ${relative(process.cwd(), resultsFile)}`);
}

// ---- shutting down -------------------------------------------------------------------------------

function shutDown(exitCode) {
  state.stopping ??= (async () => {
    try {
      state.load?.stop();
      await stopCube();
      await state.identityProvider?.close();
    } finally {
      process.exit(exitCode);
    }
  })();
  return state.stopping;
}
