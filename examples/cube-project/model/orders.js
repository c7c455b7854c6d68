/* global cube, SECURITY_CONTEXT */
// Orders of every tenant. Which rows a caller sees is decided in cube.js (queryRewrite), from the
// security context that cube-dual-auth resolved from the caller's token, and again here, from the
// same context as the data model sees it (SECURITY_CONTEXT): a second lock on the same door. Cube
// applies CUBEJS_JWT_CLAIMS_NAMESPACE to SECURITY_CONTEXT; cube-dual-auth makes that the very context
// queryRewrite gets. A context without a tenant never gets here (the hook refuses a token without its path's tenant
// claim, and tenantFilter a context without a tenant); filter() would then filter nothing.
cube(`orders`, {
  sql: `SELECT * FROM orders WHERE ${SECURITY_CONTEXT.tenant.filter('tenant')}`,

  measures: {
    count: {
      type: `count`,
    },
    total_amount: {
      sql: `amount`,
      type: `sum`,
    },
  },

  dimensions: {
    id: {
      sql: `id`,
      type: `number`,
      primary_key: true,
    },
    tenant: {
      sql: `tenant`,
      type: `string`,
    },
    region: {
      sql: `region`,
      type: `string`,
    },
    product: {
      sql: `product`,
      type: `string`,
    },
    created_at: {
      sql: `created_at`,
      type: `time`,
    },
  },
});
