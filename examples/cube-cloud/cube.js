// cube.js for a Cube Cloud deployment (Cube 1.x) whose model holds data access policies: the README's whole set-up, as
// examples/access-policies runs it. cube-dual-auth reads its settings from the deployment's environment variables (see
// README.md). Keep your data source and the rest of your configuration as they are.
const { checkAuth, contextToGroups, logger } = require('cube-dual-auth');

// Load the identity provider's keys while Cube starts, so the first user does not wait for them.
checkAuth.prefetch?.().catch((error) => console.warn(`cube-dual-auth: JWKS not loaded yet (${error.message})`));

module.exports = {
  checkAuth,

  // Authorization, the same for both callers: the hook reads the tenant and groups from the claims
  // CUBE_DUAL_AUTH_TENANT_CLAIM (and CUBE_DUAL_AUTH_SERVICE_TENANT_CLAIM, CUBE_DUAL_AUTH_GROUPS_CLAIM, …) name, and
  // refuses a token without its tenant. contextToGroups feeds the access policies of your model (`group:`, not
  // `role:`, on Cube 1.7), whose row-level filters read `securityContext.tenant`.
  contextToGroups,

  // Cube's own log lines with every token masked: Cube logs the whole token of each request it refuses.
  logger,
};
