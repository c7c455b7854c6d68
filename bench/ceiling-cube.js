// THE CEILING of `npm run bench:e2e`, never a hook to deploy: the example Cube project with a
// checkAuth that verifies nothing. It reads the one header that chooses the path and hands Cube a
// fixed security context for that path (the same tenant and region the real tokens carry), so
// Cube runs the same query and returns the same rows as with a real hook. No hook can make Cube
// answer faster than this; cube-dual-auth's requests/s are reported as a fraction of it.
//
// bench/e2e.mjs copies this file to .cache/ceiling-cube/cube.js, next to links to the example's
// model/, data/ and packages, and passes the two contexts in BENCH_CEILING_SECURITY_CONTEXTS
// (JSON: { service, app }), taken from the same place as the claims of the tokens it sends.
// Everything except checkAuth is the example's cube.js unchanged; the script checks that
// queryRewrite is identical and that every Cube returns the same rows.
const SqliteDriver = require('@cubejs-backend/sqlite-driver');
const { openShopDatabase } = require('./data/shop-db');

// The example's queryRewrite refuses with cube-dual-auth's forbidden(); this Cube does not load the package, so a
// refusal is what a hook without one throws: a plain Error (Cube answers 500). The benchmark's tokens carry a tenant.
const forbidden = (message) => new Error(message);

const contexts = JSON.parse(process.env.BENCH_CEILING_SECURITY_CONTEXTS);

module.exports = {
  checkAuth: (req) => {
    req.securityContext = req.headers['request-origin'] === 'embeddable' ? contexts.service : contexts.app;
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

  // The data lives in an in-memory SQLite database seeded at start (data/shop-db.js).
  dbType: 'sqlite',
  driverFactory: async () => new SqliteDriver({ db: await openShopDatabase() }),
};
