import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createCheckAuth, type CheckAuth } from '../../../src';
import { runBin, runCli } from '../../support/cli';
import { randomSecret } from '../../support/claims';
import { cubeGateway, startDeployment, type Deployment } from '../../support/deployment';
import { startProxyServer, type ProxyServer } from '../../support/proxy-server';
import { loopbackCertificate, type LoopbackCertificate } from '../../support/tls';

const SECRET = randomSecret(32);
/** Checks sent when no identity provider's token is given: the two of it are skipped. */
const SENT = 4;

let hook: CheckAuth;
let proxy: ProxyServer;
let certificate: LoopbackCertificate;
let plain: Deployment;
let secure: Deployment;
beforeAll(async () => {
  hook = createCheckAuth({ apiSecret: SECRET });
  proxy = await startProxyServer();
  certificate = await loopbackCertificate();
  plain = await startDeployment(cubeGateway(hook));
  secure = await startDeployment(cubeGateway(hook), certificate);
});
afterAll(async () => {
  hook.close();
  await Promise.all([proxy.close(), plain.close(), secure.close()]);
  certificate.remove();
});

describe('probe of an https URL whose server speaks plain http', () => {
  it('says the TLS handshake failed, not a bare EPROTO', async () => {
    const result = await runCli(['probe', plain.url.replace(/^http:/, 'https:')], {
      env: { CUBEJS_API_SECRET: SECRET },
    });
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(
      new RegExp(
        `cannot reach ${new URL(plain.url).host}: TLS handshake failed: does the server speak https\\? \\((EPROTO|ERR_SSL_\\w+)\\)`,
      ),
    );
  });
});

// probe reaches the deployment as an operator's other tools do: through the proxy the environment names, with
// curl's reading of NO_PROXY (the hook's JWKS fetcher reads the same variables the same way).
describe('probe through the proxy the environment names', () => {
  afterEach(() => {
    proxy.connectMode = { kind: 'tunnel' };
  });

  // The deployment's certificate is trusted through NODE_EXTRA_CA_CERTS, which Node reads at start: the built bin runs.
  it('tunnels to an https deployment through HTTPS_PROXY (CONNECT), its certificate verified', async () => {
    const before = proxy.tunnels.length;
    const env = { CUBEJS_API_SECRET: SECRET, HTTPS_PROXY: proxy.url, NODE_EXTRA_CA_CERTS: certificate.caFile };
    const result = await runBin(['probe', secure.url], { env });
    expect(result.code, result.stdout + result.stderr).toBe(0);
    expect(result.stdout).toMatch(/\nOK: 4 passed, 0 failed, 2 skipped\n$/);
    expect(proxy.tunnels.slice(before)).toEqual(Array(SENT).fill(new URL(secure.url).host));
  });

  it('sends an http deployment its checks through HTTP_PROXY', async () => {
    const before = proxy.forwarded.length;
    const result = await runCli(['probe', plain.url], { env: { CUBEJS_API_SECRET: SECRET, HTTP_PROXY: proxy.url } });
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/\nOK: 4 passed, 0 failed, 2 skipped\n$/);
    expect(proxy.forwarded.slice(before)).toEqual(Array(SENT).fill(`${plain.url}/cubejs-api/v1/meta`));
  });

  it('connects directly to a host NO_PROXY lists', async () => {
    const [forwarded, requests] = [proxy.forwarded.length, plain.requests.length];
    const result = await runCli(['probe', plain.url], {
      env: { CUBEJS_API_SECRET: SECRET, HTTP_PROXY: proxy.url, NO_PROXY: '127.0.0.1' },
    });
    expect(result.code).toBe(0);
    expect(proxy.forwarded.length).toBe(forwarded);
    expect(plain.requests.length - requests).toBe(SENT);
  });

  it('a proxy that never answers CONNECT: the first check fails at the deadline, the connection closed', async () => {
    proxy.connectMode = { kind: 'silent' };
    const before = proxy.tunnels.length;
    const result = await runCli(['probe', secure.url, '--timeout', '300'], {
      env: { CUBEJS_API_SECRET: SECRET, HTTPS_PROXY: proxy.url },
    });
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/^ {2}FAIL {2}no-token +- +\d+ ms {2}no complete answer within 300 ms$/m);
    // One CONNECT; none only when this process ran so late that the deadline came before the proxy (here) read it.
    const connects = proxy.tunnels.length - before;
    expect(connects).toBe(connects === 0 && result.lateMs >= 150 ? 0 : 1);
    expect(result.ms).toBeLessThan(1_500 + result.lateMs);
    await proxy.idle();
  });
});
