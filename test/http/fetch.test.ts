import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { fetchThroughProxy } from '../../src/http/fetch';
import { createEmbeddableClient } from '../../src/service';
import { startProxyServer, type ProxyServer } from '../support/proxy-server';
import { loopbackCertificate, runInFreshNode, type LoopbackCertificate } from '../support/tls';

const SAVED_VERSIONS = JSON.stringify({ tags: {}, 'saved-versions': [] });
const DASHBOARD = '0b6e0a5e-7d5f-4c46-9a52-bb1f3f4d9c11';

/** What the test servers answer, by path; every request is recorded with its body. */
function handler(received: Array<{ method: string; url: string; headers: IncomingMessage['headers']; body: string }>) {
  return (request: IncomingMessage, response: ServerResponse): void => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      received.push({ method: request.method ?? '', url: request.url ?? '', headers: request.headers, body });
      if (request.url === '/no-content') return void response.writeHead(204).end();
      if (request.url === '/stall') return void response.writeHead(200).write('{');
      response
        .writeHead(200, [
          ['content-type', 'application/json'],
          ['x-twice', 'a'],
          ['x-twice', 'b'],
        ])
        .end(SAVED_VERSIONS);
    });
  };
}

type FetchInit = Parameters<typeof fetchThroughProxy>[1];

const init = (overrides: Partial<FetchInit> = {}): FetchInit => ({
  method: 'GET',
  headers: {},
  body: undefined,
  redirect: 'manual',
  signal: AbortSignal.timeout(2_000),
  ...overrides,
});

let proxy: ProxyServer;
let server: Server;
let base: string;
const received: Parameters<typeof handler>[0] = [];
beforeAll(async () => {
  proxy = await startProxyServer();
  server = createServer(handler(received));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await Promise.all([proxy.close(), new Promise<void>((resolve) => server.close(() => resolve()))]);
});
afterEach(() => {
  vi.unstubAllEnvs();
});

describe('fetchThroughProxy: the service client’s default fetch', () => {
  it('sends the request through HTTP_PROXY, body and headers as given, and answers as fetch does', async () => {
    vi.stubEnv('HTTP_PROXY', proxy.url);
    const before = proxy.forwarded.length;
    const response = await fetchThroughProxy(
      `${base}/api`,
      init({ method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"a":1}' }),
    );
    expect(response.status).toBe(200);
    expect(response.headers.get('x-twice')).toBe('a, b');
    expect(await response.json()).toEqual(JSON.parse(SAVED_VERSIONS));
    expect(proxy.forwarded.slice(before)).toEqual([`${base}/api`]);
    expect(received.at(-1)).toMatchObject({
      method: 'POST',
      body: '{"a":1}',
      headers: { 'content-length': '7', 'content-type': 'application/json' },
    });
  });

  it('connects directly to a host NO_PROXY lists', async () => {
    vi.stubEnv('HTTP_PROXY', proxy.url);
    vi.stubEnv('NO_PROXY', '127.0.0.1');
    const before = proxy.forwarded.length;
    expect((await fetchThroughProxy(`${base}/api`, init())).status).toBe(200);
    expect(proxy.forwarded.length).toBe(before);
  });

  it('answers a 204 with no body', async () => {
    const response = await fetchThroughProxy(`${base}/no-content`, init());
    expect(response.status).toBe(204);
    expect(response.body).toBeNull();
  });

  it("fails as fetch does: a TypeError with the Node error as its cause, or the signal's reason", async () => {
    vi.stubEnv('HTTP_PROXY', 'http://127.0.0.1:9');
    const refused = await fetchThroughProxy(`${base}/api`, init()).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(TypeError);
    expect((refused as TypeError).cause).toMatchObject({ code: 'ECONNREFUSED' });
    vi.unstubAllEnvs();
    const stalled = await fetchThroughProxy(`${base}/stall`, init({ signal: AbortSignal.timeout(150) }));
    const reading = await stalled.text().catch((e: unknown) => e);
    expect(reading).toMatchObject({ name: 'TimeoutError' });
  });
});

// The service's certificate is trusted through NODE_EXTRA_CA_CERTS, which Node reads at start: the build runs in a child.
describe('the service client through HTTPS_PROXY (CONNECT)', () => {
  let certificate: LoopbackCertificate;
  let secure: Server;
  beforeAll(async () => {
    certificate = await loopbackCertificate();
    secure = createHttpsServer({ key: certificate.key, cert: certificate.cert }, handler(received));
    await new Promise<void>((resolve) => secure.listen(0, '127.0.0.1', resolve));
  });
  afterAll(async () => {
    secure.closeAllConnections();
    await new Promise<void>((resolve) => secure.close(() => resolve()));
    certificate.remove();
  });

  it('tunnels every request to the service, its certificate verified', async () => {
    const baseUrl = `https://127.0.0.1:${(secure.address() as AddressInfo).port}`;
    const before = proxy.tunnels.length;
    const script = `require('./dist/service/index.js').createEmbeddableClient({ apiKey: 'key', baseUrl: ${JSON.stringify(baseUrl)} })
      .listSavedVersions(${JSON.stringify(DASHBOARD)}).then((list) => console.log(JSON.stringify(list)), (error) => console.log(JSON.stringify({ error: error.message })));`;
    const stdout = await runInFreshNode(script, { HTTPS_PROXY: proxy.url, NODE_EXTRA_CA_CERTS: certificate.caFile });
    expect(JSON.parse(stdout)).toEqual({ tags: {}, savedVersions: [] });
    expect(proxy.tunnels.slice(before)).toEqual([new URL(baseUrl).host]);
    expect(received.at(-1)).toMatchObject({
      method: 'GET',
      url: `/api/v1/embeddables/${DASHBOARD}/saved-versions`,
      headers: { authorization: 'Bearer key' },
    });
  });

  it('the client in this process, without proxy variables, refuses the certificate it does not trust', async () => {
    const baseUrl = `https://127.0.0.1:${(secure.address() as AddressInfo).port}`;
    const error = await createEmbeddableClient({ apiKey: 'key', baseUrl, retries: 0 })
      .listSavedVersions(DASHBOARD)
      .catch((e: unknown) => e);
    expect(error).toMatchObject({
      code: 'ERR_NETWORK',
      message: expect.stringMatching(
        /DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT_IN_CHAIN|UNABLE_TO_VERIFY_LEAF_SIGNATURE/,
      ),
    });
  });
});
