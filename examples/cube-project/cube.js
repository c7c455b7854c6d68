// Cube configuration of the example. Everything cube-dual-auth needs comes from the package and the environment
// (see README.md):
//   CUBEJS_API_SECRET                    the secret the embedding service signs its HS256 tokens with
//   CUBEJS_JWK_URL                       your identity provider's JWKS, for its RS256 tokens
//   CUBE_DUAL_AUTH_TENANT_CLAIM          where the identity provider's tokens carry the tenant
//   CUBE_DUAL_AUTH_SERVICE_TENANT_CLAIM  where the service's tokens carry it
const { checkAuth, contextToAppId, forbidden, logger, tenantFilter } = require('cube-dual-auth');

const SqliteDriver = require('@cubejs-backend/sqlite-driver');
const { openShopDatabase } = require('./data/shop-db');

// Load the identity provider's keys while Cube starts, so the first user does not wait for them.
checkAuth.prefetch?.().catch((error) => console.warn(`cube-dual-auth: JWKS not loaded yet (${error.message})`));

// Every query keeps to the caller's tenant, whoever the caller is: the hook reads the tenant from each path's claim
// into the security context (a token without one is refused there), and this adds `orders.tenant = <tenant>` for every
// cube the query reads, refusing a query that reads a cube not listed here.
const keepToTenant = tenantFilter({ orders: 'orders.tenant' });

module.exports = {
  checkAuth,
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
    if (typeof region !== 'string' || region === '')
      throw forbidden("The security context's region must be a non-empty string");
    return { ...kept, filters: [...kept.filters, { member: 'orders.region', operator: 'equals', values: [region] }] };
  },

  // The data lives in an in-memory SQLite database seeded at start (data/shop-db.js). The database
  // type comes from CUBEJS_DB_TYPE=sqlite: Cube 1.7 refuses a `dbType` option, which 0.33 still took.
  driverFactory: async () => new SqliteDriver({ db: await openShopDatabase() }),
};
