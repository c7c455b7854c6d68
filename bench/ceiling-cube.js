// THE CEILING of `npm run bench:e2e`, never a hook to deploy: the example Cube project with a
// checkAuth that verifies nothing. It reads the one header that chooses the path and hands Cube a
// fixed security context for that path (the same tenant and region the real tokens carry), so
// Cube runs the same query and returns the same rows as with a real hook. No hook can make Cube
// answer faster than this; cube-dual-auth's requests/s are reported as a fraction of it.
//
// bench/e2e.mjs copies this file to .cache/ceiling-cube/cube.js, next to links to the example's
// model/, data/ and packages, and passes the two contexts in BENCH_CEILING_SECURITY_CONTEXTS
// (JSON: { service, app }), taken from the same place as the claims of the tokens it sends.
// Everything except checkAuth is the example's cube.js unchanged; the script checks that contextToAppId, logger and
// queryRewrite are identical and that every Cube returns the same rows.
const SqliteDriver = require('@cubejs-backend/sqlite-driver');
const { openShopDatabase } = require('./data/shop-db');

// The example's Cube options from cube-dual-auth, as the example takes them: they read the security context, whichever
// hook set it, so this Cube runs the same queries and logs as the example's while its checkAuth is another.
const { contextToAppId, forbidden, logger, tenantFilter } = require('cube-dual-auth');

const contexts = JSON.parse(process.env.BENCH_CEILING_SECURITY_CONTEXTS);

// Every query keeps to the caller's tenant, whoever the caller is: the hook reads the tenant from each path's claim
// into the security context (a token without one is refused there), and this adds `orders.tenant = <tenant>` for every
// cube the query reads, refusing a query that reads a cube not listed here.
const keepToTenant = tenantFilter({ orders: 'orders.tenant' });

module.exports = {
  checkAuth: (req) => {
    req.securityContext = req.headers['request-origin'] === 'embeddable' ? contexts.service : contexts.app;
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

  // The data lives in an in-memory SQLite database seeded at start (data/shop-db.js).
  dbType: 'sqlite',
  driverFactory: async () => new SqliteDriver({ db: await openShopDatabase() }),
};
