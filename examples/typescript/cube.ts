// cube.ts for a TypeScript project: the configuration typed with Cube's own `CreateOptions`. cube-dual-auth's
// `checkAuth` fits Cube's `CheckAuthFn` as it is, on Cube 0.33 and 1.x alike: no cast. Compile it to the cube.js
// Cube loads (tsc with "module": "node16" turns `export =` into `module.exports =`).
import type { CreateOptions } from '@cubejs-backend/server-core';
import { checkAuth, forbidden } from 'cube-dual-auth';

const config: CreateOptions = {
  checkAuth,

  // Row-level security from the security context cube-dual-auth set (see ../cube-project/cube.js).
  queryRewrite: async (query, { securityContext }) => {
    const tenant = (securityContext as { tenant?: unknown } | undefined)?.tenant;
    if (typeof tenant !== 'string') throw forbidden('The security context has no tenant; refusing to query every tenant\'s data');
    query.filters = [...(query.filters ?? []), { member: 'orders.tenant', operator: 'equals', values: [tenant] }];
    return query;
  },
};

export = config;
