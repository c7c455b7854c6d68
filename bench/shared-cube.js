// ONE CUBE, TWO HOOKS, for `npm run bench:e2e` only, never to deploy: the example Cube project whose checkAuth is
// cube-dual-auth, except for requests with the header `x-bench-hook: ceiling`, which get the ceiling of
// bench/ceiling-cube.js (no verification, a fixed security context). Measured by turns like every other case, the two
// hooks share one process: its ratio has no part of the difference between two Cube processes, which the control
// (the ceiling in two processes) shows to be larger than what the target judges.
//
// bench/e2e.mjs copies this file to .cache/shared-cube/cube.js, next to links to the example's model/, data/ and
// packages, and passes the ceiling's two contexts in BENCH_CEILING_SECURITY_CONTEXTS, as for the ceiling.
const { checkAuth, forbidden } = require('cube-dual-auth');

const SqliteDriver = require('@cubejs-backend/sqlite-driver');
const { openShopDatabase } = require('./data/shop-db');

checkAuth.prefetch?.().catch((error) => console.warn(`cube-dual-auth: JWKS not loaded yet (${error.message})`));

const contexts = JSON.parse(process.env.BENCH_CEILING_SECURITY_CONTEXTS);

function ceiling(req) {
  req.securityContext = req.headers['request-origin'] === 'embeddable' ? contexts.service : contexts.app;
}

module.exports = {
  // Both hooks pay for this one header read.
  checkAuth: (req, auth) => (req.headers['x-bench-hook'] === 'ceiling' ? ceiling(req) : checkAuth(req, auth)),

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
