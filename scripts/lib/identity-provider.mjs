// A real OpenID provider (node-oidc-provider, an OpenID-certified implementation) standing in for
// the customer's identity provider: it issues RS256 JWT access tokens carrying a `kid` and serves
// the matching public keys at its JWKS endpoint, exactly what Cube's key-set path consumes.
import { createPrivateKey, generateKeyPair, randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import { promisify } from 'node:util';
import jwt from 'jsonwebtoken';
import { freePort } from './ports.mjs';

/**
 * Starts the provider on 127.0.0.1.
 * @param {object} options
 * @param {string} options.audience  the Cube API's identifier; becomes `aud` of every access token
 * @param {string} [options.claimsNamespace]  when set, the app's claims are nested under this claim
 * @param {Array<{clientId: string, claims: object, tokenLifetimeSeconds?: number}>} options.apps
 *   the applications allowed to ask for tokens (client credentials grant), with the claims their tokens carry
 */
export async function startIdentityProvider({ audience, claimsNamespace, apps }) {
  const port = await freePort();
  const issuer = `http://127.0.0.1:${port}`;
  const clients = apps.map((app) => ({ ...app, clientSecret: randomBytes(24).toString('base64url') }));
  const appFor = (clientId) => clients.find((client) => client.clientId === clientId);

  // The keys the provider publishes at its JWKS endpoint, and the one it signs with. A real IdP rotates
  // by changing its configuration; node-oidc-provider reads `jwks` once, so a change starts a new
  // provider instance with the same issuer and clients behind the same port.
  let publishedKeys = [await createSigningKey()];
  let signingKid = publishedKeys[0].kid;
  // Generating an RSA key takes from tens of milliseconds to seconds: done ahead, publishing is immediate.
  const unpublishedKeys = new Map();
  const Provider = await withoutProductionWarnings(async () => (await import('oidc-provider')).default);
  const createProvider = (keys) =>
    withoutProductionWarnings(
      async () =>
        new Provider(issuer, {
          clients: clients.map(({ clientId, clientSecret }) => ({
            client_id: clientId,
            client_secret: clientSecret,
            grant_types: ['client_credentials'],
            redirect_uris: [],
            response_types: [],
          })),
          jwks: { keys },
          features: {
            devInteractions: { enabled: false },
            clientCredentials: { enabled: true },
            resourceIndicators: {
              enabled: true,
              defaultResource: () => audience,
              useGrantedResource: () => true,
              getResourceServerInfo: (_ctx, resource, client) => {
                if (resource !== audience) throw new Error(`unknown resource ${resource}`);
                return {
                  scope: 'cube',
                  audience,
                  accessTokenFormat: 'jwt',
                  accessTokenTTL: appFor(client.clientId).tokenLifetimeSeconds ?? 300,
                  jwt: { sign: { alg: 'RS256', kid: signingKid } },
                };
              },
            },
          },
          extraTokenClaims: (_ctx, token) => {
            const { claims } = appFor(token.clientId);
            return claimsNamespace ? { [claimsNamespace]: claims } : claims;
          },
          // Lifetime of the grant record itself; the access token's lifetime is accessTokenTTL above.
          ttl: { ClientCredentials: (_ctx, token) => token.resourceServer?.accessTokenTTL ?? 300 },
        }),
    );
  let handle = (await createProvider(publishedKeys)).callback();
  // What is served changes only once the new instance is ready: no request sees a half-made provider.
  const publish = async (keys) => {
    handle = (await createProvider(keys)).callback();
    publishedKeys = keys;
  };

  const server = createServer((request, response) => handle(request, response));
  // Idle connections are closed by the client, never here: fetch keeps one for 4 s, and when a busy machine runs its
  // timer late, it would send the next request on a socket that Node's 5 s timeout here is closing (ECONNRESET).
  server.keepAliveTimeout = 0;
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', resolve);
  });

  return {
    issuer,
    audience,
    jwksUrl: `${issuer}/jwks`,
    /** The `kid` of the key tokens are signed with now. */
    get kid() {
      return signingKid;
    },
    /** Key rotation, step 0: makes a new signing key, not published yet; resolves with its kid. */
    async createKey() {
      const key = await createSigningKey();
      unpublishedKeys.set(key.kid, key);
      return key.kid;
    },
    /** Key rotation, step 1: publishes a created key next to the current ones; tokens are still signed as before. */
    async publishKey(kid) {
      const key = unpublishedKeys.get(kid);
      if (!key) throw new Error(`No unpublished key ${kid}; create it first`);
      await publish([...publishedKeys, key]);
      unpublishedKeys.delete(kid);
    },
    /** Key rotation, step 2: tokens issued from now on are signed with this published key. */
    signWith(kid) {
      if (!publishedKeys.some((key) => key.kid === kid))
        throw new Error(`Key ${kid} is not published; publish it before signing with it`);
      signingKid = kid;
    },
    /** Key rotation, step 3: the JWKS stops publishing this key (not the one tokens are signed with). */
    async withdrawKey(kid) {
      if (kid === signingKid)
        throw new Error(`Key ${kid} still signs tokens; sign with another one before withdrawing it`);
      await publish(publishedKeys.filter((key) => key.kid !== kid));
    },
    /**
     * Signs any claims with the key tokens are signed with now, as whoever controls this provider could (say, a
     * tenant's own IdP): for tests that another issuer's key never verifies a token naming this one's issuer.
     */
    signClaims(claims) {
      const { kid, ...jwk } = publishedKeys.find((key) => key.kid === signingKid);
      return jwt.sign(claims, createPrivateKey({ key: jwk, format: 'jwk' }), {
        algorithm: 'RS256',
        keyid: kid,
        expiresIn: 300,
      });
    },
    /** Asks for an access token the way a backend does: client credentials grant, HTTP basic auth. */
    async issueToken(clientId) {
      const app = appFor(clientId);
      if (!app) throw new Error(`No app "${clientId}" is registered with the identity provider`);
      const response = await fetch(`${issuer}/token`, {
        method: 'POST',
        headers: {
          authorization: `Basic ${Buffer.from(`${clientId}:${app.clientSecret}`).toString('base64')}`,
          'content-type': 'application/x-www-form-urlencoded',
        },
        body: new URLSearchParams({ grant_type: 'client_credentials', resource: audience, scope: 'cube' }),
        signal: AbortSignal.timeout(5_000),
      });
      const body = await response.json();
      if (!response.ok)
        throw new Error(
          `The identity provider refused a token for ${clientId}: ${body.error_description ?? body.error}`,
        );
      return body.access_token;
    },
    close: () => closeServer(server),
  };
}

// The provider warns, rightly, that its in-memory storage and this Node version are not for a
// production identity provider. This one lives for one demo or test run, so the warnings are noise.
async function withoutProductionWarnings(run) {
  const warn = console.warn;
  console.warn = (...args) => {
    if (!String(args[0]).includes('oidc-provider WARNING')) warn(...args);
  };
  try {
    return await run();
  } finally {
    console.warn = warn;
  }
}

// Generated off the main thread, so that requests in flight are not stalled.
async function createSigningKey() {
  const { privateKey } = await promisify(generateKeyPair)('rsa', { modulusLength: 2048 });
  return {
    ...privateKey.export({ format: 'jwk' }),
    kid: `demo-${randomBytes(4).toString('hex')}`,
    alg: 'RS256',
    use: 'sig',
  };
}

function closeServer(server) {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}
