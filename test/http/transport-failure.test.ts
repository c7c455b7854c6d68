import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exchange } from '../../src/http/exchange';
import { transportHint } from '../../src/http/transport-failure';

let server: Server;
let port: number;
beforeAll(async () => {
  server = createServer((_request, response) => response.end('{}'));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as { port: number }).port;
});
afterAll(() => new Promise((resolve) => server.close(resolve)));

describe('transportHint', () => {
  it('says the TLS handshake failed when an https URL reaches a plain http server (a real one on 127.0.0.1)', async () => {
    const url = new URL(`https://127.0.0.1:${port}/jwks.json`);
    const error = await exchange(url, { headers: {}, timeoutMs: 5000, env: {} }, async () => 'answered').then(
      () => undefined,
      (failure: unknown) => failure,
    );
    expect(transportHint(error)).toMatch(
      /^TLS handshake failed: does the server speak https\? \((EPROTO|ERR_SSL_\w+)\)$/,
    );
  });

  it('names OpenSSL codes that mean the answer was no TLS, and leaves other errors to their code', () => {
    expect(transportHint({ code: 'ERR_SSL_WRONG_VERSION_NUMBER', message: 'wrong version number' })).toBe(
      'TLS handshake failed: does the server speak https? (ERR_SSL_WRONG_VERSION_NUMBER)',
    );
    expect(transportHint({ code: 'ERR_SSL_SSLV3_ALERT_HANDSHAKE_FAILURE', message: 'sslv3 alert' })).toBeUndefined();
    expect(transportHint({ code: 'ECONNREFUSED', message: 'connect ECONNREFUSED' })).toBeUndefined();
    expect(transportHint(new Error('no code'))).toBeUndefined();
    expect(transportHint(undefined)).toBeUndefined();
  });
});
