// cube.ts for a TypeScript project: the configuration typed with Cube's own `CreateOptions`. cube-dual-auth's
// `checkAuth` fits Cube's `CheckAuthFn` as it is, on Cube 0.33 and 1.x alike: no cast. Compile it to the cube.js
// Cube loads (tsc with "module": "node16" turns `export =` into `module.exports =`).
import type { CreateOptions } from '@cubejs-backend/server-core';
import { checkAuth, contextToAppId, logger, tenantFilter } from 'cube-dual-auth';

const keepToTenant = tenantFilter({ orders: 'orders.tenant' });

const config: CreateOptions = {
  checkAuth,
  // One compiled data model per tenant, the tenant the hook read from CUBE_DUAL_AUTH_TENANT_CLAIM.
  contextToAppId,
  // Cube's own log lines, every token in them masked: Cube logs the token of each request it refuses.
  logger,
  // Every query kept to the caller's tenant (see ../cube-project/cube.js). Cube's types want a promise back.
  queryRewrite: async (query, context) => keepToTenant(query, context),
};

export = config;
