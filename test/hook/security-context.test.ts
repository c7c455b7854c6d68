import { describe, expect, it } from 'vitest';
import { createCheckAuth, type AuthEvent } from '../../src';
import { randomSecret, timed } from '../support/claims';
import { contextOf, rejectionOf, serviceRequest } from '../support/requests';
import { signToken } from '../support/tokens';

const secret = randomSecret();
const hs = (payload: Record<string, unknown>) => signToken(timed(payload), { alg: 'HS256', key: secret });

describe('the securityContext function has a deadline', () => {
  it('refuses with ERR_SECURITY_CONTEXT_TIMEOUT when it never settles, and the event log says why', async () => {
    const events: AuthEvent[] = [];
    const checkAuth = createCheckAuth({
      apiSecret: secret,
      securityContext: () => new Promise<never>(() => undefined),
      securityContextTimeoutMs: 30,
      onEvent: (event) => events.push(event),
    });
    const started = performance.now();
    const error = await rejectionOf(checkAuth(serviceRequest(), hs({})));
    expect(performance.now() - started).toBeLessThan(2_000);
    expect(error).toMatchObject({ status: 403, code: 'ERR_SECURITY_CONTEXT_TIMEOUT', message: 'The securityContext function did not answer in time' });
    expect(events).toContainEqual({ type: 'internal-error', message: 'securityContext function did not settle within 30 ms' });
    expect(events).toContainEqual(expect.objectContaining({
      type: 'rejected',
      code: 'ERR_SECURITY_CONTEXT_TIMEOUT',
      message: 'The securityContext function did not answer within 30 ms (securityContextTimeoutMs)',
    }));
  });

  it('leaves no timer behind when the function answers in time', async () => {
    const checkAuth = createCheckAuth({ apiSecret: secret, securityContext: async (context) => ({ ...context, mapped: true }) });
    const before = process.getActiveResourcesInfo().filter((name) => name === 'Timeout').length;
    expect(await contextOf(checkAuth, serviceRequest(), hs({ tenant: 'acme' }))).toMatchObject({ tenant: 'acme', mapped: true });
    expect(process.getActiveResourcesInfo().filter((name) => name === 'Timeout').length).toBe(before);
  });
});

describe('required claims', () => {
  const checkAuth = createCheckAuth({ apiSecret: secret, requiredClaims: ['tenant', 'region'] });

  it('accepts a security context with every required claim', async () => {
    expect(await contextOf(checkAuth, serviceRequest(), hs({ tenant: 'acme', region: 'eu' }))).toMatchObject({ tenant: 'acme' });
  });

  it('refuses with ERR_CLAIM_MISSING naming the first missing claim, as an own property only', async () => {
    const error = await rejectionOf(checkAuth(serviceRequest(), hs({ tenant: 'acme' })));
    expect(error).toMatchObject({ status: 403, code: 'ERR_CLAIM_MISSING', message: 'The security context has no "region" claim, which this deployment requires' });
    const inherited = createCheckAuth({ apiSecret: secret, requiredClaims: ['constructor'] });
    expect((await rejectionOf(inherited(serviceRequest(), hs({ tenant: 'acme' })))).code).toBe('ERR_CLAIM_MISSING');
  });

  it('checks what the securityContext function returns', async () => {
    const mapped = createCheckAuth({ apiSecret: secret, requiredClaims: ['tenant'], securityContext: () => ({ org: 'acme' }) });
    expect((await rejectionOf(mapped(serviceRequest(), hs({ tenant: 'acme' })))).code).toBe('ERR_CLAIM_MISSING');
  });
});
