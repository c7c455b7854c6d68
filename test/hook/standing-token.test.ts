/**
 * Standing service credentials on the hook (docs/embeddable.md): the handbook's Cube Core sample (no `exp`) and the
 * package's own token (a `jti` of its form), with and without `Request-Origin`, with authorization on and off, under a
 * maximum token age; each distinct one logged once and counted; routed by shape only when asked, and trusted only by
 * its signature.
 */
import { afterEach, beforeEach, describe, expect, it, vi, type MockInstance } from 'vitest';
import { createCheckAuth, type AuthEvent, type DualAuthOptions } from '../../src';
import { OPTION_NAMES } from '../../src/config/options';
import { createNamedCheckAuth } from '../../src/hook/check-auth';
import { mintStandingToken } from '../../src/cli/rotate-secret/credential';
import { isStandingJti, newStandingJti, standingKindOf } from '../../src/hook/standing-token';
import type { RecordedName, Sink } from '../../src/metrics/catalog';
import { Instruments, MetricsRecorder } from '../../src/metrics/recorder';
import { randomSecret } from '../support/claims';
import { createClock } from '../support/clock';
import { generateKeyPair } from '../support/keys';
import { signToken } from '../support/tokens';
import { appRequest, contextOf, rejectionOf, serviceRequest } from '../support/requests';

const secret = randomSecret();
const now = () => Math.floor(Date.now() / 1000);
/** The handbook's Cube Core sample: `{ sub: 'docs-user' }` and `iat`, HS256, no `exp`, no `jti`. */
const handbookSample = (iat = now()) => signToken({ sub: 'docs-user', iat }, { alg: 'HS256', key: secret });
/** The package's standing token, issued at `iat`, with `claims`. */
const packageToken = (claims: Record<string, unknown> = {}, iat = now(), key = secret) =>
  signToken({ sub: 'embeddable-service', ...claims, jti: newStandingJti(), iat }, { alg: 'HS256', key });

let warn: MockInstance;
beforeEach(() => {
  warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
});
afterEach(() => warn.mockRestore());

/** A hook with `options`, its events kept and turned into metrics as the hook Cube runs does. */
function hookWith(options: DualAuthOptions = {}) {
  const events: AuthEvent[] = [];
  const counted: Array<[RecordedName, readonly string[], number]> = [];
  const sink: Sink = { series: (metric, labels) => (value) => counted.push([metric, labels, value]) };
  const metrics = new MetricsRecorder(new Instruments([sink]), { issuers: new Map(), tokenCache: true, clock: now });
  const checkAuth = createCheckAuth({
    apiSecret: secret,
    jwksUri: 'http://127.0.0.1:9/jwks.json',
    detailedErrors: true,
    ...options,
    onEvent: (event) => {
      events.push(event);
      metrics.listener(event);
    },
  });
  const standing = () => events.filter((event) => event.type === 'standing-token');
  const standingCounted = () => counted.filter(([metric]) => metric === 'standingTokens');
  return { checkAuth, events, standing, standingCounted };
}

describe('a token without exp (the handbook sample)', () => {
  it('is accepted with Request-Origin, logged and counted once however many requests carry it', async () => {
    const { checkAuth, standing, standingCounted } = hookWith();
    const token = handbookSample();
    for (let i = 0; i < 3; i++)
      expect(await contextOf(checkAuth, serviceRequest(), token)).toMatchObject({ sub: 'docs-user' });
    expect(standing()).toEqual([{ type: 'standing-token', kind: 'no-exp', origin: 'header' }]);
    expect(standingCounted()).toEqual([['standingTokens', ['no-exp', 'header'], 1]]);
    expect(warn).toHaveBeenCalledTimes(1);
    expect(String(warn.mock.calls[0]?.[0])).toContain(
      'every request it carries gets one and the same security context',
    );
    expect(String(warn.mock.calls[0]?.[0])).not.toContain(token.split('.')[2]);
    // Another such token is another line and another count.
    await contextOf(checkAuth, serviceRequest(), handbookSample(now() - 1));
    expect(standing()).toHaveLength(2);
    checkAuth.close();
  });

  it('without Request-Origin goes to the key-set path and is refused there, the opt-in on or off', async () => {
    for (const standingTokenWithoutOrigin of [false, true]) {
      const { checkAuth } = hookWith({ standingTokenWithoutOrigin });
      const error = await rejectionOf(checkAuth(appRequest(), handbookSample()));
      expect(error).toMatchObject({ code: 'ERR_ALG_NOT_ALLOWED', path: 'key-set' });
      checkAuth.close();
    }
  });

  it('with authorization on, is refused for want of a tenant; older than the maximum age, as too old', async () => {
    const authorizing = hookWith({ tenantClaim: 'tenant' });
    expect(await rejectionOf(authorizing.checkAuth(serviceRequest(), handbookSample()))).toMatchObject({
      code: 'ERR_TENANT_MISSING',
    });
    const ageing = hookWith({ maxTokenAge: 3600 });
    expect(await rejectionOf(ageing.checkAuth(serviceRequest(), handbookSample(now() - 7200)))).toMatchObject({
      code: 'ERR_TOKEN_TOO_OLD',
    });
    expect([...authorizing.standing(), ...ageing.standing()]).toEqual([]);
    authorizing.checkAuth.close();
    ageing.checkAuth.close();
  });
});

describe("the package's standing token", () => {
  it('is what provider --credential token mints: HS256, a jti of the form, no exp', async () => {
    const token = mintStandingToken(secret, { tenant: 'acme' });
    const { checkAuth, standing } = hookWith();
    const context = (await contextOf(checkAuth, serviceRequest(), token)) as Record<string, unknown>;
    expect(context).toMatchObject({ sub: 'embeddable-service', tenant: 'acme' });
    expect(isStandingJti(context.jti)).toBe(true);
    expect(standingKindOf(context)).toBe('package');
    expect(context.exp).toBeUndefined();
    expect(standing()).toEqual([{ type: 'standing-token', kind: 'package', origin: 'header' }]);
    checkAuth.close();
  });

  it('without Request-Origin: refused on the key-set path unless the opt-in is on, then verified with the secret', async () => {
    const token = packageToken({ tenant: 'acme' });
    const off = hookWith();
    expect(await rejectionOf(off.checkAuth(appRequest(), token))).toMatchObject({ path: 'key-set' });
    const on = hookWith({ standingTokenWithoutOrigin: true });
    expect(await contextOf(on.checkAuth, appRequest(), token)).toMatchObject({ tenant: 'acme' });
    expect(on.standing()).toEqual([{ type: 'standing-token', kind: 'package', origin: 'none' }]);
    expect(on.standingCounted()).toEqual([['standingTokens', ['package', 'none'], 1]]);
    const explained = await on.checkAuth.explain(appRequest(), token);
    expect(explained).toMatchObject({
      accepted: true,
      path: 'shared-secret',
      pathReason: expect.stringContaining('CUBE_DUAL_AUTH_STANDING_TOKEN_WITHOUT_ORIGIN'),
      standingServiceCredential: { kind: 'package', meaning: expect.stringContaining('one and the same') },
    });
    off.checkAuth.close();
    on.checkAuth.close();
  });

  it('its shape routes, never trusts: signed with another secret, or not HS256, it is refused', async () => {
    const { checkAuth } = hookWith({ standingTokenWithoutOrigin: true });
    const forged = packageToken({ tenant: 'acme' }, now(), randomSecret());
    expect(await rejectionOf(checkAuth(appRequest(), forged))).toMatchObject({
      code: 'ERR_SIGNATURE_INVALID',
      path: 'shared-secret',
    });
    const rs = signToken({ jti: newStandingJti(), iat: now() }, { key: generateKeyPair('RS256') });
    const explained = await checkAuth.explain(appRequest(), rs);
    expect(explained).toMatchObject({ accepted: false, path: 'key-set' });
    checkAuth.close();
  });

  it('with authorization on, carries its tenant; under a maximum age, lives as long as the secret', async () => {
    const { checkAuth } = hookWith({ tenantClaim: 'tenant', maxTokenAge: 3600 });
    const old = packageToken({ tenant: 'acme' }, now() - 30 * 86_400);
    expect(await contextOf(checkAuth, serviceRequest(), old)).toMatchObject({ tenant: 'acme' });
    expect(await rejectionOf(checkAuth(serviceRequest(), packageToken()))).toMatchObject({
      code: 'ERR_TENANT_MISSING',
    });
    // An expiry it was given still holds.
    const expired = signToken(
      { jti: newStandingJti(), tenant: 'acme', iat: now() - 100, exp: now() - 50 },
      { alg: 'HS256', key: secret },
    );
    expect(await rejectionOf(checkAuth(serviceRequest(), expired))).toMatchObject({ code: 'ERR_TOKEN_EXPIRED' });
    checkAuth.close();
  });

  it('outlives the maximum age on the clock, cached or not, and signed with any API secret in force', async () => {
    const clock = createClock(Date.UTC(2027, 0, 4));
    const second = randomSecret();
    const checkAuth = createNamedCheckAuth(
      { apiSecret: [secret, second], maxTokenAge: 60, clockTolerance: 0 },
      { names: OPTION_NAMES, clock: clock.now },
    );
    const issued = clock.now() / 1000;
    const standing = packageToken({}, issued, second);
    const plain = signToken({ sub: 'embeddable-service', iat: issued }, { alg: 'HS256', key: second });
    for (const token of [standing, plain]) await contextOf(checkAuth, serviceRequest(), token);
    clock.advance(61_000);
    expect(await contextOf(checkAuth, serviceRequest(), standing)).toMatchObject({ sub: 'embeddable-service' });
    expect(await rejectionOf(checkAuth(serviceRequest(), plain))).toMatchObject({ code: 'ERR_TOKEN_TOO_OLD' });
    expect(await rejectionOf(checkAuth(serviceRequest(), packageToken({}, issued, randomSecret())))).toMatchObject({
      code: 'ERR_SIGNATURE_INVALID',
    });
    checkAuth.close();
  });
});
