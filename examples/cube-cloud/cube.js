// cube.js for a Cube Cloud deployment. Authentication is two lines: the import below and the
// `checkAuth` entry; cube-dual-auth reads its settings from the deployment's environment
// variables (see README.md). Keep your data source and the rest of your configuration as they are.
const { checkAuth, forbidden } = require('cube-dual-auth');

// Load the identity provider's keys while Cube starts, so the first user does not wait for them.
checkAuth.prefetch?.().catch((error) => console.warn(`cube-dual-auth: JWKS not loaded yet (${error.message})`));

module.exports = {
  checkAuth,

  // Optional row-level security from the security context. Both callers carry the same shape:
  // the embedding service signs `{ tenant }`, your identity provider puts `tenant` in its token
  // (under CUBEJS_JWT_CLAIMS_NAMESPACE when that is set). Adapt the member names to your model.
  // Set CUBE_DUAL_AUTH_REQUIRED_CLAIMS=tenant so that a token without one is refused before it gets here;
  // forbidden() answers 403 where a plain Error would be a 500 (with a stack trace on Cube 0.33).
  queryRewrite: (query, { securityContext }) => {
    const { tenant } = securityContext;
    if (!tenant) throw forbidden('The security context has no tenant; refusing to query every tenant\'s data');
    query.filters = [...(query.filters ?? []), { member: 'orders.tenant', operator: 'equals', values: [String(tenant)] }];
    return query;
  },
};
