// A real Cube set up as the README tells a user to (scripts/lib/readme-project.mjs: a cube.js of the README's or an
// example's lines, a model, the README's environment for a Keycloak-style identity provider, the data source from
// Cube's own variables), removed at stop. Cube's output is kept raw, the API secret masked only, so that a test sees
// what a reader of Cube's log would.
import { randomBytes } from 'node:crypto';
import jwt from 'jsonwebtoken';
import { afterAll, beforeAll, expect } from 'vitest';
import { ensureCube } from '../../scripts/ensure-cube.mjs';
import { startCube, type RunningCube } from '../../scripts/lib/cube-server.mjs';
import { startIdentityProvider, type RunningIdentityProvider } from '../../scripts/lib/identity-provider.mjs';
import { prepareReadmeProject, readmeEnvironment } from '../../scripts/lib/readme-project.mjs';
import { loadOverHttp, type CubeAnswer } from './real-cube';

/** Installing a Cube line (once per machine) and starting it with its identity provider. */
const INSTALL_AND_START_TIMEOUT_MS = 15 * 60_000;
export const AUDIENCE = 'https://cube.example/api';
const JWT_SHAPED = /eyJ[\w-]*\.[\w-]*\.[\w-]+/g;

/** Keycloak-style claims of an identity provider's tokens: the tenant and the realm roles. */
export type KeycloakClaims = { readonly tenant_id?: string; readonly realm_access?: { readonly roles: string[] } };

export interface ReadmeSetUpOptions<App extends string> {
  /** The Cube line: "1" or "0.33". */
  readonly line: string;
  /** The text of cube.js. */
  readonly cubeJs: string;
  /** The directory holding the model. */
  readonly modelDir: string;
  /** The identity provider's applications, by client id: the claims of the tokens it issues them. */
  readonly apps: Readonly<Record<App, KeycloakClaims>>;
  /** Changes the README's environment (given whole, with the identity provider's URLs) before Cube starts. */
  readonly environment?: (readme: Readonly<Record<string, string>>) => Record<string, string>;
}

export interface ReadmeSetUp<App extends string> {
  cube(): RunningCube;
  identityProvider(): RunningIdentityProvider;
  /** Every line Cube printed so far, the API secret masked. */
  output(): string;
  load(query: object, headers: Record<string, string>): Promise<CubeAnswer>;
  /** The service's headers: its token for `securityContext`, signed as it signs them, and its Request-Origin. */
  asService(securityContext: object, options?: { withOrigin?: boolean }): Record<string, string>;
  asIdp(app: App): Promise<Record<string, string>>;
  /**
   * Sends `query` as the trial of issue 30 did (accepted: `app`'s token and a service token for `securityContext`;
   * refused: `app`'s valid token with Request-Origin, an expired one, the valid service token without Request-Origin),
   * then checks that Cube's log holds no whole JWT and did log the refusals, their tokens masked.
   */
  expectNoWholeTokenAfterTrial(query: object, app: App, securityContext: object): Promise<void>;
}

/** Starts the set-up before the calling file's (or `describe` block's) tests and stops it after them. */
export function readmeSetUp<App extends string>(options: ReadmeSetUpOptions<App>): ReadmeSetUp<App> {
  let cube: RunningCube | undefined;
  let identityProvider: RunningIdentityProvider | undefined;
  let remove: (() => void) | undefined;
  const apiSecret = randomBytes(32).toString('base64url');
  const lines: string[] = [];

  beforeAll(async () => {
    const installed = await ensureCube({ line: options.line });
    const project = await prepareReadmeProject({
      lineDir: installed.projectDir,
      name: '.readme-set-up',
      cubeJs: options.cubeJs,
      modelDir: options.modelDir,
    });
    remove = project.remove;
    identityProvider = await startIdentityProvider({
      audience: AUDIENCE,
      apps: Object.entries<KeycloakClaims>(options.apps).map(([clientId, claims]) => ({ clientId, claims })),
    });
    cube = await startCube({
      projectDir: project.dir,
      cubeDir: installed.projectDir,
      line: installed.line,
      env: (options.environment ?? ((readme) => ({ ...readme })))(
        readmeEnvironment(identityProvider, apiSecret, project.database),
      ),
      redact: (text: string) => text.split(apiSecret).join('[secret]'),
      onLine: (line: string) => lines.push(line),
    });
  }, INSTALL_AND_START_TIMEOUT_MS);

  afterAll(async () => {
    await cube?.stop();
    await identityProvider?.close();
    remove?.();
  });

  const started = <T>(part: T | undefined): T => {
    if (part === undefined) throw new Error('the set-up starts in beforeAll');
    return part;
  };
  const setUp: ReadmeSetUp<App> = {
    cube: () => started(cube),
    identityProvider: () => started(identityProvider),
    output: () => lines.join('\n'),
    load: (query, headers) => loadOverHttp(started(cube).apiUrl, query, headers),
    asService(securityContext, { withOrigin = true } = {}) {
      // As the service signs them (scripts/lib/service-token.mjs): the securityContext, iat and exp, HS256.
      const now = Math.floor(Date.now() / 1000);
      const token = jwt.sign({ ...securityContext, iat: now, exp: now + 300 }, apiSecret, { algorithm: 'HS256' });
      return { Authorization: token, ...(withOrigin && { 'Request-Origin': 'embeddable' }) };
    },
    asIdp: async (app) => ({ Authorization: await started(identityProvider).issueToken(app) }),
    async expectNoWholeTokenAfterTrial(query, app, securityContext) {
      const idp = started(identityProvider);
      const idpToken = await idp.issueToken(app);
      // Signed by the identity provider an hour ago for 300 s (jsonwebtoken counts expiresIn from the payload's iat).
      const now = Math.floor(Date.now() / 1000);
      const expired = idp.signClaims({ iss: idp.issuer, aud: AUDIENCE, ...options.apps[app], iat: now - 3600 });
      const service = setUp.asService(securityContext);
      const requests: Array<[Record<string, string>, number]> = [
        [{ Authorization: idpToken }, 200],
        [service, 200],
        [{ Authorization: idpToken, 'Request-Origin': 'embeddable' }, 403],
        [{ Authorization: expired }, 403],
        [{ Authorization: service['Authorization']! }, 403],
      ];
      for (const [headers, status] of requests) {
        const answer = await setUp.load(query, headers);
        expect(answer.status, answer.text).toBe(status);
      }
      const output = setUp.output();
      // Counted, not shown: a failure must not print the tokens it found.
      expect(output.match(JWT_SHAPED)?.length ?? 0, "whole JWTs in Cube's log").toBe(0);
      // Cube did log the refusals, each with its token field masked by the package's logger.
      expect(output.match(/"token":"\[token\]"/g)?.length ?? 0).toBeGreaterThanOrEqual(3);
    },
  };
  return setUp;
}
