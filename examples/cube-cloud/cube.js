// cube.js for a Cube Cloud deployment. cube-dual-auth reads its settings from the deployment's environment variables
// (see README.md). Keep your data source and the rest of your configuration as they are.
const { checkAuth, contextToAppId, contextToGroups, tenantFilter } = require('cube-dual-auth');

// Load the identity provider's keys while Cube starts, so the first user does not wait for them.
checkAuth.prefetch?.().catch((error) => console.warn(`cube-dual-auth: JWKS not loaded yet (${error.message})`));

module.exports = {
  checkAuth,

  // Authorization, the same for both callers: the hook reads the tenant and groups from the claims
  // CUBE_DUAL_AUTH_TENANT_CLAIM (and CUBE_DUAL_AUTH_SERVICE_TENANT_CLAIM, CUBE_DUAL_AUTH_GROUPS_CLAIM, …) name, and
  // refuses a token without its tenant. contextToGroups feeds the access policies of your model (`group:`, not
  // `role:`, on Cube 1.7); contextToAppId gives each tenant its own compiled model.
  contextToGroups,
  contextToAppId,

  // Every query kept to its tenant, for models without row-level policies: one tenant member per cube or view a
  // query may read (adapt the names to your model); a query reading another is refused with a 403.
  queryRewrite: tenantFilter({ orders: 'orders.tenant' }),
};
