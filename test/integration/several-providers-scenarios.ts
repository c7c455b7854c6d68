// Several identity providers in a real Cube: the stack's OpenID provider (the customer-facing IdP, claims under a
// namespace) and a second real one (a workforce IdP with its own keys and audience), configured only through
// CUBE_DUAL_AUTH_PROVIDERS and discovered from their issuers, as an operator would. Shared by both Cube lines.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureCube } from '../../scripts/ensure-cube.mjs';
import { startIdentityProvider, type RunningIdentityProvider } from '../../scripts/lib/identity-provider.mjs';
import {
  CLAIMS_NAMESPACE,
  CUBE_AUDIENCE,
  ORDERS_BY_TENANT_AND_REGION,
  startStack,
  type Stack,
} from '../../scripts/lib/stack.mjs';
import { loadOverHttp, STACK_TRACE_LINE, type CubeAnswer } from '../support/real-cube';
import { ACME_ROWS, GLOBEX_EMEA_ROWS, rowsOf } from './real-cube-scenarios';

const INSTALL_AND_START_TIMEOUT_MS = 15 * 60_000;
const WORKFORCE_AUDIENCE = 'https://cube.example/workforce';
const WORKFORCE_NAMESPACE = 'https://workforce.example/claims';
const ANALYST = { clientId: 'acme-analyst', claims: { tenant: 'acme' } };

export function severalProvidersScenarios(lineId: string): void {
  let stack: Stack;
  let workforce: RunningIdentityProvider;

  beforeAll(async () => {
    const { projectDir, line } = await ensureCube({ line: lineId });
    workforce = await startIdentityProvider({
      audience: WORKFORCE_AUDIENCE,
      claimsNamespace: WORKFORCE_NAMESPACE,
      apps: [ANALYST],
    });
    stack = await startStack({
      projectDir,
      line,
      env: async (customerIdp) => ({
        // No JWKS URL and no top-level issuer: both providers are discovered from their issuers.
        CUBEJS_JWK_URL: '',
        CUBEJS_JWT_ISSUER: '',
        CUBE_DUAL_AUTH_PROVIDERS: JSON.stringify([
          { issuer: customerIdp.issuer, audience: CUBE_AUDIENCE, claimsNamespace: CLAIMS_NAMESPACE },
          // Its own namespace, so its own tenant claim (the stack's is the customer-facing provider's).
          {
            issuer: workforce.issuer,
            audience: WORKFORCE_AUDIENCE,
            claimsNamespace: WORKFORCE_NAMESPACE,
            tenantClaim: '/https:~1~1workforce.example~1claims/tenant',
          },
        ]),
      }),
    });
  }, INSTALL_AND_START_TIMEOUT_MS);

  afterAll(async () => {
    await stack?.stop();
    await workforce?.close();
  });

  const load = (headers: Record<string, string>): Promise<CubeAnswer> =>
    loadOverHttp(stack.cube.apiUrl, ORDERS_BY_TENANT_AND_REGION, headers);

  function expectRefused(answer: CubeAnswer, error: string | RegExp): void {
    expect(answer.status, answer.text).toBe(403);
    expect(Object.keys(answer.body)).toEqual(['error']);
    expect(answer.body['error']).toMatch(error);
    expect(answer.text).not.toMatch(STACK_TRACE_LINE);
    // The caller learns the failure, never the identity providers' addresses.
    expect(answer.text).not.toContain('127.0.0.1');
  }

  describe('two identity providers, discovered from their issuers', () => {
    it("serves each provider's token the rows of its own security context", async () => {
      const customer = await load({ Authorization: await stack.customerToken() });
      expect(customer.status, customer.text).toBe(200);
      expect(rowsOf(customer.body)).toEqual(GLOBEX_EMEA_ROWS);
      const analyst = await load({ Authorization: await workforce.issueToken(ANALYST.clientId) });
      expect(analyst.status, analyst.text).toBe(200);
      expect(rowsOf(analyst.body)).toEqual(ACME_ROWS);
    });

    it("refuses a token signed with one provider's key that names the other's issuer", async () => {
      const forged = workforce.signClaims({
        iss: stack.identityProvider.issuer,
        aud: CUBE_AUDIENCE,
        [CLAIMS_NAMESPACE]: { tenant: 'globex' },
      });
      expectRefused(
        await load({ Authorization: forged }),
        /^No key for kid "[^"]+" in the identity provider's key set$/,
      );
    });

    it('refuses a token of an issuer that is not configured, and one without iss', async () => {
      const stranger = workforce.signClaims({
        iss: 'https://login.partner.example/',
        [WORKFORCE_NAMESPACE]: { tenant: 'acme' },
      });
      expectRefused(
        await load({ Authorization: stranger }),
        'Token issuer "https://login.partner.example/" is not an identity provider of this deployment',
      );
      const anonymous = workforce.signClaims({ [WORKFORCE_NAMESPACE]: { tenant: 'acme' } });
      expectRefused(
        await load({ Authorization: anonymous }),
        'Token has no "iss" claim: this deployment chooses the identity provider by it',
      );
    });

    it('keeps serving the embedding service on the shared-secret path', async () => {
      const answer = await load({ Authorization: stack.serviceToken({ tenant: 'acme' }), ...stack.serviceHeaders });
      expect(answer.status, answer.text).toBe(200);
      expect(rowsOf(answer.body)).toEqual(ACME_ROWS);
    });

    // Last: the workforce IdP stays down.
    it('keeps serving the other provider while one is down, and its loaded keys keep serving its own tokens', async () => {
      const analystToken = await workforce.issueToken(ANALYST.clientId);
      await workforce.close();
      const customer = await load({ Authorization: await stack.customerToken() });
      expect(customer.status, customer.text).toBe(200);
      const analyst = await load({ Authorization: analystToken });
      expect(analyst.status, analyst.text).toBe(200);
      expect(rowsOf(analyst.body)).toEqual(ACME_ROWS);
    });
  });
}
