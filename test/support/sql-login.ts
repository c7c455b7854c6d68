import { afterAll, afterEach, beforeAll } from 'vitest';
import type { DualAuthOptions } from '../../src';
import { resolveOptions } from '../../src/config/options';
import type { AuthEvent } from '../../src/events';
import { Authenticator } from '../../src/hook/authenticator';
import { sqlAuthOf } from '../../src/hook/sql-login';
import { randomSecret } from './claims';
import { createClock } from './clock';
import { startJwksServer, type JwksServer } from './jwks-server';
import { generateKeyPair, jwks } from './keys';

/**
 * Seconds since 1970 that the tests' clock starts at: tokens are issued then. The time of the run, so that checkAuth,
 * which judges by the system's clock, accepts the same tokens.
 */
export const NOW = Math.floor(Date.now() / 1000);

/** How a suite's SQL login is built beside its options. */
export interface SqlLoginSettings {
  /** Receives the hook's events. */
  readonly events?: AuthEvent[];
  readonly namespaces?: string[];
  /** The Cube version the login would find; default none (outside Cube). */
  readonly cubeVersion?: () => string | undefined;
}

/**
 * The set-up of a SQL login suite, to call at the top of its file: an API secret, a SQL key secret, an identity
 * provider's key served on 127.0.0.1 for the suite, and SQL logins on a clock at {@link NOW} that the test moves, each
 * closed after its test (with whatever else the test puts in `made`).
 */
export function sqlLoginSuite() {
  const apiSecret = randomSecret();
  const keySecret = randomSecret();
  const idpKey = generateKeyPair('RS256');
  let server: JwksServer | undefined;
  beforeAll(async () => {
    server = await startJwksServer(jwks(idpKey));
  });
  afterAll(() => server?.close());
  const made: { close(): void }[] = [];
  afterEach(() => {
    for (const hook of made.splice(0)) hook.close();
  });
  const idp = {
    /** The identity provider's JWKS URL, once the suite has started. */
    get url(): string {
      if (server === undefined) throw new Error('the identity provider starts in beforeAll');
      return server.url;
    },
  };

  /** The options of a hook that accepts the identity provider's tokens and SQL keys, with tenant and groups. */
  const keyOptions = (more: DualAuthOptions = {}): DualAuthOptions => ({
    jwksUri: idp.url,
    apiSecret,
    sqlKeySecrets: [keySecret],
    tenantClaim: 'org',
    groupsClaim: 'roles',
    ...more,
  });

  /** The SQL login of `options`, judged by a clock the test moves. */
  function sqlLogin(options: DualAuthOptions, settings: SqlLoginSettings = {}) {
    const clock = createClock(NOW * 1000);
    const { events, namespaces = [], cubeVersion = () => undefined } = settings;
    const authenticator = new Authenticator(
      resolveOptions({ ...options, ...(events && { onEvent: (event: AuthEvent) => events.push(event) }) }),
      clock.now,
    );
    made.push(authenticator);
    return { ...sqlAuthOf(authenticator, { namespaces, cubeVersion }), clock };
  }

  return { apiSecret, keySecret, idpKey, idp, made, keyOptions, sqlLogin };
}
