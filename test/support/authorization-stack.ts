// A real Cube of one line serving a fixture project of test/fixtures/authorization/ with authorization configured
// through the environment, a real OpenID provider for the identity provider's tokens, and service tokens signed with
// the API secret. The fixture is copied into a directory inside the installed line (removed at stop), so that its
// cube.js finds this package and Cube's driver as the example's does. Cube's output is kept raw (only the API secret
// masked), so that a test can tell whether a token reached it.
import { randomBytes } from 'node:crypto';
import { cpSync, mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { ensureCube, exampleProject, repoRoot } from '../../scripts/ensure-cube.mjs';
import { startCube, type RunningCube } from '../../scripts/lib/cube-server.mjs';
import { startIdentityProvider, type RunningIdentityProvider } from '../../scripts/lib/identity-provider.mjs';
import jwt from 'jsonwebtoken';

export const AUDIENCE = 'https://cube.example/api';
/** Where the identity provider puts Cube's claims (Auth0-style); tenant and groups are read there by pointers. */
export const NAMESPACE = 'https://cube.example/claims';
const FIXTURES = join(repoRoot, 'test/fixtures/authorization');
const ESCAPED_NAMESPACE = NAMESPACE.replace(/~/g, '~0').replace(/\//g, '~1');

/** The identity provider's applications, by client id: the claims under NAMESPACE of the tokens it issues them. */
export const IDP_APPS = {
  'acme-admin': { tenant: 'acme', groups: ['admin'] },
  'globex-admin': { tenant: 'globex', groups: ['admin'] },
  'initech-admin': { tenant: 'initech', groups: ['admin'] },
  'umbrella-admin': { tenant: 'umbrella', groups: ['admin'] },
  'acme-analyst': { tenant: 'acme', groups: ['analyst'] },
  'acme-intern': { tenant: 'acme', groups: ['intern'] },
  'acme-counter': { tenant: 'acme', groups: ['counter'] },
  'no-tenant': { groups: ['admin'] },
  // Claims the group only the workforce provider gives: refused, so no token of this provider passes for that one's.
  'acme-claims-auditor': { tenant: 'acme', groups: ['auditor'] },
} as const;
export type IdpApp = keyof typeof IDP_APPS;

/**
 * A second identity provider, the company's workforce directory: its tokens carry a tenant and no groups, and the
 * deployment gives every one of them the group WORKFORCE_GROUP (the provider's `groups`), which no token may claim.
 */
export const WORKFORCE_APPS = { 'workforce-acme': { tenant: 'acme' } } as const;
export type WorkforceApp = keyof typeof WORKFORCE_APPS;
export const WORKFORCE_GROUP = 'auditor';

export interface AuthorizationStack {
  readonly cube: RunningCube;
  readonly identityProvider: RunningIdentityProvider;
  readonly workforce: RunningIdentityProvider;
  readonly apiSecret: string;
  /** Every token handed out so far, to look for in Cube's output. */
  readonly tokens: string[];
  serviceToken(securityContext: object): string;
  idpToken(app: IdpApp): Promise<string>;
  workforceToken(app: WorkforceApp): Promise<string>;
  readonly serviceHeaders: Record<string, string>;
  stop(): Promise<void>;
}

/**
 * The authorization environment: the service signs the securityContext it registered, `{ tenant, roles }`, so the
 * tenant claim is `tenant` and its groups are `roles` (the default service groups claim); the identity provider's
 * tokens carry both under NAMESPACE, read by RFC 6901 pointers (the provider's own tenantClaim, the top-level
 * groups claim). Every service token also gets the group `embeddable`; every token of the workforce provider, the group
 * WORKFORCE_GROUP.
 */
export function authorizationEnvironment(
  idp: RunningIdentityProvider,
  workforce: RunningIdentityProvider,
  apiSecret: string,
): Record<string, string> {
  return {
    CUBEJS_API_SECRET: apiSecret,
    CUBEJS_JWK_URL: '',
    CUBEJS_JWT_ISSUER: '',
    CUBE_DUAL_AUTH_PROVIDERS: JSON.stringify([
      { issuer: idp.issuer, jwksUri: idp.jwksUrl, audience: AUDIENCE, tenantClaim: `/${ESCAPED_NAMESPACE}/tenant` },
      {
        issuer: workforce.issuer,
        jwksUri: workforce.jwksUrl,
        audience: AUDIENCE,
        tenantClaim: `/${ESCAPED_NAMESPACE}/tenant`,
        groups: [WORKFORCE_GROUP],
      },
    ]),
    CUBE_DUAL_AUTH_TENANT_CLAIM: 'tenant',
    CUBE_DUAL_AUTH_GROUPS_CLAIM: `/${ESCAPED_NAMESPACE}/groups`,
    CUBE_DUAL_AUTH_SERVICE_GROUPS: 'embeddable',
  };
}

/** What a suite adds to the stack: Cube's environment beyond the authorization's, and a reader of Cube's output. */
export interface StackExtras {
  readonly env?: Record<string, string>;
  readonly onLine?: (line: string) => void;
}

/** Starts the identity provider, then Cube `lineId` on the fixture `fixture` (a directory of test/fixtures/authorization/). */
export async function startAuthorizationStack(
  lineId: string,
  fixture: string,
  extras: StackExtras = {},
): Promise<AuthorizationStack> {
  const { projectDir, line } = await ensureCube({ line: lineId });
  // The project keeps its place beside the orders cube its model requires (test/fixtures/authorization/README.md).
  const copy = join(projectDir, `.authorization-${fixture}-${process.pid}`);
  const dir = join(copy, fixture);
  rmSync(copy, { recursive: true, force: true });
  mkdirSync(copy);
  cpSync(join(FIXTURES, fixture), dir, { recursive: true });
  cpSync(join(FIXTURES, 'orders.js'), join(copy, 'orders.js'));
  cpSync(join(exampleProject, 'data'), join(dir, 'data'), { recursive: true });
  const apiSecret = randomBytes(32).toString('base64url');
  const apps = Object.entries(IDP_APPS).map(([clientId, claims]) => ({ clientId, claims }));
  const identityProvider = await startIdentityProvider({ audience: AUDIENCE, claimsNamespace: NAMESPACE, apps });
  const workforceApps = Object.entries(WORKFORCE_APPS).map(([clientId, claims]) => ({ clientId, claims }));
  const workforce = await startIdentityProvider({
    audience: AUDIENCE,
    claimsNamespace: NAMESPACE,
    apps: workforceApps,
  });
  const tokens: string[] = [];
  let cube: RunningCube | undefined;
  try {
    cube = await startCube({
      projectDir: dir,
      cubeDir: projectDir,
      line,
      env: { ...authorizationEnvironment(identityProvider, workforce, apiSecret), ...extras.env },
      redact: (text: string) => text.split(apiSecret).join('[secret]'),
      ...(extras.onLine && { onLine: extras.onLine }),
    });
  } catch (error) {
    await identityProvider.close();
    await workforce.close();
    rmSync(copy, { recursive: true, force: true });
    throw error;
  }
  const running = cube;
  return {
    cube: running,
    identityProvider,
    workforce,
    apiSecret,
    tokens,
    serviceToken(securityContext) {
      // As the service signs them (scripts/lib/service-token.mjs): the securityContext, iat and exp, HS256.
      const now = Math.floor(Date.now() / 1000);
      const token = jwt.sign({ ...securityContext, iat: now, exp: now + 300 }, apiSecret, { algorithm: 'HS256' });
      tokens.push(token);
      return token;
    },
    async idpToken(app) {
      const token = (await identityProvider.issueToken(app)) as string;
      tokens.push(token);
      return token;
    },
    async workforceToken(app) {
      const token = (await workforce.issueToken(app)) as string;
      tokens.push(token);
      return token;
    },
    serviceHeaders: { 'Request-Origin': 'embeddable' },
    async stop() {
      await running.stop();
      await identityProvider.close();
      await workforce.close();
      rmSync(copy, { recursive: true, force: true });
    },
  };
}
