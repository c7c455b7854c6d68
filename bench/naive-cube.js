// THE BASELINE of `npm run bench:e2e`, not a recommendation: the example Cube project with the
// checkAuth most deployments start from instead of cube-dual-auth. The HS256 branch is the snippet
// the embedding service publishes (jsonwebtoken 9 with the API secret as a string); the RS256
// branch is the usual jwks-rsa recipe (getSigningKey(kid), then jsonwebtoken with the key as a PEM
// string, jwks-rsa's default cache). Do not copy it: it verifies every request from scratch,
// answers refused tokens with 500s and stack traces instead of 403s, and does not limit the
// algorithms on the key-set path.
//
// bench/e2e.mjs copies this file to .cache/naive-cube/cube.js, next to links to the example's
// model/, data/ and packages (jsonwebtoken 9 and jwks-rsa 3 are the ones cube-dual-auth brought
// into the example; Cube 0.33's own jsonwebtoken 8.5.1 is not the one a project installing
// jsonwebtoken today gets). Everything except checkAuth is the example's cube.js unchanged; the
// script checks that contextToAppId, logger and queryRewrite are identical and that both Cubes return the same rows.
//
// The integration tests also run it on each Cube line (scripts/lib/naive-cube.mjs), as the deployment that
// `cube-dual-auth probe` must fail: its refusals are 500s with stack traces.
const jwt = require('jsonwebtoken');
const jwksClient = require('jwks-rsa');

const SqliteDriver = require('@cubejs-backend/sqlite-driver');
const { openShopDatabase } = require('./data/shop-db');

// The example's Cube options from cube-dual-auth, as the example takes them: they read the security context, whichever
// hook set it, so this Cube runs the same queries and logs as the example's while its checkAuth is another.
const { contextToAppId, forbidden, logger, tenantFilter } = require('cube-dual-auth');

const jwks = jwksClient({ jwksUri: process.env.CUBEJS_JWK_URL });

// Every query keeps to the caller's tenant, whoever the caller is: the hook reads the tenant from each path's claim
// into the security context (a token without one is refused there), and this adds `orders.tenant = <tenant>` for every
// cube the query reads, refusing a query that reads a cube not listed here.
const keepToTenant = tenantFilter({ orders: 'orders.tenant' });

module.exports = {
  checkAuth: async (req, token) => {
    if (req.headers['request-origin'] === 'embeddable') {
      req.securityContext = jwt.verify(token, process.env.CUBEJS_API_SECRET);
      return;
    }
    const { header } = jwt.decode(token, { complete: true }) ?? {};
    const key = await jwks.getSigningKey(header?.kid);
    const payload = jwt.verify(token, key.getPublicKey(), {
      audience: process.env.CUBEJS_JWT_AUDIENCE,
      issuer: process.env.CUBEJS_JWT_ISSUER,
    });
    const namespace = process.env.CUBEJS_JWT_CLAIMS_NAMESPACE;
    req.securityContext = namespace ? payload[namespace] : payload;
  },

  // One compiled data model per tenant: the model's SECURITY_CONTEXT filter differs per tenant.
  contextToAppId,
  // Cube's own log lines, with every token in them masked.
  logger,

  // The tenant's rows, and only its region's when the context names one (the identity provider's tokens here do).
  // forbidden() makes a refusal a 403; a plain Error would be a 500, with a stack on Cube 0.33.
  queryRewrite: (query, context) => {
    const kept = keepToTenant(query, context);
    const { region } = context.securityContext;
    if (region === undefined) return kept;
    if (typeof region !== 'string' || region === '') throw forbidden('The security context\'s region must be a non-empty string');
    return { ...kept, filters: [...kept.filters, { member: 'orders.region', operator: 'equals', values: [region] }] };
  },

  // The data lives in an in-memory SQLite database seeded at start (data/shop-db.js). The database type comes from
  // CUBEJS_DB_TYPE=sqlite, as in the example: Cube 1.7 refuses a `dbType` option (the probe tests run this hook on 1.x).
  driverFactory: async () => new SqliteDriver({ db: await openShopDatabase() }),
};
