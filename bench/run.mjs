// npm run bench: every way of verifying the same generated tokens, in one run, as ratios to two floors:
// - the node:crypto floor: what any correct verifier must do at least (the signature check and the payload decode);
// - the library floor: bare jsonwebtoken.verify with keys prepared once as KeyObjects and the algorithm pinned, which
//   is what the hook verifies with, so the ratio to it is the price of everything the hook adds.
// Also two memory runs (100k distinct tokens through checkAuth, without and with authorization), and one of the SQL
// API's live logins (10,000 token logins through checkSqlAuth, kept for re-authentication). Checks the targets (exit 1
// on a miss) and writes bench/results/latest.json.
// --against DIR: a second build of the package (a directory like dist/, e.g. a copy of it made at another commit) runs
// the hook's four ways in the same rounds, and each is divided by this build's round by round. Against a copy of the
// same build, that ratio is the method's own noise; against another design, it is what the design changes.
// --metrics: this build's hooks record metrics (createCheckAuth's `metrics: true`, as CUBE_DUAL_AUTH_METRICS or
// CUBE_DUAL_AUTH_METRICS_PORT turn on), so the targets hold with metrics on; the --against build's never do, so
// `--metrics --against <a copy of dist/>` divides metrics on by metrics off, round by round.
// --against-metrics: the --against build records metrics too, so two ways of recording are divided round by round.
import {
  createHmac,
  createPublicKey,
  createSecretKey,
  generateKeyPairSync,
  randomBytes,
  sign,
  timingSafeEqual,
  verify,
} from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import os from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const jwt = require('jsonwebtoken');
const { createVerifier } = require('fast-jwt');
const { createCheckAuth } = require('../dist/index.js');

const here = dirname(fileURLToPath(import.meta.url));
const quick = process.argv.includes('--quick');
const againstAt = process.argv.indexOf('--against');
const against = againstAt === -1 ? undefined : resolve(process.argv[againstAt + 1] ?? '');
const withMetrics = process.argv.includes('--metrics');
const againstMetrics = process.argv.includes('--against-metrics');
// Many very short rounds rather than a few long ones: on a shared machine the speed of the whole machine drifts by
// tens of percent within seconds. Each round runs every way once, for about SLICE_MS, in an order rotated by one per
// round, so the two ways a target divides are timed milliseconds apart; each target is the median of its per-round
// ratios. A single round is noisy (a garbage collection or another process lands in it), the median of hundreds is not.
const SLICE_MS = 5;
const ROUNDS = quick ? 41 : 401;
const WARMUP_MS = quick ? 150 : 500;
const DISTINCT = 4000; // more than the package's cache holds in this run, so every distinct lookup misses
const CACHE_FOR_DISTINCT = 1000;

const b64 = (value) => Buffer.from(JSON.stringify(value)).toString('base64url');
const now = () => Math.floor(Date.now() / 1000);

function makeTokens(count, header, signer) {
  return Array.from({ length: count }, (_, i) => {
    const payload = {
      sub: `user-${i}`,
      tenant: 'acme',
      region: 'eu',
      roles: ['viewer'],
      iat: now(),
      exp: now() + 3600,
      jti: randomBytes(8).toString('hex'),
    };
    const input = `${b64(header)}.${b64(payload)}`;
    return `${input}.${signer(input).toString('base64url')}`;
  });
}

function cycler(tokens) {
  let i = 0;
  return () => tokens[i++ % tokens.length];
}

/** A new string with the text of `token`: a request brings its token as a string never seen before, whose hash V8 has not computed. */
function fresh(token) {
  return Buffer.from(token, 'latin1').toString('latin1');
}

/** The floor: what any correct verifier must do at least (verify the signature, decode the payload). */
function floorHs256(key) {
  return (token) => {
    const dot = token.lastIndexOf('.');
    const mac = createHmac('sha256', key).update(token.slice(0, dot)).digest();
    if (!timingSafeEqual(mac, Buffer.from(token.slice(dot + 1), 'base64url'))) throw new Error('bad');
    return JSON.parse(Buffer.from(token.slice(token.indexOf('.') + 1, dot), 'base64url').toString());
  };
}

function floorRs256(key) {
  return (token) => {
    const dot = token.lastIndexOf('.');
    if (!verify('sha256', Buffer.from(token.slice(0, dot)), key, Buffer.from(token.slice(dot + 1), 'base64url')))
      throw new Error('bad');
    return JSON.parse(Buffer.from(token.slice(token.indexOf('.') + 1, dot), 'base64url').toString());
  };
}

async function serveJwks(jwk) {
  const server = createServer((_, res) => {
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ keys: [jwk] }));
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${server.address().port}/jwks.json` };
}

async function main() {
  const secret = randomBytes(32).toString('hex');
  const secretKey = createSecretKey(Buffer.from(secret));
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const publicPem = publicKey.export({ format: 'pem', type: 'spki' });
  const kid = 'bench-key';
  const jwks = await serveJwks({ ...publicKey.export({ format: 'jwk' }), kid, use: 'sig', alg: 'RS256' });

  process.stdout.write(`Generating ${DISTINCT} HS256 and ${DISTINCT} RS256 tokens...\n`);
  const hsTokens = makeTokens(DISTINCT, { alg: 'HS256', typ: 'JWT' }, (input) =>
    createHmac('sha256', secretKey).update(input).digest(),
  );
  const rsTokens = makeTokens(DISTINCT, { alg: 'RS256', typ: 'JWT', kid }, (input) =>
    sign('sha256', Buffer.from(input), privateKey),
  );

  const options = { apiSecret: secret, jwksUri: jwks.url, ...(withMetrics && { metrics: true }) };
  const distinctAuth = createCheckAuth({ ...options, tokenCacheSize: CACHE_FOR_DISTINCT });
  const repeatedAuth = createCheckAuth(options);
  await distinctAuth.prefetch();
  await repeatedAuth.prefetch();
  const serviceReq = { headers: { 'request-origin': 'embeddable' } };
  const appReq = { headers: {} };

  const fastHs = createVerifier({ key: secret, algorithms: ['HS256'] });
  const fastHsCached = createVerifier({ key: secret, algorithms: ['HS256'], cache: true });
  const fastRs = createVerifier({ key: publicPem, algorithms: ['RS256'] });
  const fastRsCached = createVerifier({ key: publicPem, algorithms: ['RS256'], cache: true });
  // The library floor's keys, prepared once as KeyObjects, as a verifier does when it loads them (secretKey above).
  const libraryPublicKey = createPublicKey(publicPem);

  // id: how the targets and latest.json refer to a way; way: what the table prints.
  const ways = [
    {
      id: 'hs256-crypto-floor',
      alg: 'HS256',
      way: 'node:crypto floor: HMAC + timingSafeEqual + payload decode',
      tokens: 'distinct',
      fn: floorHs256(secretKey),
      list: hsTokens,
    },
    {
      id: 'hs256-library-floor',
      alg: 'HS256',
      way: 'library floor: jsonwebtoken.verify, createSecretKey KeyObject, HS256 pinned',
      tokens: 'distinct',
      fn: (t) => jwt.verify(t, secretKey, { algorithms: ['HS256'] }),
      list: hsTokens,
    },
    {
      id: 'hs256-ours-distinct',
      alg: 'HS256',
      way: 'cube-dual-auth checkAuth',
      tokens: 'distinct',
      fn: (t) => distinctAuth(serviceReq, t),
      list: hsTokens,
    },
    {
      id: 'hs256-ours-repeated',
      alg: 'HS256',
      way: 'cube-dual-auth checkAuth',
      tokens: 'repeated',
      fn: (t) => repeatedAuth(serviceReq, t),
      list: hsTokens.slice(0, 1),
    },
    {
      id: 'hs256-usual-snippet',
      alg: 'HS256',
      way: 'usual snippet: jsonwebtoken.verify, secret as string',
      tokens: 'distinct',
      fn: (t) => jwt.verify(t, secret, { algorithms: ['HS256'] }),
      list: hsTokens,
    },
    { id: 'hs256-fast-jwt', alg: 'HS256', way: 'fast-jwt, no cache', tokens: 'distinct', fn: fastHs, list: hsTokens },
    {
      id: 'hs256-fast-jwt-cached',
      alg: 'HS256',
      way: 'fast-jwt, cache',
      tokens: 'repeated',
      fn: fastHsCached,
      list: hsTokens.slice(0, 1),
    },
    {
      id: 'rs256-crypto-floor',
      alg: 'RS256',
      way: 'node:crypto floor: RSA verify + payload decode',
      tokens: 'distinct',
      fn: floorRs256(publicKey),
      list: rsTokens,
    },
    {
      id: 'rs256-library-floor',
      alg: 'RS256',
      way: 'library floor: jsonwebtoken.verify, createPublicKey KeyObject, RS256 pinned',
      tokens: 'distinct',
      fn: (t) => jwt.verify(t, libraryPublicKey, { algorithms: ['RS256'] }),
      list: rsTokens,
    },
    {
      id: 'rs256-ours-distinct',
      alg: 'RS256',
      way: 'cube-dual-auth checkAuth',
      tokens: 'distinct',
      fn: (t) => distinctAuth(appReq, t),
      list: rsTokens,
    },
    {
      id: 'rs256-ours-repeated',
      alg: 'RS256',
      way: 'cube-dual-auth checkAuth',
      tokens: 'repeated',
      fn: (t) => repeatedAuth(appReq, t),
      list: rsTokens.slice(0, 1),
    },
    {
      id: 'rs256-usual-snippet',
      alg: 'RS256',
      way: 'usual snippet: jsonwebtoken.verify, key as PEM string',
      tokens: 'distinct',
      fn: (t) => jwt.verify(t, publicPem, { algorithms: ['RS256'] }),
      list: rsTokens,
    },
    { id: 'rs256-fast-jwt', alg: 'RS256', way: 'fast-jwt, no cache', tokens: 'distinct', fn: fastRs, list: rsTokens },
    {
      id: 'rs256-fast-jwt-cached',
      alg: 'RS256',
      way: 'fast-jwt, cache',
      tokens: 'repeated',
      fn: fastRsCached,
      list: rsTokens.slice(0, 1),
    },
  ];

  const other = against === undefined ? { compared: [], close: () => {} } : await againstBuild(against, options, ways);
  ways.push(...other.compared.map(({ way }) => way));

  const rounds = await measure(ways);
  const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
  const rows = ways.map(({ id, alg, way, tokens }) => {
    const perRound = rounds.map((round) => round[id]);
    const mean = perRound.reduce((sum, v) => sum + v, 0) / perRound.length;
    const sd = Math.sqrt(perRound.reduce((sum, v) => sum + (v - mean) ** 2, 0) / (perRound.length - 1 || 1));
    // ± %: the 95% margin of the rounds' mean, relative to it.
    return {
      id,
      alg,
      way,
      tokens,
      usPerOp: median(perRound),
      rmePercent: ((1.96 * sd) / Math.sqrt(perRound.length) / mean) * 100,
    };
  });
  const row = (id) => rows.find((r) => r.id === id);
  const floors = {
    cryptoFloor: { HS256: row('hs256-crypto-floor'), RS256: row('rs256-crypto-floor') },
    libraryFloor: { HS256: row('hs256-library-floor'), RS256: row('rs256-library-floor') },
  };
  for (const r of rows) {
    r.ratioToCryptoFloor = r.usPerOp / floors.cryptoFloor[r.alg].usPerOp;
    r.ratioToLibraryFloor = r.usPerOp / floors.libraryFloor[r.alg].usPerOp;
    r.ratioToHs256CryptoFloor = r.usPerOp / floors.cryptoFloor.HS256.usPerOp;
  }

  // With authorization, every cached security context also holds the tenant and the groups the hook gave it.
  const memory = [
    await memoryRun('without authorization', secret, options),
    await memoryRun('with authorization (tenant claim, service groups)', secret, {
      ...options,
      tenantClaim: 'tenant',
      serviceGroups: ['embeddable'],
    }),
  ];
  const liveLogins = await liveLoginRun(options, (input) => sign('sha256', Buffer.from(input), privateKey), kid);
  distinctAuth.close();
  repeatedAuth.close();
  other.close();
  jwks.server.close();

  // Each target but memory divides the µs/op of two ways, round by round: its value is the median of those ratios,
  // its spread the middle half of them (first to third quartile).
  const ratio = (numerator, denominator) => {
    const values = rounds.map((round) => round[numerator] / round[denominator]).sort((a, b) => a - b);
    const quartile = (q) => values[Math.floor((values.length - 1) * q)];
    return { numerator, denominator, value: median(values), spread: [quartile(0.25), quartile(0.75)] };
  };
  const targets = [
    {
      target: 'distinct HS256: checkAuth ÷ library floor',
      ...ratio('hs256-ours-distinct', 'hs256-library-floor'),
      max: 1.4,
    },
    {
      target: 'distinct RS256: checkAuth ÷ library floor',
      ...ratio('rs256-ours-distinct', 'rs256-library-floor'),
      max: 1.2,
    },
    {
      target: 'repeated HS256: checkAuth ÷ HS256 node:crypto floor',
      ...ratio('hs256-ours-repeated', 'hs256-crypto-floor'),
      max: 0.3,
    },
    {
      target: 'repeated RS256: checkAuth ÷ HS256 node:crypto floor',
      ...ratio('rs256-ours-repeated', 'hs256-crypto-floor'),
      max: 0.3,
    },
    {
      target: 'distinct HS256: usual snippet ÷ checkAuth (times faster)',
      ...ratio('hs256-usual-snippet', 'hs256-ours-distinct'),
      min: 30,
    },
    ...memory.map((run) => ({
      target: `memory ${run.setting}: heap growth after GC, MB (bound: cache size × 1.5 KB)`,
      value: run.heapGrowthMb,
      max: run.boundMb,
    })),
    {
      target: `memory ${liveLogins.setting}: heap growth after GC, MB (bound: logins × 1.5 KB)`,
      value: liveLogins.heapGrowthMb,
      max: liveLogins.boundMb,
    },
  ].map((t) => ({ ...t, met: t.min !== undefined ? t.value >= t.min : t.value <= t.max }));
  const comparisons = other.compared.map(({ way, of }) => ({
    comparison: `${way.alg} ${way.tokens}: this build ÷ --against build`,
    ...ratio(of, way.id),
  }));

  const machine = `${os.cpus()[0]?.model ?? 'unknown CPU'}, ${os.cpus().length} cores, ${Math.round(os.totalmem() / 2 ** 30)} GiB, Node ${process.version}, ${os.platform()} ${os.arch()}`;
  printTable(rows, machine);
  printMemory(memory);
  printLiveLogins(liveLogins);
  printTargets(targets);
  if (against !== undefined) printComparisons(comparisons, against);
  mkdirSync(join(here, 'results'), { recursive: true });
  const file = join(here, 'results', 'latest.json');
  const floorIds = Object.fromEntries(
    Object.entries(floors).map(([name, byAlg]) => [name, { HS256: byAlg.HS256.id, RS256: byAlg.RS256.id }]),
  );
  writeFileSync(
    file,
    `${JSON.stringify({ date: new Date().toISOString(), machine, quick, floors: floorIds, rows, memory, liveLogins, targets, ...(against !== undefined && { against, comparisons }) }, null, 2)}\n`,
  );
  process.stdout.write(`\nResults written to ${file}\n`);
  if (!targets.every((t) => t.met)) process.exitCode = 1;
}

/**
 * The hook's four ways again, with checkAuth from the build in `dir`: each way names the way of this build it is
 * compared with (`of`).
 */
async function againstBuild(dir, options, ways) {
  const { createCheckAuth: create } = require(join(dir, 'index.js'));
  // Metrics off in the other build unless --against-metrics: with --metrics alone, the comparison is their cost.
  // (Left out, not undefined: a build from before metrics refuses an option it does not know.)
  if (!againstMetrics) options = Object.fromEntries(Object.entries(options).filter(([name]) => name !== 'metrics'));
  const auth = { distinct: create({ ...options, tokenCacheSize: CACHE_FOR_DISTINCT }), repeated: create(options) };
  await Promise.all(Object.values(auth).map((checkAuth) => checkAuth.prefetch()));
  const compared = ways
    .filter(({ id }) => id.includes('-ours-'))
    .map((ours) => {
      const req = ours.alg === 'HS256' ? { headers: { 'request-origin': 'embeddable' } } : { headers: {} };
      const checkAuth = auth[ours.tokens];
      return {
        of: ours.id,
        way: { ...ours, id: `${ours.id}-against`, way: `${ours.way}, --against build`, fn: (t) => checkAuth(req, t) },
      };
    });
  return { compared, close: () => Object.values(auth).forEach((checkAuth) => checkAuth.close()) };
}

/**
 * Times every way: a warm-up sizes each way's batch to about SLICE_MS, then each of ROUNDS rounds runs one batch of
 * every way, each call awaited as Cube awaits checkAuth, the order rotated by one per round. Returns, per round, each
 * way's µs per call by its id.
 */
async function measure(ways) {
  const runs = ways.map(({ id, fn, list }) => ({ id, fn, next: cycler(list), batch: 0 }));
  const timeBatch = async ({ fn, next }, calls) => {
    const tokens = Array.from({ length: calls }, () => fresh(next()));
    // A batch starts with the young generation emptied: else a scavenge that the ways timed before it made due lands in
    // it and copies its live tokens (thousands for a cheap way), doubling that way's time in some rounds and not others.
    globalThis.gc?.({ type: 'minor' });
    const started = process.hrtime.bigint();
    for (const token of tokens) await fn(token);
    return Number(process.hrtime.bigint() - started) / 1000;
  };
  process.stdout.write(`Warming up ${ways.length} ways, ${WARMUP_MS} ms each...\n`);
  for (const run of runs) {
    const started = performance.now();
    let calls = 0;
    while (performance.now() - started < WARMUP_MS) {
      await run.fn(fresh(run.next()));
      calls++;
    }
    run.batch = Math.max(1, Math.round((calls * SLICE_MS) / WARMUP_MS));
  }
  process.stdout.write(`${ROUNDS} rounds of ${ways.length} ways, about ${SLICE_MS} ms each...\n`);
  const rounds = [];
  for (let round = 0; round < ROUNDS; round++) {
    const times = {};
    for (let i = 0; i < runs.length; i++) {
      const run = runs[(i + round) % runs.length];
      times[run.id] = (await timeBatch(run, run.batch)) / run.batch;
    }
    rounds.push(times);
  }
  return rounds;
}

/** 100k distinct tokens through checkAuth with the default cache: heap growth must stay within the cache's bound. */
async function memoryRun(setting, secret, options) {
  const count = 100_000;
  const cacheSize = 10_000;
  const key = createSecretKey(Buffer.from(secret));
  const checkAuth = createCheckAuth({ ...options, tokenCacheSize: cacheSize });
  const req = { headers: { 'request-origin': 'embeddable' } };
  const header = b64({ alg: 'HS256', typ: 'JWT' });
  const gc = globalThis.gc ?? (() => {});
  gc();
  const before = process.memoryUsage().heapUsed;
  let peak = before;
  for (let i = 0; i < count; i++) {
    const input = `${header}.${b64({ sub: `user-${i}`, tenant: 'acme', region: 'eu', roles: ['viewer'], iat: now(), exp: now() + 3600 })}`;
    await checkAuth(req, `${input}.${createHmac('sha256', key).update(input).digest('base64url')}`);
    if (i % 10_000 === 0) peak = Math.max(peak, process.memoryUsage().heapUsed);
  }
  gc();
  const after = process.memoryUsage().heapUsed;
  checkAuth.close();
  const perEntryBytes = 1_500;
  return {
    setting,
    tokens: count,
    cacheSize,
    gcExposed: globalThis.gc !== undefined,
    heapGrowthMb: (after - before) / 2 ** 20,
    peakGrowthMb: (peak - before) / 2 ** 20,
    boundMb: (cacheSize * perEntryBytes) / 2 ** 20,
  };
}

/**
 * 10,000 SQL API token logins (distinct users, RS256 on the key-set path, tenant and groups): what the memory of live
 * logins that answers Cube's re-authentication holds once they are all live. Tokens are signed before the heap is read.
 */
async function liveLoginRun(options, signRs256, kid) {
  const logins = 10_000;
  const header = b64({ alg: 'RS256', typ: 'JWT', kid });
  const tokens = Array.from({ length: logins }, (_, i) => {
    const input = `${header}.${b64({ sub: `user-${i}`, tenant: 'acme', roles: ['viewer'], region: 'eu', iat: now(), exp: now() + 3600 })}`;
    return `${input}.${signRs256(input).toString('base64url')}`;
  });
  const hook = createCheckAuth({ ...options, tenantClaim: 'tenant', groupsClaim: 'roles' });
  await hook.prefetch();
  const req = { id: 'bench-span-1', meta: null, protocol: 'postgres', method: 'password' };
  const gc = globalThis.gc ?? (() => {});
  gc();
  const before = process.memoryUsage().heapUsed;
  for (let i = 0; i < logins; i++) await hook.checkSqlAuth(req, `user-${i}`, tokens[i]);
  tokens.length = 0;
  gc();
  const after = process.memoryUsage().heapUsed;
  // Every one of them still re-authenticates: the figure is of logins held, not dropped.
  const held = (await Promise.allSettled([0, logins - 1].map((i) => hook.checkSqlAuth(req, `user-${i}`, null)))).every(
    (result) => result.status === 'fulfilled',
  );
  hook.close();
  const perLoginBytes = 1_500;
  return {
    setting: `${logins} live SQL logins`,
    logins,
    held,
    gcExposed: globalThis.gc !== undefined,
    heapGrowthMb: (after - before) / 2 ** 20,
    boundMb: (logins * perLoginBytes) / 2 ** 20,
  };
}

function printLiveLogins(run) {
  process.stdout.write(
    `Memory, ${run.setting} (token logins through checkSqlAuth, kept for re-authentication; all held: ${run.held}): heap growth ${run.heapGrowthMb.toFixed(1)} MB after GC, ` +
      `${((run.heapGrowthMb * 2 ** 20) / run.logins).toFixed(0)} B per login, bound ${run.boundMb.toFixed(1)} MB${run.gcExposed ? '' : ' (run with --expose-gc for exact figures)'}\n`,
  );
}

function printTable(rows, machine) {
  const header = ['alg', 'way', 'tokens', 'µs/op', '± %', 'x node:crypto floor', 'x library floor'];
  const lines = rows.map((r) => [
    r.alg,
    r.way,
    r.tokens,
    r.usPerOp.toFixed(2),
    r.rmePercent.toFixed(1),
    r.ratioToCryptoFloor.toFixed(2),
    r.ratioToLibraryFloor.toFixed(2),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => String(l[i]).length)));
  const fmt = (cells) =>
    `| ${cells.map((c, i) => (i >= 3 ? String(c).padStart(widths[i]) : String(c).padEnd(widths[i]))).join(' | ')} |`;
  process.stdout.write(
    `\nMachine: ${machine}\n\n${fmt(header)}\n|${widths.map((w, i) => (i >= 3 ? `${'-'.repeat(w + 1)}:` : '-'.repeat(w + 2))).join('|')}|\n`,
  );
  for (const line of lines) process.stdout.write(`${fmt(line)}\n`);
}

function printMemory(memory) {
  process.stdout.write('\n');
  for (const run of memory) {
    process.stdout.write(
      `Memory, ${run.setting}: ${run.tokens} distinct tokens through checkAuth (cache ${run.cacheSize}): heap growth ${run.heapGrowthMb.toFixed(1)} MB after GC ` +
        `(peak ${run.peakGrowthMb.toFixed(1)} MB), bound ${run.boundMb.toFixed(1)} MB${run.gcExposed ? '' : ' (run with --expose-gc for exact figures)'}\n`,
    );
  }
}

function printComparisons(comparisons, dir) {
  process.stdout.write(`\nAgainst the build in ${dir} (median of the per-round ratios):\n`);
  const width = Math.max(...comparisons.map((c) => c.comparison.length));
  for (const c of comparisons) {
    process.stdout.write(
      `  ${c.comparison.padEnd(width)}  ${c.value.toFixed(3)}  middle half of the rounds ${c.spread.map((v) => v.toFixed(3)).join(' to ')}\n`,
    );
  }
}

function printTargets(targets) {
  process.stdout.write('\nTargets (ratios of this run):\n');
  const width = Math.max(...targets.map((t) => t.target.length));
  for (const t of targets) {
    const limit = t.min !== undefined ? `≥ ${t.min}` : `≤ ${Number(t.max.toFixed(2))}`;
    const spread = t.spread ? `  middle half of the rounds ${t.spread.map((v) => v.toFixed(2)).join(' to ')}` : '';
    process.stdout.write(
      `  ${t.met ? 'MET ' : 'MISS'}  ${t.target.padEnd(width)}  ${t.value.toFixed(2).padStart(6)}  (${limit})${spread}\n`,
    );
  }
}

await main();
