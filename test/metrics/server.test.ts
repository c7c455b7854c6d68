// The metrics listener of a real hook: GET /metrics in Prometheus' format on a port of its own, 404 elsewhere, no
// request body taken; a port that cannot be bound, or a bad value, is a configuration error naming the setting.
import { once } from 'node:events';
import { request } from 'node:http';
import { createServer, type AddressInfo, type Server } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createCheckAuth, DualAuthConfigError, type CheckAuth } from '../../src';
import { randomSecret } from '../support/claims';
import { withEnv } from '../support/cube';
import { freePort } from '../../scripts/lib/ports.mjs';

const secret = randomSecret();
const opened: CheckAuth[] = [];
const held: Server[] = [];

afterEach(async () => {
  opened.splice(0).forEach((hook) => hook.close());
  await Promise.all(held.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
});

/** A port something in this process listens on, until the test ends. */
async function portInUse(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  held.push(server);
  await once(server, 'listening');
  return (server.address() as AddressInfo).port;
}

function hookServing(port: number): CheckAuth {
  const hook = createCheckAuth({ apiSecret: secret, metricsPort: port });
  opened.push(hook);
  return hook;
}

interface Answer {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly text: string;
}

function ask(port: number, path: string, method = 'GET', body?: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const sent = request({ host: '127.0.0.1', port, path, method, timeout: 5_000 }, (answer) => {
      let text = '';
      answer.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
      answer.on('end', () => resolve({ status: answer.statusCode ?? 0, headers: answer.headers, text }));
    });
    sent.on('error', reject);
    sent.end(body);
  });
}

describe('the metrics listener', () => {
  it("serves GET /metrics in Prometheus' text format, with what the hook counted", async () => {
    const port = await freePort();
    const hook = hookServing(port);
    await hook(null, 'not-a-token').catch(() => undefined);
    const answer = await ask(port, '/metrics');
    expect(answer.status).toBe(200);
    expect(answer.headers['content-type']).toBe('text/plain; version=0.0.4; charset=utf-8');
    expect(answer.text).toMatch(/^cube_dual_auth_refusals_total\{path="key-set",code="ERR_TOKEN_MALFORMED"\} 1$/m);
    expect(answer.text).not.toContain('not-a-token');
  });

  it('answers 404 to any other path, 405 to another method, and 413 to a request with a body, which it never reads', async () => {
    const port = await freePort();
    hookServing(port);
    expect((await ask(port, '/')).status).toBe(404);
    expect((await ask(port, '/metrics/extra')).status).toBe(404);
    expect((await ask(port, '/metrics', 'DELETE')).status).toBe(405);
    const withBody = await ask(port, '/metrics', 'POST', 'x'.repeat(100_000));
    expect(withBody.status).toBe(413);
    expect(withBody.headers.connection).toBe('close');
  });

  it('frees its port when the hook is closed', async () => {
    const port = await freePort();
    hookServing(port).close();
    hookServing(port);
    expect((await ask(port, '/metrics')).status).toBe(200);
  });

  it('stops createCheckAuth with a DualAuthConfigError naming the option when its port is in use', async () => {
    const port = await portInUse();
    expect(() => createCheckAuth({ apiSecret: secret, metricsPort: port })).toThrow(DualAuthConfigError);
    expect(() => createCheckAuth({ apiSecret: secret, metricsPort: port })).toThrow(
      `option "metricsPort" is ${port}, which is in use on 127.0.0.1`,
    );
  });
});

describe('the metrics listener configured from the environment', () => {
  it('is a configuration error naming CUBE_DUAL_AUTH_METRICS_PORT when the port is in use, not a number, or out of range', async () => {
    const port = await portInUse();
    const cases: Array<[string, RegExp]> = [
      [
        String(port),
        new RegExp(`^cube-dual-auth: CUBE_DUAL_AUTH_METRICS_PORT is ${port}, which is in use on 127\\.0\\.0\\.1`),
      ],
      ['http', /^cube-dual-auth: CUBE_DUAL_AUTH_METRICS_PORT must be a number, got "http"$/],
      ['70000', /^cube-dual-auth: CUBE_DUAL_AUTH_METRICS_PORT must be a port number from 1 to 65535$/],
      ['0', /^cube-dual-auth: CUBE_DUAL_AUTH_METRICS_PORT must be a port number from 1 to 65535$/],
    ];
    for (const [value, message] of cases) {
      await withEnv({ CUBEJS_API_SECRET: secret, CUBE_DUAL_AUTH_METRICS_PORT: value }, async () => {
        const root = await import('../../src');
        expect(() => root.checkAuth, value).toThrow(message);
      });
    }
  });

  it('names CUBE_DUAL_AUTH_METRICS_HOST when the host is no address of this machine', async () => {
    const port = await freePort();
    await withEnv(
      {
        CUBEJS_API_SECRET: secret,
        CUBE_DUAL_AUTH_METRICS_PORT: String(port),
        CUBE_DUAL_AUTH_METRICS_HOST: '192.0.2.1',
      },
      async () => {
        const root = await import('../../src');
        expect(() => root.checkAuth).toThrow(
          /^cube-dual-auth: CUBE_DUAL_AUTH_METRICS_HOST is "192\.0\.2\.1", which is no address of this machine/,
        );
      },
    );
  });

  it('serves from the ready-made hook on CUBE_DUAL_AUTH_METRICS_HOST:CUBE_DUAL_AUTH_METRICS_PORT', async () => {
    const port = await freePort();
    await withEnv(
      {
        CUBEJS_API_SECRET: secret,
        CUBE_DUAL_AUTH_METRICS_PORT: String(port),
        CUBE_DUAL_AUTH_METRICS_HOST: '127.0.0.1',
      },
      async () => {
        const { checkAuth } = await import('../../src');
        try {
          await checkAuth({}, undefined).catch(() => undefined);
          const answer = await ask(port, '/metrics');
          expect(answer.text).toMatch(/^cube_dual_auth_requests_total\{path="none",outcome="refused"\} 1$/m);
        } finally {
          checkAuth.close();
        }
      },
    );
  });
});
