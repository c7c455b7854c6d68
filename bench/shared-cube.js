// ONE CUBE, TWO HOOKS, for `npm run bench:e2e` only, never to deploy: the example Cube project whose checkAuth is
// cube-dual-auth, except for requests with the header `x-bench-hook: ceiling`, which get the ceiling of
// bench/ceiling-cube.js (no verification, a fixed security context). Measured by turns like every other case, the two
// hooks share one process: its ratio has no part of the difference between two Cube processes, which the control
// (the ceiling in two processes) shows to be larger than what the target judges.
//
// bench/e2e.mjs copies this file to .cache/shared-cube/cube.js, next to links to the example's model/, data/ and
// packages, and passes the ceiling's two contexts in BENCH_CEILING_SECURITY_CONTEXTS, as for the ceiling.
const { checkAuth, contextToAppId, forbidden, logger, tenantFilter } = require('cube-dual-auth');

const SqliteDriver = require('@cubejs-backend/sqlite-driver');
const { openShopDatabase } = require('./data/shop-db');

checkAuth.prefetch?.().catch((error) => console.warn(`cube-dual-auth: JWKS not loaded yet (${error.message})`));

const contexts = JSON.parse(process.env.BENCH_CEILING_SECURITY_CONTEXTS);

function ceiling(req) {
  req.securityContext = req.headers['request-origin'] === 'embeddable' ? contexts.service : contexts.app;
}

// Every query keeps to the caller's tenant, whoever the caller is: the hook reads the tenant from each path's claim
// into the security context (a token without one is refused there), and this adds `orders.tenant = <tenant>` for every
// cube the query reads, refusing a query that reads a cube not listed here.
const keepToTenant = tenantFilter({ orders: 'orders.tenant' });

module.exports = {
  // Both hooks pay for this one header read.
  checkAuth: (req, auth) => (req.headers['x-bench-hook'] === 'ceiling' ? ceiling(req) : checkAuth(req, auth)),

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

  // The data lives in an in-memory SQLite database seeded at start (data/shop-db.js).
  dbType: 'sqlite',
  driverFactory: async () => new SqliteDriver({ db: await openShopDatabase() }),
};
