/* global cube */
// Orders of every tenant. Which rows a caller sees is decided in cube.js (queryRewrite),
// from the security context that cube-dual-auth resolved from the caller's token.
cube(`orders`, {
  sql: `SELECT * FROM orders`,

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
