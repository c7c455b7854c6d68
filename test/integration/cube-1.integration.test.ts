// Cube 1.7.43, the line users run today: the shared end-to-end scenarios (see real-cube-scenarios.ts), then what only
// 1.x does: X-Cube-Authorization read before Authorization, and the SQL API's call to checkAuth.
import { cpSync, mkdirSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../../scripts/ensure-cube.mjs';
import { cubeLine } from '../../scripts/lib/cube-lines.mjs';
import { CLAIMS_NAMESPACE, CUBE_AUDIENCE } from '../../scripts/lib/stack.mjs';
import { randomSecret } from '../support/claims';
import { ACME_ROWS, realCubeScenarios, rowsOf } from './real-cube-scenarios';
import { severalProvidersScenarios } from './several-providers-scenarios';

const cube = realCubeScenarios('1');
severalProvidersScenarios('1');

describe('Cube 1.7.43: X-Cube-Authorization', () => {
  it('is read before Authorization, as the 1.x gateway passes it to checkAuth', async () => {
    const stack = cube.stack();
    const answer = await cube.load({
      'X-Cube-Authorization': stack.serviceToken({ tenant: 'acme' }),
      Authorization: 'not-the-token-that-counts',
      ...stack.serviceHeaders,
    });
    expect(answer.status, answer.text).toBe(200);
    expect(rowsOf(answer.body)).toEqual(ACME_ROWS);
  });
});

type SqlCheckAuth = (args: { request: object; token: string }) => Promise<{ securityContext: unknown }>;

/**
 * The SQL API's checkAuth, in this process, as Cube 1.7.43 registers it: the real ApiGateway and SQLServer of the
 * installed Cube with this package's installed hook; only the native calls (logger set-up, interface registration)
 * are caught, so the function Cube hands its Rust SQL server can be called here as that server calls it.
 */
function sqlApiCheckAuth(options: object, calls: unknown[]): Promise<SqlCheckAuth> {
  const requireFromCube = createRequire(join(cubeLine('1').projectDir, 'cube.js'));
  const native = requireFromCube('@cubejs-backend/native') as Record<string, unknown>;
  let registered: { checkAuth: SqlCheckAuth } | undefined;
  native['setupLogger'] = () => {};
  native['registerInterface'] = async (interfaceOptions: { checkAuth: SqlCheckAuth }) => {
    registered = interfaceOptions;
    return {};
  };
  const { ApiGateway } = requireFromCube('@cubejs-backend/api-gateway') as {
    ApiGateway: new (...args: unknown[]) => { getSQLServer(): { init(o: object): Promise<void> } };
  };
  const { createCheckAuth } = requireFromCube('cube-dual-auth') as typeof import('../../src');
  const hook = createCheckAuth(options);
  const checkAuth = (req: unknown, auth?: unknown) => {
    calls.push(structuredClone(req));
    return hook(req, auth);
  };
  const unused = async () => {
    throw new Error('not reached by checkAuth');
  };
  const gateway = new ApiGateway('unused-secret', unused, unused, () => {}, {
    checkAuth,
    basePath: '/cubejs-api',
    sqlUser: 'cube',
    sqlPassword: 'unused',
  });
  return gateway
    .getSQLServer()
    .init({ sqlUser: 'cube', sqlPassword: 'unused' })
    .then(() => {
      if (!registered) throw new Error('Cube registered no SQL interface');
      return registered.checkAuth;
    });
}

describe('Cube 1.7.43: the SQL API calls checkAuth with { id, meta } and the token, without headers', () => {
  // What Cube's Rust SQL server passes (a new object per call: the gateway sets the security context on it).
  const sqlRequest = () => ({ id: 'sql-request-1', meta: { protocol: 'postgres', apiType: 'sql' } });

  it('sends the call to the key-set path: an identity provider token gets its namespaced claims as the security context', async () => {
    const stack = cube.stack();
    const calls: unknown[] = [];
    const checkAuth = await sqlApiCheckAuth(
      {
        jwksUri: stack.identityProvider.jwksUrl,
        audience: CUBE_AUDIENCE,
        issuer: stack.identityProvider.issuer,
        claimsNamespace: CLAIMS_NAMESPACE,
      },
      calls,
    );
    const { securityContext } = await checkAuth({ request: sqlRequest(), token: await stack.customerToken() });
    expect(securityContext).toEqual({ tenant: 'globex', region: 'emea' });
    expect(calls).toEqual([sqlRequest()]);
  });

  it('refuses a service token there with a 403 naming the header it lacks (the call carries none)', async () => {
    const stack = cube.stack();
    const checkAuth = await sqlApiCheckAuth(
      { apiSecret: stack.apiSecret, jwksUri: stack.identityProvider.jwksUrl },
      [],
    );
    const refusal = await checkAuth({ request: sqlRequest(), token: stack.serviceToken({ tenant: 'acme' }) }).then(
      () => undefined,
      (error: unknown) => error as { status?: number; message?: string; constructor: { name: string } },
    );
    expect(refusal?.constructor.name).toBe('CubejsHandlerError');
    expect(refusal).toMatchObject({ status: 403 });
    expect(refusal?.message).toMatch(/^Algorithm "HS256" is not accepted on the key-set path: .*Request-Origin header/);
  });
});

describe("Cube 1.7.43: the Cube Cloud example's cube.js", () => {
  /** Cube 1.7.43's own check of a cube.js (OptsHandler.sanitizeOptions: the dbType refusal, then the options schema). */
  function sanitize(config: object): unknown {
    const requireFromCube = createRequire(join(cubeLine('1').projectDir, 'cube.js'));
    const { OptsHandler } = requireFromCube('@cubejs-backend/server-core/dist/src/core/OptsHandler') as {
      OptsHandler: { prototype: { sanitizeOptions(this: object, options: object): unknown } };
    };
    // sanitizeOptions also asks whether Cube runs in dev mode and whether CUBEJS_DB_TYPE is set: Cube Cloud sets it.
    const handler = Object.assign(Object.create(OptsHandler.prototype) as object, { isDevMode: () => true });
    return OptsHandler.prototype.sanitizeOptions.call(handler, config);
  }

  it("passes 1.x's option checks, logger included, and hands Cube the groups of the hook's security context", () => {
    // Loaded from the 1.x project, so that its require('cube-dual-auth') finds the installed package, as on Cube Cloud.
    const dir = join(cubeLine('1').projectDir, '.cube-cloud-check');
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir);
    cpSync(join(repoRoot, 'examples/cube-cloud/cube.js'), join(dir, 'cube.js'));
    // Taking checkAuth checks the deployment's environment, as Cube Cloud would start with it: a strong API secret and
    // a tenant claim. The context options read that environment when Cube calls them, so they are called within it.
    const environment: Record<string, string> = {
      CUBEJS_API_SECRET: randomSecret(),
      CUBE_DUAL_AUTH_TENANT_CLAIM: 'tenant',
    };
    const saved = Object.fromEntries(Object.keys(environment).map((name) => [name, process.env[name]]));
    Object.assign(process.env, environment);
    type Context = { securityContext: object };
    let config: {
      checkAuth: { close(): void };
      contextToGroups: (context: Context) => string[];
      logger: (message: string, params: object) => void;
    };
    try {
      config = createRequire(join(dir, 'cube.js'))('./cube.js') as typeof config;
      expect(Object.keys(config).sort()).toEqual(['checkAuth', 'contextToGroups', 'logger']);
      expect(sanitize(config)).toMatchObject({ checkAuth: config.checkAuth, logger: config.logger });
      expect(config.contextToGroups({ securityContext: { tenant: 'acme', groups: ['analyst'] } })).toEqual(['analyst']);
      expect(() => config.contextToGroups({ securityContext: { tenant: 'acme' } })).toThrow();
    } finally {
      for (const [name, value] of Object.entries(saved)) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
      rmSync(dir, { recursive: true, force: true });
    }
    config.checkAuth.close();
    // What the example project's cube.js had before, and 1.7 refuses:
    expect(() => sanitize({ ...config, dbType: 'sqlite' })).toThrow(/CreateOptions\.dbType was removed in v1\.7\.0/);
  });
});
