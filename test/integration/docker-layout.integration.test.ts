// Cube's official Docker image (cubejs/cube) keeps Cube in one node_modules tree and the user's project in another:
// Cube is installed in /cube/node_modules, the image runs from WORKDIR /cube/conf with
// NODE_PATH=/cube/conf/node_modules:/cube/node_modules, and a user's Dockerfile adds cube.js and runs `npm install` in
// /cube/conf, which puts this package in /cube/conf/node_modules. The hook must still throw the running Cube's own
// CubejsHandlerError there, or Cube answers a refusal with a 500. This builds that layout in a temporary directory
// from the Cube lines installed for the other suites (Cube's tree copied as hard links, without this package), installs
// the packed package into the project with `npm install` as the user's Dockerfile does, starts the real
// `cubejs-server` of the Cube tree in the project directory with the image's environment, and asks it over HTTP and
// WebSocket. No container runs: no image can be pulled on the machines of this project.
import { execFile } from 'node:child_process';
import { cpSync, existsSync, lstatSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureCube, exampleProject, packPackage } from '../../scripts/ensure-cube.mjs';
import { cubeLine, EXAMPLE_FILES } from '../../scripts/lib/cube-lines.mjs';
import { ORDERS_BY_TENANT_AND_REGION, startStack, type Stack } from '../../scripts/lib/stack.mjs';
import { CubeSocket, loadOverHttp, STACK_TRACE_LINE, type CubeAnswer } from '../support/real-cube';
import { ACME_ROWS, GLOBEX_EMEA_ROWS, rowsOf } from './real-cube-scenarios';

const INSTALL_AND_START_TIMEOUT_MS = 15 * 60_000;

function run(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = process.env): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(command, args, { cwd, env, timeout: 5 * 60_000, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
      if (error)
        reject(new Error(`${command} ${args.join(' ')} failed in ${cwd}: ${error.message}\n${stderr.slice(-3000)}`));
      else resolve(stdout);
    });
  });
}

/** Where the image keeps things, under `root`: Cube's tree as /cube, the user's project as /cube/conf. */
function imageLayout(root: string) {
  const cube = join(root, 'cube');
  const conf = join(cube, 'conf');
  return { cube, conf, cubeModules: join(cube, 'node_modules'), confModules: join(conf, 'node_modules') };
}

/** The environment the image sets (latest.Dockerfile: NODE_ENV, NODE_PATH, the image tag Cube checks for). */
function imageEnvironment(layout: ReturnType<typeof imageLayout>, version: string): Record<string, string> {
  return {
    NODE_ENV: 'production',
    NODE_PATH: `${layout.confModules}:${layout.cubeModules}`,
    CUBEJS_DOCKER_IMAGE_TAG: 'latest',
    CUBEJS_DOCKER_IMAGE_VERSION: `v${version}`,
  };
}

/**
 * Builds the image's layout for an installed Cube line: Cube's node_modules as /cube/node_modules (hard links, so it
 * takes a second, without this package), and /cube/conf holding the example's cube.js, model/ and data/ and a
 * package.json that depends on the packed package, installed there by `npm install` as the user's Dockerfile runs it.
 */
async function buildImageLayout(
  root: string,
  lineProjectDir: string,
  version: string,
): Promise<ReturnType<typeof imageLayout>> {
  const layout = imageLayout(root);
  mkdirSync(layout.conf, { recursive: true });
  await run('cp', ['-al', join(lineProjectDir, 'node_modules'), layout.cubeModules], root);
  for (const own of ['cube-dual-auth', '.bin/cube-dual-auth'])
    rmSync(join(layout.cubeModules, own), { recursive: true, force: true });
  for (const file of EXAMPLE_FILES) cpSync(join(exampleProject, file), join(layout.conf, file), { recursive: true });
  const tarball = await packPackage(join(root, 'packed'));
  const manifest = { name: 'cube-project', private: true, dependencies: { 'cube-dual-auth': `file:${tarball}` } };
  writeFileSync(join(layout.conf, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  const npmEnv = Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^npm_/i.test(name)));
  await run('npm', ['install', '--no-audit', '--no-fund'], layout.conf, {
    ...npmEnv,
    ...imageEnvironment(layout, version),
  });
  return layout;
}

describe.each(['0.33', '1'])(
  "Cube's Docker image layout (Cube line %s): Cube in /cube/node_modules, cube.js and this package in /cube/conf",
  (lineId) => {
    const { version } = cubeLine(lineId);
    let root: string;
    let layout: ReturnType<typeof imageLayout>;
    let stack: Stack;

    beforeAll(async () => {
      const { projectDir, line } = await ensureCube({ line: lineId });
      root = mkdtempSync(join(tmpdir(), `cube-dual-auth-image-${lineId}-`));
      layout = await buildImageLayout(root, projectDir, version);
      stack = await startStack({
        projectDir: layout.conf,
        cubeDir: layout.cube,
        line,
        env: imageEnvironment(layout, version),
      });
    }, INSTALL_AND_START_TIMEOUT_MS);

    afterAll(async () => {
      await stack?.stop();
      if (root) rmSync(root, { recursive: true, force: true });
    });

    const load = (headers: Record<string, string>): Promise<CubeAnswer> =>
      loadOverHttp(stack.cube.apiUrl, ORDERS_BY_TENANT_AND_REGION, headers);

    function expectRefused(answer: CubeAnswer, reason: RegExp): void {
      expect(answer.status, answer.text).toBe(403);
      expect(Object.keys(answer.body)).toEqual(['error']);
      expect(answer.body['error']).toMatch(reason);
      expect(answer.text).not.toMatch(STACK_TRACE_LINE);
    }

    it('has this package only in /cube/conf/node_modules, and Cube only in /cube/node_modules', async () => {
      expect(lstatSync(join(layout.confModules, 'cube-dual-auth')).isDirectory()).toBe(true);
      expect(existsSync(join(layout.cubeModules, 'cube-dual-auth'))).toBe(false);
      expect(existsSync(join(layout.confModules, '@cubejs-backend'))).toBe(false);
      // From the installed package, Cube's gateway resolves through the image's tree and NODE_PATH, from Cube's tree.
      const resolve = `console.log(require.resolve('@cubejs-backend/api-gateway', { paths: [${JSON.stringify(join(layout.confModules, 'cube-dual-auth'))}] }))`;
      const gateway = (
        await run(process.execPath, ['-e', resolve], layout.conf, {
          ...process.env,
          ...imageEnvironment(layout, version),
        })
      ).trim();
      expect(gateway.startsWith(`${layout.cubeModules}/@cubejs-backend/api-gateway/`)).toBe(true);
    });

    describe('over HTTP: 403, never 500', () => {
      it('refuses a request without a token: 403 "Authentication required", no stack trace', async () => {
        const answer = await load({});
        expect(answer.status, answer.text).toBe(403);
        expect(answer.body).toEqual({ error: 'Authentication required' });
        expect(answer.text).not.toMatch(STACK_TRACE_LINE);
      });

      it('refuses garbage, and tokens sent on the wrong path', async () => {
        expectRefused(await load({ Authorization: 'garbage-that-is-no-token' }), /^Malformed token/);
        expectRefused(
          await load({ Authorization: stack.serviceToken() }),
          /^Algorithm "HS256" is not accepted on the key-set path/,
        );
        expectRefused(
          await load({ Authorization: await stack.customerToken(), ...stack.serviceHeaders }),
          /^Algorithm "RS256" is not accepted on the shared-secret path/,
        );
      });

      // Cube 0.33 answers an error thrown while running a query with the error's `stack` beside its message; the hook
      // makes that one line without a trace.
      it("refuses with forbidden() from cube.js's queryRewrite (a security context whose region is no string)", async () => {
        const answer = await load({
          Authorization: stack.serviceToken({ tenant: 'acme', region: 7 }),
          ...stack.serviceHeaders,
        });
        expect(answer.status, answer.text).toBe(403);
        expect(Object.keys(answer.body).filter((key) => key !== 'stack')).toEqual(['error']);
        expect(answer.body['error']).toBe("The security context's region must be a non-empty string");
        expect(answer.text).not.toMatch(STACK_TRACE_LINE);
      });

      it('serves both callers their own rows', async () => {
        const service = await load({ Authorization: stack.serviceToken({ tenant: 'acme' }), ...stack.serviceHeaders });
        expect(service.status, service.text).toBe(200);
        expect(rowsOf(service.body)).toEqual(ACME_ROWS);
        const customer = await load({ Authorization: await stack.customerToken() });
        expect(customer.status, customer.text).toBe(200);
        expect(rowsOf(customer.body)).toEqual(GLOBEX_EMEA_ROWS);
      });
    });

    describe('over WebSocket', () => {
      it('refuses an HS256 token at the handshake with 403, no stack trace', async () => {
        const socket = await CubeSocket.open(stack.cube.webSocketUrl);
        try {
          socket.send({ authorization: stack.serviceToken() });
          const answer = await socket.next();
          expect(answer.handshake).toBeUndefined();
          expect(answer.status).toBe(403);
          expect(answer.message?.['error']).toMatch(/^Algorithm "HS256" is not accepted on the key-set path/);
          expect(JSON.stringify(answer)).not.toMatch(STACK_TRACE_LINE);
        } finally {
          socket.close();
        }
      });

      it("completes the handshake with the identity provider's token and answers a query", async () => {
        const socket = await CubeSocket.open(stack.cube.webSocketUrl);
        try {
          socket.send({ authorization: await stack.customerToken() });
          expect(await socket.next()).toEqual({ handshake: true });
          socket.send({ messageId: 1, method: 'load', params: { query: ORDERS_BY_TENANT_AND_REGION } });
          const result = await socket.next((message) => String(message.messageId) === '1');
          expect(result.status).toBe(200);
          expect(rowsOf(result.message)).toEqual(GLOBEX_EMEA_ROWS);
        } finally {
          socket.close();
        }
      });
    });
  },
);
