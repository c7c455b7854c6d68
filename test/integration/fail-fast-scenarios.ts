// A configuration that cannot work stops the real `cubejs-server` at start, on both Cube lines: the example's cube.js
// takes `require('cube-dual-auth').checkAuth`, which checks the environment, so Cube exits while it loads cube.js,
// with the message naming the variable, and never listens. The package is installed from `npm pack` as a user
// installs it (build first).
import { once } from 'node:events';
import { createServer, type AddressInfo } from 'node:net';
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureCube } from '../../scripts/ensure-cube.mjs';
import { cubeLine } from '../../scripts/lib/cube-lines.mjs';
import { startCube } from '../../scripts/lib/cube-server.mjs';
import { createRedactor } from '../../scripts/lib/redact.mjs';
import { TENANT_CLAIMS } from '../../scripts/lib/stack.mjs';
import { randomSecret } from '../support/claims';
import { listens, runCube } from '../support/cube-run';

const INSTALL_TIMEOUT_MS = 15 * 60_000;
/**
 * How long a run may take before vitest gives up on it. Not the verdict: a Cube that stops exits by itself, one that
 * does not is seen listening and killed, whatever the machine's load (docs/development.md#timing-dependent-tests).
 */
const RUN_TIMEOUT_MS = 120_000;

export function failFastScenarios(lineId: string): void {
  describe(`Cube ${lineId} stops at start when the environment cannot work`, () => {
    const line = cubeLine(lineId);
    const secret = randomSecret();

    beforeAll(async () => {
      await ensureCube({ line: lineId });
    }, INSTALL_TIMEOUT_MS);

    it.each([
      [
        'a JWKS URL that is not http(s)',
        { CUBEJS_API_SECRET: secret, CUBEJS_JWK_URL: 'ftp://idp.example/jwks' },
        'cube-dual-auth: CUBEJS_JWK_URL must be an http(s) URL, not "ftp://idp.example/jwks"',
      ],
      [
        'identity providers that are not JSON',
        { CUBEJS_API_SECRET: secret, CUBE_DUAL_AUTH_PROVIDERS: '[{"issuer": }]' },
        'cube-dual-auth: CUBE_DUAL_AUTH_PROVIDERS is not valid JSON',
      ],
      [
        'a weak API secret',
        { CUBEJS_API_SECRET: 'changeme' },
        'cube-dual-auth: CUBEJS_API_SECRET is 8 base64 characters, 6 bytes: 48 bits of key material, under 32 bytes',
      ],
      [
        'a metrics port that is no port',
        { CUBEJS_API_SECRET: secret, CUBE_DUAL_AUTH_METRICS_PORT: '99999' },
        'cube-dual-auth: CUBE_DUAL_AUTH_METRICS_PORT must be a port number from 1 to 65535',
      ],
    ])(
      '%s: exits non-zero by itself, naming the variable, without listening',
      { timeout: RUN_TIMEOUT_MS },
      async (_, env, message) => {
        const run = await runCube(line, env);
        expect(run.code, run.output).not.toBe(0);
        expect(typeof run.code, `exit ${String(run.code)}, listened: ${run.listened}; ${run.output}`).toBe('number');
        expect(run.output).toContain(message);
        expect(run.listened).toBe(false);
        expect(run.output).not.toContain(secret);
      },
    );

    it(
      'a metrics port in use: exits non-zero by itself, naming the variable, without listening',
      { timeout: RUN_TIMEOUT_MS },
      async () => {
        const taken = createServer().listen(0, '127.0.0.1');
        await once(taken, 'listening');
        const { port } = taken.address() as AddressInfo;
        try {
          const run = await runCube(line, { CUBEJS_API_SECRET: secret, CUBE_DUAL_AUTH_METRICS_PORT: String(port) });
          expect(run.code, run.output).not.toBe(0);
          expect(typeof run.code, `exit ${String(run.code)}, listened: ${run.listened}; ${run.output}`).toBe('number');
          expect(run.output).toContain(
            `cube-dual-auth: CUBE_DUAL_AUTH_METRICS_PORT is ${port}, which is in use on 127.0.0.1`,
          );
          expect(run.listened).toBe(false);
        } finally {
          taken.close();
        }
      },
    );

    it(
      'says how to run with a weak secret anyway, and starts with CUBE_DUAL_AUTH_ALLOW_WEAK_SECRET=true (warning once)',
      { timeout: RUN_TIMEOUT_MS + 60_000 },
      async () => {
        const refused = await runCube(line, { CUBEJS_API_SECRET: 'changeme' });
        expect(refused.output).toContain('to run with it anyway, set CUBE_DUAL_AUTH_ALLOW_WEAK_SECRET to true');
        const lines: string[] = [];
        const cube = await startCube({
          projectDir: line.projectDir,
          line,
          // The example's tenant filter needs its tenant claims, as the example is run everywhere else.
          env: { CUBEJS_API_SECRET: 'changeme', CUBE_DUAL_AUTH_ALLOW_WEAK_SECRET: 'true', ...TENANT_CLAIMS },
          redact: createRedactor([]),
          onLine: (text: string) => lines.push(text),
        });
        try {
          expect(await listens(cube.port)).toBe(true);
          const warnings = lines.filter((text) =>
            text.includes('cube-dual-auth: CUBEJS_API_SECRET is 8 base64 characters, 6 bytes: 48 bits of key material'),
          );
          expect(warnings).toHaveLength(1);
        } finally {
          await cube.stop();
        }
      },
    );
  });
}
