/* global cube, securityContext */
// Orders of every tenant. Which rows and members a caller sees is decided by the access policies below, from the
// security context cube-dual-auth gives both callers: `tenant` (CUBE_DUAL_AUTH_TENANT_CLAIM) and `groups` (the identity
// provider's CUBE_DUAL_AUTH_GROUPS_CLAIM, the service's `roles`, and `embeddable` for every service token).
cube(`orders`, {
  sql: `SELECT * FROM orders`,

  measures: {
    count: { type: `count` },
    // Counts rows without the primary key: a policy that lists `count` must list `id` too (Cube counts the primary
    // key, and denies `count` without it), which lets that group list the ids. Not deduplicated over a join that
    // multiplies rows, which is what Cube uses the key for: query it on this cube alone.
    order_count: { sql: `COUNT(*)`, type: `number` },
    total_amount: { sql: `amount`, type: `sum` },
  },

  dimensions: {
    id: { sql: `id`, type: `number`, primary_key: true },
    tenant: { sql: `tenant`, type: `string` },
    region: { sql: `region`, type: `string` },
    product: { sql: `product`, type: `string` },
  },

  access_policy: [
    {
      // Analysts: their tenant's orders, without the amounts.
      group: `analyst`,
      member_level: { includes: [`id`, `tenant`, `region`, `product`, `count`] },
      row_level: { filters: [{ member: `tenant`, operator: `equals`, values: [securityContext.tenant] }] },
    },
    {
      // Viewers: how many orders per region, and nothing that names one.
      group: `viewer`,
      member_level: { includes: [`tenant`, `region`, `order_count`] },
      row_level: { filters: [{ member: `tenant`, operator: `equals`, values: [securityContext.tenant] }] },
    },
    {
      // Admins, and every service token (CUBE_DUAL_AUTH_SERVICE_GROUPS=embeddable): every member, their tenant's rows.
      groups: [`admin`, `embeddable`],
      row_level: { filters: [{ member: `tenant`, operator: `equals`, values: [securityContext.tenant] }] },
    },
  ],
});
