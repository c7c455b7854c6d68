// A Cube project set up as the README tells a user to, for the demo and the tests: a cube.js of the README's (or an
// example's) lines and a model, copied into a directory inside an installed Cube line (so that cube.js finds this
// package there), with the data source from Cube's own variables: the seeded orders of examples/cube-project in an
// SQLite file that CUBEJS_DB_NAME names. The environment is the README's, for a Keycloak-style identity provider.
import { cpSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';

/**
 * Writes the project into `<lineDir>/<name>-<pid>/`.
 * @param {object} options
 * @param {string} options.lineDir  the installed Cube line (its projectDir, which holds a copy of the example's data/)
 * @param {string} options.name  the directory's name, before the process id
 * @param {string} options.cubeJs  the text of cube.js
 * @param {string} options.modelDir  the directory holding the model
 * @returns {Promise<{ dir: string, database: string, remove: () => void }>}
 */
export async function prepareReadmeProject({ lineDir, name, cubeJs, modelDir }) {
  const dir = join(lineDir, `${name}-${process.pid}`);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir);
  writeFileSync(join(dir, 'cube.js'), cubeJs);
  cpSync(modelDir, join(dir, 'model'), { recursive: true });
  const database = join(dir, 'orders.sqlite');
  // The line's copy of examples/cube-project/data/ finds the line's sqlite3.
  const { createShopDatabase } = createRequire(join(lineDir, 'cube.js'))('./data/shop-db.js');
  const seeded = await createShopDatabase();
  await new Promise((resolve, reject) =>
    seeded.exec(`VACUUM INTO '${database}'`, (error) => (error ? reject(error) : resolve())),
  );
  await new Promise((resolve) => seeded.close(resolve));
  return { dir, database, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/**
 * The README's environment for a Keycloak-style identity provider: its JWKS URL, audience and issuer, the tenant in
 * `tenant_id` on both paths, the identity provider's groups in `/realm_access/roles` (the service's in `roles`), and
 * `embeddable` for every service token.
 * @param {{ jwksUrl: string, issuer: string, audience: string }} identityProvider
 * @param {string} apiSecret
 * @param {string} database  the SQLite file of prepareReadmeProject
 * @returns {Record<string, string>}
 */
export function readmeEnvironment(identityProvider, apiSecret, database) {
  return {
    CUBEJS_DB_NAME: database,
    CUBEJS_API_SECRET: apiSecret,
    CUBEJS_JWK_URL: identityProvider.jwksUrl,
    CUBEJS_JWT_AUDIENCE: identityProvider.audience,
    CUBEJS_JWT_ISSUER: identityProvider.issuer,
    CUBE_DUAL_AUTH_TENANT_CLAIM: 'tenant_id',
    CUBE_DUAL_AUTH_GROUPS_CLAIM: '/realm_access/roles',
    CUBE_DUAL_AUTH_SERVICE_GROUPS: 'embeddable',
  };
}
