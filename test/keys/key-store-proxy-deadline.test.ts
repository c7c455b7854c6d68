// A proxy that accepts the connection and never answers CONNECT must see that connection closed when jwksTimeoutMs
// fires, and no other until the cooldown has passed: neither a socket left open nor a retry (docs/failure-modes.md,
// "Defaults"). The proxy is real, on 127.0.0.1; the deadline moves on fake timers, and the proxy's own 'close' events
// say when a connection ends.
import { connect, createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { DualAuthError } from '../../src/errors';
import { createCheckAuth, type CheckAuth } from '../../src/hook/check-auth';
import { KeyStore, type KeyStoreOptions } from '../../src/keys';
import { createClock, type FakeClock } from '../support/clock';
import { conditions } from '../support/conditions';
import { randomSecret, timed } from '../support/claims';
import { generateKeyPair } from '../support/keys';
import { appRequest, rejectionOf } from '../support/requests';
import { signToken } from '../support/tokens';

const DEADLINE = 600;
/** Where the proxy is asked to tunnel to (or, over plain http, to forward to); nothing is ever sent there. */
const JWKS_URL = 'https://127.0.0.1:9/realms/acme/protocol/openid-connect/certs';
const PLAIN_JWKS_URL = 'http://127.0.0.1:9/realms/acme/protocol/openid-connect/certs';
const ISSUER = 'https://127.0.0.1:9/realms/acme';

/** A proxy that accepts connections, reads what comes and answers nothing: what it sees is counted. */
interface SilentProxy {
  readonly url: string;
  /**
   * Connections accepted in all, once every connection begun before this call has reached the proxy: a connection of
   * the test's own, begun last and accepted last, is the barrier (and is not counted).
   */
  accepted(): Promise<number>;
  /** Connections still open on the proxy's side. */
  readonly open: () => number;
  /** Resolves once `count` connections in all have sent their request (a CONNECT, or a plain-http GET). */
  requestsReceived(count: number): Promise<void>;
  /** Resolves once `count` connections in all have been closed. */
  closed(count: number): Promise<void>;
  close(): Promise<void>;
}

async function startSilentProxy(): Promise<SilentProxy> {
  /** Every connection accepted, in order, barriers included. */
  const arrivals: Socket[] = [];
  const barriers = new Set<Socket>();
  let requests = 0;
  let closes = 0;
  const { wake, until } = conditions();
  const server: Server = createServer((socket) => {
    arrivals.push(socket);
    wake();
    socket.once('data', () => {
      requests++;
      wake();
    });
    // Read and dropped: unread, it would hide the client's closing from the proxy.
    socket.resume();
    socket.on('error', () => undefined);
    socket.once('close', () => {
      if (barriers.has(socket)) return;
      closes++;
      wake();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    accepted: async () => {
      const barrier = connect(port, '127.0.0.1');
      await new Promise((resolve) => barrier.once('connect', resolve));
      const arrived = (): Socket | undefined => arrivals.find((socket) => socket.remotePort === barrier.localPort);
      await until(() => arrived() !== undefined);
      const index = arrivals.indexOf(arrived() as Socket);
      barriers.add(arrivals[index] as Socket);
      barrier.destroy();
      return arrivals.slice(0, index).filter((socket) => !barriers.has(socket)).length;
    },
    open: () => arrivals.filter((socket) => !barriers.has(socket) && !socket.destroyed).length,
    requestsReceived: (count) => until(() => requests >= count),
    closed: (count) => until(() => closes >= count),
    close: () =>
      new Promise((resolve) => {
        for (const socket of arrivals) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

let proxy: SilentProxy;
let clock: FakeClock;

beforeEach(async () => {
  proxy = await startSilentProxy();
  clock = createClock();
  vi.stubEnv('HTTPS_PROXY', proxy.url);
  vi.stubEnv('HTTP_PROXY', proxy.url);
  // Only the deadline's timer is fake: sockets, their events and Node's own timers stay real.
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
});
afterEach(async () => {
  vi.useRealTimers();
  vi.unstubAllEnvs();
  await proxy.close();
});

/** Moves the key store's clock and the deadline's timers together, running what they start. */
async function advance(ms: number): Promise<void> {
  clock.advance(ms);
  await vi.advanceTimersByTimeAsync(ms);
}

describe('a proxy that accepts the connection and never answers CONNECT (nor, for an http URL, the GET)', () => {
  describe.each([
    ['the JWKS URL', JWKS_URL],
    ['discovery', { discoverFrom: ISSUER }],
    ['a plain-http JWKS URL (its GET never answered)', PLAIN_JWKS_URL],
  ] as const)('key store, %s', (_, jwksUri) => {
    let store: KeyStore;
    beforeEach(() => {
      const options: KeyStoreOptions = {
        jwksUri,
        algorithms: ['RS256'],
        cooldownMs: 30_000,
        maxAgeMs: 600_000,
        staleIfErrorMs: 0,
        timeoutMs: DEADLINE,
        maxResponseBytes: 524_288,
        clock: clock.now,
      };
      store = new KeyStore(options);
    });
    afterEach(() => store.close());

    it('sees its one connection closed when the deadline fires, and no other until the cooldown has passed', async () => {
      const pending = rejectionOf(Promise.resolve(store.getKey('kid-1')));
      await proxy.requestsReceived(1);
      await advance(DEADLINE - 1);
      expect(proxy.open()).toBe(1);
      await advance(1);
      await proxy.closed(1);
      expect(await pending).toMatchObject({ status: 403, code: 'ERR_JWKS_TIMEOUT' });
      expect(proxy.open()).toBe(0);

      // 900 ms on and to the end of the cooldown: nothing retries, and a request is refused without a connection.
      await advance(900);
      expect(await rejectionOf(Promise.resolve(store.getKey('kid-1')))).toMatchObject({ code: 'ERR_JWKS_TIMEOUT' });
      await advance(30_000 - 901);
      expect(store.describe().fetches).toEqual({ started: 1, succeeded: 0, failed: 1 });
      expect({ accepted: await proxy.accepted(), open: proxy.open() }).toEqual({ accepted: 1, open: 0 });

      // Once the cooldown has passed, the next request fetches again: one more connection, closed alike.
      await advance(1);
      const again = rejectionOf(Promise.resolve(store.getKey('kid-1')));
      await proxy.requestsReceived(2);
      await advance(DEADLINE);
      await proxy.closed(2);
      expect(await again).toMatchObject({ code: 'ERR_JWKS_TIMEOUT' });
      expect({
        accepted: await proxy.accepted(),
        open: proxy.open(),
        fetches: store.describe().fetches.started,
      }).toEqual({
        accepted: 2,
        open: 0,
        fetches: 2,
      });
    });
  });

  describe.each([
    ['the JWKS URL', { jwksUri: JWKS_URL }, {}],
    ['discovery', { issuer: ISSUER }, { iss: ISSUER }],
  ] as const)('the hook, %s', (_, configured, claims) => {
    let checkAuth: CheckAuth;
    beforeEach(() => {
      checkAuth = createCheckAuth({ apiSecret: randomSecret(), ...configured, jwksTimeoutMs: DEADLINE });
    });
    afterEach(() => checkAuth.close());

    it("refuses at the deadline with the proxy's connection closed, and the next request without a new one", async () => {
      const token = signToken(timed({ sub: 'alice', ...claims }), { key: generateKeyPair('RS256', { kid: 'kid-1' }) });
      const refused = rejectionOf(checkAuth(appRequest(), token));
      await proxy.requestsReceived(1);
      await advance(DEADLINE);
      await proxy.closed(1);
      expect(await refused).toMatchObject<Partial<DualAuthError>>({ status: 403, code: 'ERR_JWKS_TIMEOUT' });
      await advance(900);
      expect(await rejectionOf(checkAuth(appRequest(), token))).toMatchObject({ code: 'ERR_JWKS_TIMEOUT' });
      expect({ accepted: await proxy.accepted(), open: proxy.open() }).toEqual({ accepted: 1, open: 0 });
    });
  });
});
