import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createCheckAuth, type AuthEvent, type CheckAuth, type DualAuthOptions } from '../../src';
import { randomSecret, timed } from '../support/claims';
import { startJwksServer, type JwksServer } from '../support/jwks-server';
import { generateKeyPair, jwks } from '../support/keys';
import { appRequest, contextOf, rejectionOf, serviceRequest } from '../support/requests';
import { signToken } from '../support/tokens';
import { watchLateness } from '../support/lateness';

const secret = randomSecret();
const hs = (payload: Record<string, unknown>) => signToken(timed(payload), { alg: 'HS256', key: secret });

describe('the securityContext function has a deadline', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('refuses with ERR_SECURITY_CONTEXT_TIMEOUT when it never settles, and the event log says why', async () => {
    // The deadline's timer is the test's to run: only setTimeout is replaced, the system's time is left alone.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const events: AuthEvent[] = [];
    const checkAuth = createCheckAuth({
      apiSecret: secret,
      securityContext: () => new Promise<never>(() => undefined),
      securityContextTimeoutMs: 30,
      onEvent: (event) => events.push(event),
    });
    const watch = watchLateness();
    const started = performance.now();
    const refused = rejectionOf(checkAuth(serviceRequest(), hs({})));
    await vi.advanceTimersByTimeAsync(30);
    const error = await refused;
    expect(performance.now() - started).toBeLessThan(2_000 + watch.stop());
    expect(error).toMatchObject({
      status: 403,
      code: 'ERR_SECURITY_CONTEXT_TIMEOUT',
      message: 'The securityContext function did not answer in time',
    });
    expect(events).toContainEqual({
      type: 'internal-error',
      message: 'securityContext function did not settle within 30 ms',
    });
    expect(events).toContainEqual(
      expect.objectContaining({
        type: 'rejected',
        code: 'ERR_SECURITY_CONTEXT_TIMEOUT',
        message: 'The securityContext function did not answer within 30 ms (securityContextTimeoutMs)',
      }),
    );
  });

  it('leaves no timer behind when the function answers in time', async () => {
    const checkAuth = createCheckAuth({
      apiSecret: secret,
      securityContext: async (context) => ({ ...context, mapped: true }),
    });
    const before = process.getActiveResourcesInfo().filter((name) => name === 'Timeout').length;
    expect(await contextOf(checkAuth, serviceRequest(), hs({ tenant: 'acme' }))).toMatchObject({
      tenant: 'acme',
      mapped: true,
    });
    expect(process.getActiveResourcesInfo().filter((name) => name === 'Timeout').length).toBe(before);
  });
});

describe('required claims', () => {
  const checkAuth = createCheckAuth({ apiSecret: secret, requiredClaims: ['tenant', 'region'] });

  it('accepts a security context with every required claim', async () => {
    expect(await contextOf(checkAuth, serviceRequest(), hs({ tenant: 'acme', region: 'eu' }))).toMatchObject({
      tenant: 'acme',
    });
  });

  it('refuses with ERR_CLAIM_MISSING naming the first missing claim, as an own property only', async () => {
    const error = await rejectionOf(checkAuth(serviceRequest(), hs({ tenant: 'acme' })));
    expect(error).toMatchObject({
      status: 403,
      code: 'ERR_CLAIM_MISSING',
      message: 'The security context has no "region" claim, which this deployment requires',
    });
    const inherited = createCheckAuth({ apiSecret: secret, requiredClaims: ['constructor'] });
    expect((await rejectionOf(inherited(serviceRequest(), hs({ tenant: 'acme' })))).code).toBe('ERR_CLAIM_MISSING');
  });

  it('checks what the securityContext function returns', async () => {
    const mapped = createCheckAuth({
      apiSecret: secret,
      requiredClaims: ['tenant'],
      securityContext: () => ({ org: 'acme' }),
    });
    expect((await rejectionOf(mapped(serviceRequest(), hs({ tenant: 'acme' })))).code).toBe('ERR_CLAIM_MISSING');
  });
});

describe('authorization: one tenant and one set of groups for both callers', () => {
  const idpKey = generateKeyPair('RS256');
  let idp: JwksServer;
  const hooks: CheckAuth[] = [];
  beforeAll(async () => {
    idp = await startJwksServer(jwks(idpKey));
  });
  afterAll(async () => {
    hooks.forEach((hook) => hook.close());
    await idp.close();
  });
  const rs = (payload: Record<string, unknown>) => signToken(timed(payload), { key: idpKey });
  function make(options: DualAuthOptions = {}): CheckAuth {
    const hook = createCheckAuth({
      apiSecret: secret,
      jwksUri: idp.url,
      tenantClaim: 'tenant_id',
      groupsClaim: '/realm_access/roles',
      serviceGroups: ['embeddable'],
      ...options,
    });
    hooks.push(hook);
    return hook;
  }

  it('gives both callers\' contexts the same "tenant" and "groups", read from each path\'s claims', async () => {
    const checkAuth = make();
    expect(await contextOf(checkAuth, serviceRequest(), hs({ tenant_id: 'acme', roles: ['analyst'] }))).toEqual(
      expect.objectContaining({ tenant: 'acme', groups: ['analyst', 'embeddable'] }),
    );
    expect(
      await contextOf(checkAuth, appRequest(), rs({ tenant_id: 'acme', realm_access: { roles: ['analyst'] } })),
    ).toEqual(expect.objectContaining({ tenant: 'acme', groups: ['analyst'] }));
  });

  it("replaces the token's own tenant and groups members, also when the cache answers", async () => {
    const checkAuth = make({ tokenCacheSize: 10 });
    const token = hs({ tenant_id: 'acme', tenant: 'other', groups: ['admin'] });
    for (let i = 0; i < 2; i++) {
      const context = await contextOf(checkAuth, serviceRequest(), token);
      expect(context).toMatchObject({ tenant: 'acme', groups: ['embeddable'], tenant_id: 'acme' });
    }
  });

  it('refuses a token without its tenant, 403 ERR_TENANT_MISSING, on either path', async () => {
    const checkAuth = make();
    expect(await rejectionOf(checkAuth(serviceRequest(), hs({ roles: ['analyst'] })))).toMatchObject({
      status: 403,
      code: 'ERR_TENANT_MISSING',
      message: 'The token has no tenant claim "tenant_id"',
    });
    expect(await rejectionOf(checkAuth(appRequest(), rs({ org: 'acme' })))).toMatchObject({
      status: 403,
      code: 'ERR_TENANT_MISSING',
      path: 'key-set',
    });
  });

  it('reads the claims before the securityContext function runs, and writes them after it: the function cannot replace them', async () => {
    const seen: unknown[] = [];
    const checkAuth = make({
      securityContext: (context) => (seen.push(context), { ...context, tenant: 'forged', groups: ['admin'] }),
    });
    expect(await contextOf(checkAuth, serviceRequest(), hs({ tenant_id: 'acme' }))).toMatchObject({
      tenant: 'acme',
      groups: ['embeddable'],
    });
    expect((await rejectionOf(checkAuth(serviceRequest(), hs({})))).code).toBe('ERR_TENANT_MISSING');
    expect(seen).toHaveLength(1);
  });

  it('checks the required claims after it, so "tenant" can be one', async () => {
    const checkAuth = make({ requiredClaims: ['tenant'] });
    expect(await contextOf(checkAuth, serviceRequest(), hs({ tenant_id: 'acme' }))).toMatchObject({ tenant: 'acme' });
  });

  it('shows the tenant and groups in explain()', async () => {
    const verdict = await make().explain(serviceRequest(), hs({ tenant_id: 'acme', roles: 'analyst' }));
    expect(verdict).toMatchObject({
      accepted: true,
      securityContext: { tenant: 'acme', groups: ['analyst', 'embeddable'] },
    });
  });

  it('leaves the context as the token made it when authorization is not configured', async () => {
    const checkAuth = createCheckAuth({ apiSecret: secret });
    hooks.push(checkAuth);
    expect(await contextOf(checkAuth, serviceRequest(), hs({ tenant: 'acme', roles: ['a'] }))).not.toHaveProperty(
      'groups',
    );
  });
});
