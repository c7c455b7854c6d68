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
// script checks that queryRewrite is identical and that both Cubes return the same rows.
//
// The integration tests also run it on each Cube line (scripts/lib/naive-cube.mjs), as the deployment that
// `cube-dual-auth probe` must fail: its refusals are 500s with stack traces.
const jwt = require('jsonwebtoken');
const jwksClient = require('jwks-rsa');

const SqliteDriver = require('@cubejs-backend/sqlite-driver');
const { openShopDatabase } = require('./data/shop-db');

// The example's queryRewrite refuses with cube-dual-auth's forbidden(); this Cube does not load the package, so a
// refusal is what a hook without one throws: a plain Error (Cube answers 500). The benchmark's tokens carry a tenant.
const forbidden = (message) => new Error(message);

const jwks = jwksClient({ jwksUri: process.env.CUBEJS_JWK_URL });

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

  // Row-level security: whoever the caller is, they see only their tenant's orders (and only
  // their region's, when their token names one). The security context has the same shape on
  // both paths: the service signs `{ tenant }`, the identity provider puts `tenant` in its token.
  queryRewrite: (query, { securityContext }) => {
    const { tenant, region } = securityContext;
    if (!tenant) throw forbidden('The security context has no tenant; refusing to query every tenant\'s data');
    query.filters = [...(query.filters ?? []), { member: 'orders.tenant', operator: 'equals', values: [String(tenant)] }];
    if (region) query.filters.push({ member: 'orders.region', operator: 'equals', values: [String(region)] });
    return query;
  },

  // The data lives in an in-memory SQLite database seeded at start (data/shop-db.js). The database type comes from
  // CUBEJS_DB_TYPE=sqlite, as in the example: Cube 1.7 refuses a `dbType` option (the probe tests run this hook on 1.x).
  driverFactory: async () => new SqliteDriver({ db: await openShopDatabase() }),
};
