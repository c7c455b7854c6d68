#!/usr/bin/env node
// `npm run demo`: one real Cube, two kinds of callers, one checkAuth.
//
// Installs the example Cube project on first use, starts a real OpenID provider and
// `cubejs-server` with cube-dual-auth, then plays the embedding service's backend (HS256 token
// signed with the API secret, `Request-Origin: embeddable`) and the customer's application
// (RS256 token from the identity provider), and shows what Cube refuses and why.
//
//   npm run demo                       run the story on Cube 1.7.43, then stop everything (with Cube's native binary
//                                      where it can be downloaded, else behind scripts/lib/cube-1-preload.cjs)
//   npm run demo -- --cube 0.33        the same on Cube 0.33.65
//   npm run demo -- --keep-running     leave Cube up, write .cache/demo.env, print curl and CLI commands to try it
//   npm run demo -- --verbose          also show Cube's own log (tokens and secret masked)
import { randomBytes } from 'node:crypto';
import { readFileSync, rmSync } from 'node:fs';
import { join, relative } from 'node:path';
import { ensureCube, repoRoot } from './ensure-cube.mjs';
import { withNativeBinary } from './lib/cube-native.mjs';
import { startCube } from './lib/cube-server.mjs';
import { CUBE_API_URL, demoCliCommands, writeDemoEnv, writePrivateFile } from './lib/demo-env.mjs';
import { startIdentityProvider } from './lib/identity-provider.mjs';
import { prepareReadmeProject, readmeEnvironment } from './lib/readme-project.mjs';
import { createRedactor } from './lib/redact.mjs';
import { SERVICE_ORIGIN_HEADER, signServiceToken } from './lib/service-token.mjs';
import {
  CLAIMS_NAMESPACE,
  CUBE_AUDIENCE,
  CUSTOMER_APP,
  ORDERS_BY_TENANT_AND_REGION,
  SERVICE_VIEWER,
  startStack,
  TENANT_CLAIMS,
} from './lib/stack.mjs';
import { style } from './lib/style.mjs';

const argv = process.argv.slice(2);
const args = new Set(argv);
const keepRunning = args.has('--keep-running');
const verbose = args.has('--verbose');
const cubeAt = argv.indexOf('--cube');
const COUNT_BY_TENANT_AND_REGION = { ...ORDERS_BY_TENANT_AND_REGION, measures: ['orders.count'] };
const JWT_SHAPED = /eyJ[\w-]*\.[\w-]*\.[\w-]+/g;
const cubeLineId = cubeAt >= 0 ? argv[cubeAt + 1] : undefined;

/** The demo's environment for the CLI, written with --keep-running and removed when the demo stops. */
const demoEnvFile = join(repoRoot, '.cache/demo.env');

let stack;
let stopping;
let wroteDemoEnv = false;

main().catch(async (error) => {
  console.error(`\n${style.red('✗')} ${error.message}`);
  if (stack && !verbose) console.error(style.dim(`\nThe last lines Cube printed:\n${stack.cube.recentLogs()}`));
  await shutDown(1);
});
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    console.log(`\n${style.dim('Stopping Cube and the identity provider…')}`);
    shutDown(signal === 'SIGINT' ? 130 : 143);
  });
}

async function main() {
  heading('cube-dual-auth demo', 'one Cube, two kinds of callers, one checkAuth');

  section('1. Setting the scene');
  const { projectDir, line: installed, nativeBinary } = await ensureCube({ line: cubeLineId, nativeBinary: true });
  const line = nativeBinary?.available ? withNativeBinary(installed) : installed;
  ok(`examples/cube-project is installed ${style.dim(`(Cube ${line.version}, this package from npm pack)`)}`);
  if (nativeBinary && !nativeBinary.available) {
    say(
      style.yellow(
        `Cube's native binary is not installed: ${nativeBinary.reason}; Cube runs behind scripts/lib/cube-1-preload.cjs, as in the tests`,
      ),
    );
  }
  stack = await startStack({
    projectDir,
    line,
    onCubeLine: verbose ? (text) => console.log(style.dim(`    cube │ ${text}`)) : undefined,
  });
  const { cube, identityProvider } = stack;
  ok(
    `identity provider (oidc-provider) at ${identityProvider.issuer} ${style.dim(`signing key kid "${identityProvider.kid}"`)}`,
  );
  ok(`Cube at ${cube.url}, configured through the environment:`);
  detail(`CUBEJS_API_SECRET=${style.dim('(random for this run, never shown)')}`);
  detail(`CUBEJS_JWK_URL=${identityProvider.jwksUrl}`);
  detail(`CUBEJS_JWT_AUDIENCE=${CUBE_AUDIENCE}`);
  detail(`CUBEJS_JWT_ISSUER=${identityProvider.issuer}`);
  detail(`CUBEJS_JWT_CLAIMS_NAMESPACE=${CLAIMS_NAMESPACE}`);
  for (const [name, value] of Object.entries(TENANT_CLAIMS)) detail(`${name}=${value}`);
  detail(
    `cube.js: ${style.cyan("const { checkAuth, contextToAppId, logger, tenantFilter } = require('cube-dual-auth');")}, a queryRewrite keeping each caller to its tenant (and region)`,
  );

  section("2. The embedding service's backend");
  say(`signs the viewer's security context ${json(SERVICE_VIEWER)} with the API secret (HS256)`);
  say(`and sends it with the header ${style.cyan('Request-Origin: embeddable')}`);
  await showRows(await askCube({ Authorization: stack.serviceToken(SERVICE_VIEWER), ...stack.serviceHeaders }));

  section("3. The customer's application");
  const customerToken = await stack.customerToken();
  const { header, payload } = decode(customerToken);
  say(
    `gets an access token from the identity provider as "${CUSTOMER_APP.clientId}" ${style.dim('(client credentials grant)')}`,
  );
  say(`${header.alg}, kid "${header.kid}", aud ${payload.aud}, claims for Cube: ${json(payload[CLAIMS_NAMESPACE])}`);
  say(`and sends it with ${style.cyan('no Request-Origin header')}`);
  await showRows(await askCube({ Authorization: customerToken }));

  section('4. Refused, and told why');
  const serviceToken = stack.serviceToken(SERVICE_VIEWER);
  await showRefusal('no token at all', {});
  await showRefusal('a service token that expired an hour ago', {
    Authorization: stack.serviceToken(SERVICE_VIEWER, { expiresInSeconds: -3600 }),
    ...stack.serviceHeaders,
  });
  await showRefusal('an identity provider token that has expired (issued for 1 s)', {
    Authorization: await stack.expiredCustomerToken(),
  });
  await showRefusal('the service token without Request-Origin (wrong path)', { Authorization: serviceToken });
  await showRefusal('the identity provider token with Request-Origin: embeddable (wrong path)', {
    Authorization: customerToken,
    ...stack.serviceHeaders,
  });

  if (line.id === '1') await showAccessPolicies(projectDir, line);

  if (keepRunning) return printCurlCommands(customerToken);
  console.log(`\n${style.green('Done.')} Both paths worked against a real Cube; stopping everything.`);
  await shutDown(0);
}

// ---- talking to Cube --------------------------------------------------------------------

function askCube(headers) {
  return askCubeAt(stack.cube.apiUrl, ORDERS_BY_TENANT_AND_REGION, headers);
}

async function askCubeAt(apiUrl, orders, headers) {
  const query = encodeURIComponent(JSON.stringify(orders));
  const started = Date.now();
  const response = await fetch(`${apiUrl}/load?query=${query}`, {
    headers,
    signal: AbortSignal.timeout(15_000),
  });
  const body = await response.json();
  return { status: response.status, body, ms: Date.now() - started };
}

async function showRows({ status, body, ms }, whenEmpty) {
  if (status !== 200) throw new Error(`Cube answered ${status}: ${stack.redact(JSON.stringify(body))}`);
  if (body.data.length === 0 && whenEmpty) {
    say(`${style.green(`→ ${status}`)} ${style.dim(`${ms} ms`)}, ${whenEmpty}`);
    return;
  }
  say(`${style.green(`→ ${status}`)} ${style.dim(`${ms} ms`)}, the rows Cube returns under this security context:`);
  const count = (row) => row['orders.count'] ?? row['orders.order_count'];
  const withTotal = body.data.some((row) => 'orders.total_amount' in row);
  table(
    ['tenant', 'region', 'orders', ...(withTotal ? ['total'] : [])],
    body.data.map((row) => [
      row['orders.tenant'],
      row['orders.region'],
      count(row),
      ...(withTotal ? [row['orders.total_amount']] : []),
    ]),
  );
}

async function showRefusal(what, headers) {
  const { status, body } = await askCube(headers);
  const shown = stack.redact(String(body.error ?? JSON.stringify(body)));
  const mark = status === 403 ? style.yellow(`→ ${status}`) : style.red(`→ ${status} (expected 403)`);
  console.log(`  ${what}`);
  console.log(`      ${mark} ${shown}`);
  if (status !== 403) throw new Error(`Expected a 403 for ${what}, got ${status}`);
}

// ---- Cube 1.x: the README's set-up with access policies ------------------------------------

/** Keycloak-style tokens of the second identity provider: the tenant and the realm roles. */
const POLICY_APPS = [
  { clientId: 'globex-analyst', claims: { tenant_id: 'globex', realm_access: { roles: ['analyst'] } } },
  { clientId: 'acme-viewer', claims: { tenant_id: 'acme', realm_access: { roles: ['viewer'] } } },
];

// A second Cube on examples/access-policies, as the README's whole Cube 1.x set-up has it (and Cube Cloud's): its
// cube.js is `{ checkAuth, contextToGroups, logger }`, its model's policies decide rows and members per group.
async function showAccessPolicies(lineDir, line) {
  section('5. The same two callers under access policies (Cube 1.x, examples/access-policies)');
  const example = join(repoRoot, 'examples/access-policies');
  const cubeJs = readFileSync(join(example, 'cube.js'), 'utf8');
  const project = await prepareReadmeProject({
    lineDir,
    name: '.demo-access-policies',
    cubeJs,
    modelDir: join(example, 'model'),
  });
  const apiSecret = randomBytes(32).toString('base64url');
  const mask = createRedactor([apiSecret]);
  let wholeTokens = 0;
  let refusalsLogged = 0;
  const idp = await startIdentityProvider({ audience: CUBE_AUDIENCE, apps: POLICY_APPS });
  let cube;
  try {
    cube = await startCube({
      projectDir: project.dir,
      cubeDir: lineDir,
      line,
      env: readmeEnvironment(idp, apiSecret, project.database),
      // Counted before masking, never kept: what a reader of Cube's log would find.
      redact: (text) => {
        wholeTokens += text.match(JWT_SHAPED)?.length ?? 0;
        if (text.includes('"token":')) refusalsLogged += 1;
        return mask(text);
      },
      onLine: verbose ? (text) => console.log(style.dim(`    cube │ ${text}`)) : undefined,
    });
    ok(`a second Cube at ${cube.url}, ${style.dim('cube.js:')}`);
    for (const text of cubeJs.split('\n').filter((text) => text !== '' && !text.startsWith('//')))
      detail(style.cyan(text));
    detail(
      `identity provider ${idp.issuer}, Keycloak-style: CUBE_DUAL_AUTH_TENANT_CLAIM=tenant_id, CUBE_DUAL_AUTH_GROUPS_CLAIM=/realm_access/roles, CUBE_DUAL_AUTH_SERVICE_GROUPS=embeddable`,
    );
    const ask = (query, headers) => askCubeAt(cube.apiUrl, query, headers);
    const service = { Authorization: signServiceToken(apiSecret, { tenant_id: 'acme' }), ...SERVICE_ORIGIN_HEADER };
    say(`the service, ${json({ tenant_id: 'acme' })}: group embeddable, every member of its tenant`);
    await showRows(await ask(ORDERS_BY_TENANT_AND_REGION, service));
    const analyst = { Authorization: await idp.issueToken('globex-analyst') };
    say(`globex's analyst ${style.dim('(realm role analyst: counts, no amounts)')}`);
    await showRows(await ask(COUNT_BY_TENANT_AND_REGION, analyst));
    say(`globex's analyst asks for the amounts too`);
    await showRows(await ask(ORDERS_BY_TENANT_AND_REGION, analyst), 'no rows: the policy denies the member');
    say(`acme's viewer ${style.dim('(realm role viewer: order_count, which counts without the primary key)')}`);
    await showRows(
      await ask(
        { ...COUNT_BY_TENANT_AND_REGION, measures: ['orders.order_count'] },
        {
          Authorization: await idp.issueToken('acme-viewer'),
        },
      ),
    );
    const refused = await ask(COUNT_BY_TENANT_AND_REGION, { ...analyst, ...SERVICE_ORIGIN_HEADER });
    say(`globex's analyst token sent with Request-Origin: embeddable ${style.yellow(`→ ${refused.status}`)}`);
    if (refused.status !== 403) throw new Error(`Expected a 403, got ${refused.status}`);
    say(
      `Cube's log: ${refusalsLogged} refusal logged with its token field, ${wholeTokens} whole tokens in it ${style.dim("(the package's logger masks them)")}`,
    );
    if (wholeTokens !== 0) throw new Error("Cube's log holds whole tokens");
  } finally {
    await cube?.stop();
    await idp.close();
    project.remove();
  }
}

// ---- --keep-running ----------------------------------------------------------------------

// Tokens and the API secret go to files readable only by you, never to the terminal: the commands read them.
function printCurlCommands(customerToken) {
  const dir = join(repoRoot, '.cache/cube-dual-auth/demo');
  const serviceFile = writePrivateFile(
    join(dir, 'service.token'),
    stack.serviceToken(SERVICE_VIEWER, { expiresInSeconds: 3600 }),
  );
  const customerFile = writePrivateFile(join(dir, 'customer.token'), customerToken);
  writeDemoEnv(demoEnvFile, { ...stack.authEnvironment, [CUBE_API_URL]: stack.cube.apiUrl });
  wroteDemoEnv = true;
  const query = `${stack.cube.apiUrl}/load?query=${encodeURIComponent(JSON.stringify({ measures: ['orders.count'], dimensions: ['orders.tenant', 'orders.region'] }))}`;
  const rel = (file) => relative(process.cwd(), file) || file;

  section('Cube keeps running. Try it (tokens are valid for an hour):');
  say(style.dim("# as the embedding service's backend"));
  say(`curl -s -H "Authorization: $(cat ${rel(serviceFile)})" -H "Request-Origin: embeddable" '${query}'`);
  say(style.dim("# as the customer's application"));
  say(`curl -s -H "Authorization: $(cat ${rel(customerFile)})" '${query}'`);
  say(style.dim('# without a token'));
  say(`curl -s '${query}'`);
  say(style.dim(`# the identity provider's keys`));
  say(`curl -s ${stack.identityProvider.jwksUrl}`);

  section(
    `And with the CLI: ${rel(demoEnvFile)} holds this Cube's environment (mode 0600, removed when the demo stops)`,
  );
  const commands = demoCliCommands(
    { envFile: rel(demoEnvFile), serviceTokenFile: rel(serviceFile), customerTokenFile: rel(customerFile) },
    SERVICE_VIEWER,
  );
  for (const line of commands) say(line.startsWith('#') ? style.dim(line) : line);
  console.log(`\nPress ${style.bold('Ctrl-C')} to stop Cube and the identity provider.`);
}

// ---- shutting down -----------------------------------------------------------------------

function shutDown(exitCode) {
  stopping ??= (async () => {
    try {
      // Its secret and URLs are worthless once this Cube stops; a stale copy would only mislead.
      if (wroteDemoEnv) rmSync(demoEnvFile, { force: true });
      await stack?.stop();
    } finally {
      process.exit(exitCode);
    }
  })();
  return stopping;
}

// ---- output --------------------------------------------------------------------------------

function heading(title, subtitle) {
  console.log(`\n${style.bold(style.magenta(title))} ${style.dim(`— ${subtitle}`)}`);
}

function section(title) {
  console.log(`\n${style.bold(title)}`);
}

function ok(text) {
  console.log(`  ${style.green('✓')} ${text}`);
}

function say(text) {
  console.log(`  ${text}`);
}

function detail(text) {
  console.log(`      ${text}`);
}

function json(value) {
  return style.cyan(JSON.stringify(value));
}

function table(columns, rows) {
  const cells = [columns, ...rows.map((row) => row.map(String))];
  const widths = columns.map((_, i) => Math.max(...cells.map((row) => row[i].length)));
  const line = (row) => `      ${row.map((cell, i) => cell.padEnd(widths[i])).join('   ')}`.trimEnd();
  console.log(style.dim(line(columns)));
  for (const row of rows) console.log(line(row.map(String)));
}

function decode(token) {
  const [header, payload] = token
    .split('.')
    .slice(0, 2)
    .map((part) => JSON.parse(Buffer.from(part, 'base64url').toString()));
  return { header, payload };
}
