// The SQL API's login on Cube 0.33.65, with its own ApiGateway and SQLServer (@cubejs-backend/api-gateway) and only the
// native `registerInterface` and logger set-up replaced (see sql-api-cube-1.integration.test.ts). This line calls
// `checkSqlAuth(request, user)` and compares the password itself: no token can be checked, so every login is refused,
// with a message naming the Cube version the package needs and the one found (src/host-cube.ts, as doctor finds it).
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createCheckAuth, type CheckAuth } from '../../src';
import { ensureCube } from '../../scripts/ensure-cube.mjs';
import { cubeLine } from '../../scripts/lib/cube-lines.mjs';
import { randomSecret } from '../support/claims';

const INSTALL_TIMEOUT_MS = 15 * 60_000;
const line = cubeLine('0.33');

type Callback = (args: unknown) => Promise<unknown>;

let hook: CheckAuth;
let login: Callback;
let native: Record<string, unknown>;
let savedNative: Record<string, unknown>;

beforeAll(async () => {
  if (!existsSync(join(line.projectDir, 'node_modules/@cubejs-backend/api-gateway/package.json')))
    await ensureCube({ line: line.id });
  const requireFromCube = createRequire(join(line.projectDir, 'cube.js'));
  native = requireFromCube('@cubejs-backend/native') as Record<string, unknown>;
  savedNative = { setupLogger: native['setupLogger'], registerInterface: native['registerInterface'] };
  native['setupLogger'] = () => {};
  native['registerInterface'] = async (interfaceOptions: { checkAuth: Callback }) => {
    login = interfaceOptions.checkAuth;
    return {};
  };
  const { ApiGateway } = requireFromCube('@cubejs-backend/api-gateway') as {
    ApiGateway: new (...args: unknown[]) => { initSQLServer(): { init(config: object): Promise<void> } };
  };
  hook = createCheckAuth({ apiSecret: randomSecret(), jwksUri: 'https://idp.example/.well-known/jwks.json' });
  const config = {
    checkAuth: hook,
    checkSqlAuth: hook.checkSqlAuth,
    canSwitchSqlUser: hook.canSwitchSqlUser,
    pgSqlPort: 15432,
  };
  const unused = async () => {
    throw new Error('not reached by a login');
  };
  const gateway = new ApiGateway('unused-secret', unused, unused, () => {}, { ...config, basePath: '/cubejs-api' });
  await gateway.initSQLServer().init(config);
}, INSTALL_TIMEOUT_MS);

afterAll(() => {
  if (native) Object.assign(native, savedNative);
  hook?.close();
});

it('refuses every login on Cube 0.33, which passes no password, naming the Cube it needs and the one it runs on', async () => {
  // The 0.33 native server calls its login callback with the request and the user only.
  const refusal = await login(JSON.parse(JSON.stringify({ request: { id: 'sql-1' }, user: 'alice' }))).then(
    () => undefined,
    (error: unknown) => error as Error,
  );
  expect(refusal).toBeInstanceOf(Error);
  expect(refusal?.message).toBe(
    "cube-dual-auth's checkSqlAuth needs Cube 0.34.27 or later, which passes the SQL password to it; this Cube (0.33.65) passes none",
  );
});
