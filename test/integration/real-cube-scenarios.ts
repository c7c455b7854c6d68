// The product, end to end, the same scenarios on every Cube line: this package packed with `npm pack` and installed
// into a real Cube project, imported from its cube.js, served by the real `cubejs-server`; service tokens signed with
// the API secret on one side, access tokens from a real OpenID provider on the other. Nothing is mocked. Cube 1.x
// runs behind scripts/lib/cube-1-preload.cjs, which replaces only what calls its native binary, nothing on the auth
// path. The first run installs each line (about 2 minutes each).
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureCube } from '../../scripts/ensure-cube.mjs';
import { cubeLine } from '../../scripts/lib/cube-lines.mjs';
import { startCube, type RunningCube } from '../../scripts/lib/cube-server.mjs';
import { CUBE_API_URL, demoCliCommands, writeDemoEnv, writePrivateFile } from '../../scripts/lib/demo-env.mjs';
import { prepareNaiveProject } from '../../scripts/lib/naive-cube.mjs';
import {
  CLAIMS_NAMESPACE,
  CUBE_AUDIENCE,
  ORDERS_BY_TENANT_AND_REGION,
  SERVICE_VIEWER,
  startStack,
  type Stack,
} from '../../scripts/lib/stack.mjs';
import { CLI, jsonOf, runBin, type CliResult } from '../support/cli';
import { ALL_CHECKS_PASS } from '../support/probe';
import { CubeSocket, loadOverHttp, STACK_TRACE_LINE, type CubeAnswer, type SocketMessage } from '../support/real-cube';

// Installing a Cube line the first time takes about two minutes; later runs only re-pack the package.
const INSTALL_AND_START_TIMEOUT_MS = 15 * 60_000;

export const ACME_ROWS = [
  { 'orders.tenant': 'acme', 'orders.region': 'amer', 'orders.count': 2, 'orders.total_amount': 320 },
  { 'orders.tenant': 'acme', 'orders.region': 'emea', 'orders.count': 2, 'orders.total_amount': 200 },
];
export const GLOBEX_EMEA_ROWS = [
  { 'orders.tenant': 'globex', 'orders.region': 'emea', 'orders.count': 2, 'orders.total_amount': 1035 },
];

/** The rows of a Cube result, numeric strings (some drivers return them) turned into numbers. */
export function rowsOf(result: Record<string, unknown> | undefined): Array<Record<string, unknown>> {
  const data = result?.['data'];
  if (!Array.isArray(data)) throw new Error(`Not a Cube result: ${JSON.stringify(result)}`);
  return (data as Array<Record<string, unknown>>).map((row) =>
    Object.fromEntries(
      Object.entries(row).map(([key, value]) => [key, /\.(count|total_amount)$/.test(key) ? Number(value) : value]),
    ),
  );
}

/** Cube 0.33 echoes a message id as sent, 1.x as a string. */
const answersMessage = (id: number) => (message: SocketMessage) => String(message.messageId) === String(id);

export interface RealCube {
  /** The running stack (after the suite's beforeAll). */
  readonly stack: () => Stack;
  load(headers: Record<string, string>): Promise<CubeAnswer>;
}

/**
 * Declares the shared scenarios against one Cube line ("0.33" or "1") and returns a handle for a file's own extras.
 * Installs the line and starts one Cube for the file.
 */
export function realCubeScenarios(lineId: string): RealCube {
  const { version } = cubeLine(lineId);
  let stack: Stack;

  beforeAll(async () => {
    const { projectDir, line } = await ensureCube({ line: lineId });
    stack = await startStack({ projectDir, line });
  }, INSTALL_AND_START_TIMEOUT_MS);

  afterAll(async () => {
    await stack?.stop();
  });

  function load(headers: Record<string, string>): Promise<CubeAnswer> {
    return loadOverHttp(stack.cube.apiUrl, ORDERS_BY_TENANT_AND_REGION, headers);
  }

  /** A refusal as callers must see it: 403, one `error` field naming the failure, nothing that leaks. */
  function expectRefused(answer: CubeAnswer, reason: RegExp, token?: string): void {
    expect(answer.status, answer.text).toBe(403);
    expect(Object.keys(answer.body)).toEqual(['error']);
    expect(answer.body['error']).toMatch(reason);
    expect(answer.text).not.toMatch(STACK_TRACE_LINE);
    expect(answer.text).not.toContain(stack.apiSecret);
    if (token) expect(answer.text).not.toContain(token);
  }

  describe(`Cube ${version} over HTTP`, () => {
    it('refuses a request without a token with 403 "Authentication required" and no stack trace', async () => {
      const answer = await load({});
      expect(answer.status).toBe(403);
      expect(answer.body).toEqual({ error: 'Authentication required' });
      expect(answer.text).not.toMatch(STACK_TRACE_LINE);
    });

    it('serves the embedding service (HS256 + Request-Origin) the rows of its security context only', async () => {
      const answer = await load({ Authorization: stack.serviceToken({ tenant: 'acme' }), ...stack.serviceHeaders });
      expect(answer.status, answer.text).toBe(200);
      expect(rowsOf(answer.body)).toEqual(ACME_ROWS);
    });

    it('accepts "Bearer <token>" as well as the bare token', async () => {
      const answer = await load({
        Authorization: `Bearer ${stack.serviceToken({ tenant: 'acme' })}`,
        ...stack.serviceHeaders,
      });
      expect(answer.status, answer.text).toBe(200);
      expect(rowsOf(answer.body)).toEqual(ACME_ROWS);
    });

    it('reads the token from X-Cube-Authorization when there is no Authorization header', async () => {
      const answer = await load({
        'X-Cube-Authorization': stack.serviceToken({ tenant: 'acme' }),
        ...stack.serviceHeaders,
      });
      expect(answer.status, answer.text).toBe(200);
      expect(rowsOf(answer.body)).toEqual(ACME_ROWS);
    });

    it("serves the customer's app (RS256 from the identity provider) the rows of its namespaced claims only", async () => {
      const answer = await load({ Authorization: await stack.customerToken() });
      expect(answer.status, answer.text).toBe(200);
      expect(rowsOf(answer.body)).toEqual(GLOBEX_EMEA_ROWS);
    });

    // The example's cube.js keeps every query to the tenant the hook read from each path's claim (tenantFilter,
    // contextToAppId): a token without one never reaches the data, and a token's own `tenant` elsewhere decides nothing.
    it('refuses a token without the tenant claim of its path at the hook, on both paths', async () => {
      const service = stack.serviceToken({ region: 'emea' });
      expectRefused(
        await load({ Authorization: service, ...stack.serviceHeaders }),
        /^The token has no tenant claim "tenant"$/,
        service,
      );
      const app = stack.identityProvider.signClaims({
        aud: CUBE_AUDIENCE,
        iss: stack.identityProvider.issuer,
        tenant: 'acme',
        [CLAIMS_NAMESPACE]: { region: 'emea' },
      });
      expectRefused(
        await load({ Authorization: app }),
        /^The token has no tenant claim "\/https:~1~1cube\.example~1claims\/tenant"$/,
        app,
      );
    });

    // Cube ≥ 0.35 takes a truthy `security_context` of the value checkAuth resolves to as the security context; the hook
    // resolves to { security_context: context } for such a context, so the context is the payload on every line.
    it('keeps the payload as the security context when it carries a security_context claim', async () => {
      const token = stack.serviceToken({ tenant: 'acme', security_context: { tenant: 'globex', region: 'emea' } });
      const answer = await load({ Authorization: token, ...stack.serviceHeaders });
      expect(answer.status, answer.text).toBe(200);
      expect(rowsOf(answer.body)).toEqual(ACME_ROWS);
    });

    // The example's model filters by SECURITY_CONTEXT.tenant, which Cube builds by applying CUBEJS_JWT_CLAIMS_NAMESPACE
    // to the context once more; queryRewrite filters by the context's tenant. Two tenants there would leave no row.
    it('gives the data model the context queryRewrite sees, though the namespace claim holds a member named like the namespace', async () => {
      const { identityProvider: idp } = stack;
      const claims = { tenant: 'globex', region: 'emea', [CLAIMS_NAMESPACE]: { tenant: 'acme' } };
      const token = idp.signClaims({ aud: CUBE_AUDIENCE, iss: idp.issuer, [CLAIMS_NAMESPACE]: claims });
      const answer = await load({ Authorization: token });
      expect(answer.status, answer.text).toBe(200);
      expect(rowsOf(answer.body)).toEqual(GLOBEX_EMEA_ROWS);
    });

    it('gives the data model the context queryRewrite sees on the shared-secret path too, whatever the service signs', async () => {
      const answer = await load({
        Authorization: stack.serviceToken({ tenant: 'acme', [CLAIMS_NAMESPACE]: { tenant: 'globex' } }),
        ...stack.serviceHeaders,
      });
      expect(answer.status, answer.text).toBe(200);
      expect(rowsOf(answer.body)).toEqual(ACME_ROWS);
    });

    it('refuses a service token sent without Request-Origin: it goes to the key-set path, where HS256 is not accepted', async () => {
      const token = stack.serviceToken();
      expectRefused(
        await load({ Authorization: token }),
        /^Algorithm "HS256" is not accepted on the key-set path/,
        token,
      );
    });

    it('refuses an identity provider token sent with Request-Origin: embeddable, where RS256 is not accepted', async () => {
      const token = await stack.customerToken();
      expectRefused(
        await load({ Authorization: token, ...stack.serviceHeaders }),
        /^Algorithm "RS256" is not accepted on the shared-secret path/,
        token,
      );
    });

    it('refuses an expired service token, naming the expiry', async () => {
      const token = stack.serviceToken({ tenant: 'acme' }, { expiresInSeconds: -3600 });
      expectRefused(await load({ Authorization: token, ...stack.serviceHeaders }), /^Token expired/, token);
    });

    it('refuses an expired token from the identity provider, naming the expiry', async () => {
      const token = await stack.expiredCustomerToken();
      expectRefused(await load({ Authorization: token }), /^Token expired/, token);
    });

    it('refuses a service token signed with another secret', async () => {
      const forged = stack.serviceToken({ tenant: 'globex' }).replace(/[^.]+$/, 'c2lnbmVkLXdpdGgtYW5vdGhlci1zZWNyZXQ');
      expectRefused(await load({ Authorization: forged, ...stack.serviceHeaders }), /Invalid signature/, forged);
    });

    it.each([
      ['not a JWT at all', 'garbage-that-is-no-token'],
      ['three parts that are not base64url JSON', 'abc.def.ghi'],
    ])('refuses garbage (%s) as malformed without echoing it', async (_what, garbage) => {
      expectRefused(await load({ Authorization: garbage }), /^Malformed token/, garbage);
    });

    // The README's note: Cube logs every refused request's token itself, whatever the hook does.
    it('is logged by Cube with the refused token (masked here by the test harness)', async () => {
      await load({ Authorization: stack.serviceToken({ tenant: 'acme' }) });
      expect(stack.cube.recentLogs()).toMatch(/Algorithm \\?"HS256\\?" is not accepted on the key-set path.*\[token\]/);
    });
  });

  describe(`Cube ${version} over the WebSocket transport`, () => {
    async function handshake(token: string): Promise<{ socket: CubeSocket; answer: SocketMessage }> {
      const socket = await CubeSocket.open(stack.cube.webSocketUrl);
      socket.send({ authorization: token });
      return { socket, answer: await socket.next() };
    }

    it('completes the handshake with a token from the identity provider and answers a query under its claims', async () => {
      const { socket, answer } = await handshake(await stack.customerToken());
      try {
        expect(answer).toEqual({ handshake: true });
        socket.send({ messageId: 1, method: 'load', params: { query: ORDERS_BY_TENANT_AND_REGION } });
        const result = await socket.next(answersMessage(1));
        expect(result.status).toBe(200);
        expect(rowsOf(result.message)).toEqual(GLOBEX_EMEA_ROWS);
      } finally {
        socket.close();
      }
    });

    it('refuses an HS256 token at the handshake (WebSocket messages carry no Request-Origin header)', async () => {
      const token = stack.serviceToken();
      const { socket, answer } = await handshake(token);
      try {
        expect(answer.handshake).toBeUndefined();
        expect(answer.status).toBe(403);
        expect(answer.message?.['error']).toMatch(/^Algorithm "HS256" is not accepted on the key-set path/);
        expect(JSON.stringify(answer)).not.toContain(token);
        expect(JSON.stringify(answer)).not.toContain(stack.apiSecret);
        // Without a handshake, queries on this connection stay unauthorised.
        socket.send({ messageId: 2, method: 'load', params: { query: ORDERS_BY_TENANT_AND_REGION } });
        const refused = await socket.next(answersMessage(2));
        expect(refused).toMatchObject({ status: 403, message: { error: 'Not authorized' } });
      } finally {
        socket.close();
      }
    });

    it("sends no stack trace with a refusal (Cube forwards a thrown error's `stack` over WebSocket in dev mode)", async () => {
      const { socket, answer } = await handshake(stack.serviceToken());
      socket.close();
      expect(answer.status).toBe(403);
      expect(answer.message?.['stack'] ?? '').not.toMatch(STACK_TRACE_LINE);
    });
  });

  describe(`Cube ${version}: cube-dual-auth probe`, () => {
    // The first /meta of a Cube compiles its model: seconds on a busy 2-core machine, not a failure.
    const TIMEOUT = ['--timeout', '30000'];
    const CLAIMS = ['--claims', JSON.stringify(SERVICE_VIEWER)];

    /** Runs the built bin with only the API secret in its environment, the identity provider's token on stdin. */
    async function probe(apiUrl: string, args: string[] = []): Promise<CliResult> {
      const idpToken = await stack.customerToken();
      const result = await runBin(['probe', apiUrl, ...CLAIMS, ...TIMEOUT, '--token', '-', ...args], {
        env: { CUBEJS_API_SECRET: stack.apiSecret },
        stdin: idpToken,
      });
      expect(result.stdout + result.stderr).not.toContain(stack.apiSecret);
      expect(result.stdout + result.stderr).not.toContain(idpToken);
      return result;
    }

    it('passes every check against this Cube with cube-dual-auth, and exits 0', async () => {
      const result = await probe(stack.cube.url);
      expect(result.code, result.stdout + result.stderr).toBe(0);
      expect(result.stdout.split('\n').slice(2, 8)).toEqual(ALL_CHECKS_PASS);
      expect(result.stdout).toMatch(/\nOK: 6 passed, 0 failed, 0 skipped\n$/);
    });

    it('runs the commands `npm run demo -- --keep-running` prints with its demo.env, against this Cube', async () => {
      const dir = mkdtempSync(join(tmpdir(), 'demo-commands-'));
      try {
        const paths = {
          envFile: writeDemoEnv(join(dir, 'demo.env'), { ...stack.authEnvironment, [CUBE_API_URL]: stack.cube.apiUrl }),
          serviceTokenFile: writePrivateFile(join(dir, 'service.token'), stack.serviceToken(SERVICE_VIEWER)),
          customerTokenFile: writePrivateFile(join(dir, 'customer.token'), await stack.customerToken()),
        };
        const [, loadDemoEnv, , probeCommand, , verifyService, verifyCustomer, , token] = demoCliCommands(
          paths,
          SERVICE_VIEWER,
          `"${process.execPath}" "${CLI}"`,
        );
        const shell = (command: string | undefined) =>
          new Promise<{ code: number; stdout: string }>((resolve) => {
            execFile(
              'sh',
              ['-c', `${loadDemoEnv}\n${command}`],
              { env: { PATH: process.env.PATH }, timeout: 60_000 },
              (error, stdout) => resolve({ code: error ? Number(error.code) : 0, stdout }),
            );
          });
        const probed = await shell(probeCommand);
        expect(probed.code, probed.stdout).toBe(0);
        expect(probed.stdout).toMatch(/\nOK: 6 passed, 0 failed, 0 skipped\n$/);
        const service = await shell(verifyService);
        expect(service.code, service.stdout).toBe(0);
        expect(service.stdout).toMatch(/^Verdict {2}OK, accepted on the shared-secret path$/m);
        const customer = await shell(verifyCustomer);
        expect(customer.code, customer.stdout).toBe(0);
        expect(customer.stdout).toMatch(/^Verdict {2}OK, accepted on the key-set path$/m);
        const minted = await shell(token);
        expect(minted.code).toBe(0);
        expect((await load({ Authorization: minted.stdout.trim(), ...stack.serviceHeaders })).status).toBe(200);
        for (const output of [probed, service, customer]) expect(output.stdout).not.toContain(stack.apiSecret);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });

    describe('against a Cube of the same line running the naive hook of bench/naive-cube.js (one more Cube process)', () => {
      let naive: RunningCube | undefined;

      beforeAll(async () => {
        const line = cubeLine(lineId);
        naive = await startCube({
          projectDir: prepareNaiveProject(line),
          line,
          env: { ...stack.authEnvironment },
          redact: stack.redact,
        });
      }, INSTALL_AND_START_TIMEOUT_MS);

      afterAll(async () => {
        await naive?.stop();
      });

      it('fails the checks it answers with 500s (a plain Error thrown by checkAuth), and exits 1', async () => {
        const result = await probe(naive!.apiUrl, ['--json']);
        expect(result.code, result.stdout + result.stderr).toBe(1);
        const report = jsonOf<{
          ok: boolean;
          checks: Array<{ name: string; status: number; verdict: string; reason: string }>;
        }>(result);
        expect(report.ok).toBe(false);
        expect(report.checks.map(({ name, status, verdict }) => [name, status, verdict])).toEqual([
          ['no-token', 500, 'FAIL'],
          ['garbage-token', 500, 'FAIL'],
          ['service-token', 200, 'PASS'],
          ['service-token-without-origin', 500, 'FAIL'],
          ['idp-token', 200, 'PASS'],
          ['idp-token-with-origin', 500, 'FAIL'],
        ]);
        for (const check of report.checks.filter((c) => c.verdict === 'FAIL')) {
          expect(check.reason).toMatch(
            /^expected 403, got 500 \(what Cube answers when checkAuth throws a plain Error\).*: "JsonWebTokenError: /,
          );
        }
      });
    });
  });

  return { stack: () => stack, load };
}
