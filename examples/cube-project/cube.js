// Cube configuration of the example. Authentication is two lines: the import below and the
// `checkAuth` entry. Everything else is configured through the environment (see README.md):
//   CUBEJS_API_SECRET  the secret the embedding service signs its HS256 tokens with
//   CUBEJS_JWK_URL     your identity provider's JWKS, for its RS256 tokens
const { checkAuth, forbidden } = require('cube-dual-auth');

const SqliteDriver = require('@cubejs-backend/sqlite-driver');
const { openShopDatabase } = require('./data/shop-db');

// Load the identity provider's keys while Cube starts, so the first user does not wait for them.
checkAuth.prefetch?.().catch((error) => console.warn(`cube-dual-auth: JWKS not loaded yet (${error.message})`));

module.exports = {
  checkAuth,

  // Row-level security: whoever the caller is, they see only their tenant's orders (and only
  // their region's, when their token names one). The security context has the same shape on
  // both paths: the service signs `{ tenant }`, the identity provider puts `tenant` in its token.
  // CUBE_DUAL_AUTH_REQUIRED_CLAIMS=tenant refuses a token without one before it gets here; an empty
  // tenant still does, and forbidden() makes that a 403 (a plain Error would be a 500, with a stack on Cube 0.33).
  queryRewrite: (query, { securityContext }) => {
    const { tenant, region } = securityContext;
    if (!tenant) throw forbidden('The security context has no tenant; refusing to query every tenant\'s data');
    query.filters = [...(query.filters ?? []), { member: 'orders.tenant', operator: 'equals', values: [String(tenant)] }];
    if (region) query.filters.push({ member: 'orders.region', operator: 'equals', values: [String(region)] });
    return query;
  },

  // The data lives in an in-memory SQLite database seeded at start (data/shop-db.js). The database
  // type comes from CUBEJS_DB_TYPE=sqlite: Cube 1.7 refuses a `dbType` option, which 0.33 still took.
  driverFactory: async () => new SqliteDriver({ db: await openShopDatabase() }),
};
