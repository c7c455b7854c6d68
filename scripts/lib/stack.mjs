// The whole scene the demo shows and the integration tests check, set up in one place:
// a real OpenID provider, and the example Cube project served by `cubejs-server` with
// cube-dual-auth configured through the environment, as in a real deployment.
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { startCube } from './cube-server.mjs';
import { startIdentityProvider } from './identity-provider.mjs';
import { createRedactor } from './redact.mjs';
import { SERVICE_ORIGIN_HEADER, signServiceToken } from './service-token.mjs';

/** The Cube API's identifier at the identity provider: the `aud` of its tokens. */
export const CUBE_AUDIENCE = 'https://cube.example/api';
/** Where the identity provider puts the claims meant for Cube (Auth0-style namespaced claim). */
export const CLAIMS_NAMESPACE = 'https://cube.example/claims';
/**
 * Where the example's callers carry the tenant: the identity provider under its namespaced claim (an RFC 6901 pointer,
 * its "/" written "~1"), the service at the top of the securityContext it signs.
 */
export const TENANT_CLAIMS = {
  CUBE_DUAL_AUTH_TENANT_CLAIM: `/${CLAIMS_NAMESPACE.replace(/~/g, '~0').replace(/\//g, '~1')}/tenant`,
  CUBE_DUAL_AUTH_SERVICE_TENANT_CLAIM: 'tenant',
};
/** Whose data the embedding service shows: the security context it signs. */
export const SERVICE_VIEWER = { tenant: 'acme' };
/** The customer's application registered at the identity provider, and the claims its tokens carry. */
// Its tokens live an hour, so the curl commands of `npm run demo -- --keep-running` stay usable.
export const CUSTOMER_APP = {
  clientId: 'globex-dashboard',
  claims: { tenant: 'globex', region: 'emea' },
  tokenLifetimeSeconds: 3600,
};
/** A second registration whose tokens live one second, to show what happens to an expired one. */
const SHORT_LIVED_APP = {
  clientId: 'globex-dashboard-short-lived',
  claims: CUSTOMER_APP.claims,
  tokenLifetimeSeconds: 1,
};
/** Clock skew the hook allows (its default, set explicitly so we know how long expiry takes). */
const CLOCK_TOLERANCE_SECONDS = 5;

/**
 * Starts the identity provider, then Cube on the example project (which must be installed:
 * see ensureCube()). Resolves once Cube is ready. Always call `stop()`.
 * @param {object} options
 * @param {string} options.projectDir  the installed example Cube project
 * @param {string} [options.cubeDir]  holds the node_modules/ with Cube when not projectDir (see startCube)
 * @param {import('./cube-lines.mjs').CubeLine} [options.line]  the Cube line installed there (default 1.7.43)
 * @param {(line: string) => void} [options.onCubeLine]  receives Cube's log lines, tokens and secret masked
 * @param {Record<string, string> | ((identityProvider: object) => Promise<Record<string, string>>)} [options.env]  more
 *   environment for Cube, over the stack's own; a function gets the running identity provider (to name its issuer)
 */
export async function startStack({ projectDir, cubeDir, line, onCubeLine, env = {} }) {
  const apiSecret = randomBytes(32).toString('base64url');
  const redact = createRedactor([apiSecret]);
  const identityProvider = await startIdentityProvider({
    audience: CUBE_AUDIENCE,
    claimsNamespace: CLAIMS_NAMESPACE,
    apps: [CUSTOMER_APP, SHORT_LIVED_APP],
  });
  let cube;
  try {
    // Asked for now so that it has expired by the time anyone wants an expired token.
    const shortLivedToken = await identityProvider.issueToken(SHORT_LIVED_APP.clientId);
    const moreEnv = typeof env === 'function' ? await env(identityProvider) : env;
    const authEnvironment = {
      CUBEJS_API_SECRET: apiSecret,
      CUBEJS_JWK_URL: identityProvider.jwksUrl,
      CUBEJS_JWT_AUDIENCE: CUBE_AUDIENCE,
      CUBEJS_JWT_ISSUER: identityProvider.issuer,
      CUBEJS_JWT_CLAIMS_NAMESPACE: CLAIMS_NAMESPACE,
      CUBE_DUAL_AUTH_CLOCK_TOLERANCE: String(CLOCK_TOLERANCE_SECONDS),
      ...TENANT_CLAIMS,
      ...moreEnv,
    };
    cube = await startCube({ projectDir, cubeDir, line, redact, onLine: onCubeLine, env: authEnvironment });
    return {
      cube,
      identityProvider,
      apiSecret,
      /** The hook's settings Cube runs with (the API secret included): what `cube-dual-auth verify` needs to judge alike. */
      authEnvironment,
      redact,
      /** An HS256 token signed with the API secret, as the embedding service's backend makes them. */
      serviceToken: (securityContext = SERVICE_VIEWER, options) =>
        signServiceToken(apiSecret, securityContext, options),
      serviceHeaders: SERVICE_ORIGIN_HEADER,
      /** A fresh RS256 access token from the identity provider, as the customer's application gets it. */
      customerToken: () => identityProvider.issueToken(CUSTOMER_APP.clientId),
      /** A token the identity provider issued with a one-second lifetime, once it is past expiry. */
      expiredCustomerToken: () => waitUntilExpired(shortLivedToken),
      async stop() {
        await cube?.stop();
        await identityProvider.close();
      },
    };
  } catch (error) {
    await cube?.stop();
    await identityProvider.close();
    throw error;
  }
}

/** Describes one query: what the caller asks Cube, the same for every caller. */
export const ORDERS_BY_TENANT_AND_REGION = {
  measures: ['orders.count', 'orders.total_amount'],
  dimensions: ['orders.tenant', 'orders.region'],
  order: { 'orders.tenant': 'asc', 'orders.region': 'asc' },
};

async function waitUntilExpired(token) {
  const { exp } = JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString());
  const expiredAtMs = (exp + CLOCK_TOLERANCE_SECONDS + 1) * 1000;
  const waitMs = expiredAtMs - Date.now();
  // Bounded by construction: at most lifetime + tolerance + 1 s after the token was issued.
  if (waitMs > 0) await sleep(waitMs);
  return token;
}
