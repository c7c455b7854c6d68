import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createCheckAuth, type AuthEvent, type DualAuthOptions } from '../../src';
import { OPTION_NAMES } from '../../src/config/options';
import { createNamedCheckAuth } from '../../src/hook/check-auth';
import { TokenCache } from '../../src/hook/token-cache';
import { randomSecret, timed } from '../support/claims';
import { createClock } from '../support/clock';
import { appRequest, contextOf, rejectionOf, serviceRequest } from '../support/requests';
import { signToken } from '../support/tokens';

const secret = randomSecret();
/** An instant for tests that set the clock: epoch ms, in 2027. */
const T0 = 1_800_000_000_000;
const hs = (payload: Record<string, unknown>, expiresIn = 300) =>
  signToken(timed(payload, { expiresIn }), { alg: 'HS256', key: secret });

function recorder() {
  const events: AuthEvent[] = [];
  return {
    events,
    onEvent: (event: AuthEvent) => events.push(event),
    cached: () => events.map((e) => e.type === 'accepted' && e.cached),
  };
}

describe('TokenCache', () => {
  it('drops, on a clock, the tokens a removed API secret verified, and only those of that path', () => {
    const clock = createClock(T0);
    const cache = new TokenCache(10, 60_000);
    cache.set('old', 'shared-secret', { thumbprint: 'old-secret', refusedFrom: Infinity }, clock.now(), {});
    cache.set('new', 'shared-secret', { thumbprint: 'new-secret', refusedFrom: Infinity }, clock.now(), {});
    cache.set('idp', 'key-set', { kid: 'k', thumbprint: 'idp-key', refusedFrom: Infinity }, clock.now(), {});
    clock.advance(10_000);
    expect(cache.get('old', 'shared-secret', clock.now())).toBeDefined();
    expect(cache.forgetOtherThan('shared-secret', new Set(['new-secret']))).toBe(1);
    // Well inside the cache's maximum age: the entry is gone, not expired.
    expect(cache.get('old', 'shared-secret', clock.now())).toBeUndefined();
    expect(cache.get('new', 'shared-secret', clock.now())).toBeDefined();
    expect(cache.get('idp', 'key-set', clock.now())).toBeDefined();
    expect(cache.size).toBe(2);
  });

  it('answers only on the path that verified the token', () => {
    const cache = new TokenCache(10, 60_000);
    cache.set('t', 'shared-secret', { refusedFrom: Infinity }, 0, { a: 1 });
    expect(cache.get('t', 'key-set', 1)).toBeUndefined();
    expect(cache.get('t', 'shared-secret', 1)).toEqual({ context: { a: 1 }, kid: undefined });
  });

  it('stops answering at expiry and at its own maximum age, dropping the entry', () => {
    const cache = new TokenCache(10, 1_000);
    cache.set('exp', 'key-set', { kid: 'k', refusedFrom: 500 }, 0, {});
    cache.set('age', 'key-set', { kid: 'k', refusedFrom: Infinity }, 0, {});
    expect(cache.get('exp', 'key-set', 499)).toBeDefined();
    expect(cache.get('exp', 'key-set', 500)).toBeUndefined();
    expect(cache.get('age', 'key-set', 999)).toBeDefined();
    expect(cache.get('age', 'key-set', 1_000)).toBeUndefined();
    expect(cache.size).toBe(0);
  });

  it('keeps at most maxEntries, dropping the least recently used first', () => {
    const cache = new TokenCache(4, 60_000);
    for (const token of ['a', 'b', 'c']) cache.set(token, 'key-set', { refusedFrom: Infinity }, 0, {});
    expect(cache.get('a', 'key-set', 1)).toBeDefined();
    cache.set('d', 'key-set', { refusedFrom: Infinity }, 1, {});
    expect(cache.get('b', 'key-set', 2)).toBeUndefined();
    expect(cache.get('a', 'key-set', 2)).toBeDefined();
    for (let i = 0; i < 10_000; i++) {
      cache.set(`t${i}`, 'key-set', { refusedFrom: Infinity }, 3, {});
      expect(cache.size).toBeLessThanOrEqual(4);
    }
  });

  it('finds every token it holds while tokens before them expire and are removed, round after round', () => {
    const cache = new TokenCache(200, 60_000);
    for (let round = 0; round < 100; round++) {
      const now = round * 100;
      const tokens = Array.from({ length: 60 }, (_, i) => `round-${round}.token-${i}`);
      for (const token of tokens) cache.set(token, 'key-set', { refusedFrom: now + 10 }, now, { token });
      for (const token of tokens) expect(cache.get(token, 'key-set', now + 5)?.context).toEqual({ token });
      for (const token of tokens) expect(cache.get(token, 'key-set', now + 10)).toBeUndefined();
      expect(cache.size).toBe(0);
    }
  });

  it('hands out copies: neither the stored nor a returned context can be changed by a caller', () => {
    const cache = new TokenCache(10, 60_000);
    const context = { tenant: 'acme', roles: ['viewer'], nested: { region: 'eu' } };
    cache.set('t', 'key-set', { refusedFrom: Infinity }, 0, context);
    context.roles.push('admin');
    const first = cache.get('t', 'key-set', 1)?.context as typeof context;
    first.nested.region = 'us';
    first.roles.push('admin');
    expect(cache.get('t', 'key-set', 2)?.context).toEqual({
      tenant: 'acme',
      roles: ['viewer'],
      nested: { region: 'eu' },
    });
  });

  it('answers only for the very token it verified, when two tokens end alike and are filed together', () => {
    const cache = new TokenCache(10, 60_000);
    const [older, newer] = ['x.token-ending-alike', 'y.token-ending-alike'];
    cache.set(older, 'key-set', { kid: 'old', refusedFrom: 500 }, 0, { who: 'older' });
    expect(cache.get(newer, 'key-set', 1)).toBeUndefined();
    cache.set(newer, 'key-set', { kid: 'new', refusedFrom: Infinity }, 0, { who: 'newer' });
    expect(cache.get(newer, 'key-set', 1)).toMatchObject({ context: { who: 'newer' }, kid: 'new' });
    // The newer replaced the older, and an expired lookup of the older takes nothing with it.
    expect(cache.get(older, 'key-set', 600)).toBeUndefined();
    expect(cache.get(newer, 'key-set', 600)).toMatchObject({ kid: 'new' });
    expect(cache.size).toBe(1);
  });

  it('does not let an expired token take a newer one filed with it from the newer generation', () => {
    const cache = new TokenCache(4, 60_000);
    const [older, newer] = ['x.token-ending-alike', 'y.token-ending-alike'];
    cache.set(older, 'key-set', { refusedFrom: 500 }, 0, { who: 'older' });
    for (const token of ['a', 'b']) cache.set(token, 'key-set', { refusedFrom: Infinity }, 0, {});
    cache.set(newer, 'key-set', { refusedFrom: Infinity }, 0, { who: 'newer' });
    expect(cache.get(older, 'key-set', 600)).toBeUndefined();
    expect(cache.get(newer, 'key-set', 601)?.context).toEqual({ who: 'newer' });
  });

  it('keeps no payload for a token seen once: the first repeat decodes it from the token, and later ones copy it', () => {
    const cache = new TokenCache(10, 60_000);
    const payload = { tenant: 'acme', roles: ['viewer'], ctx: { region: 'eu' } };
    const [token, other] = [hs(payload), hs(payload, 600)];
    cache.set(token, 'shared-secret', { refusedFrom: Infinity }, 0);
    cache.set(other, 'key-set', { refusedFrom: Infinity, claimsNamespace: 'ctx' }, 0);
    const first = cache.get(token, 'shared-secret', 1)?.context as typeof payload;
    expect(first).toMatchObject(payload);
    first.roles.push('admin');
    expect(cache.get(token, 'shared-secret', 2)?.context).toMatchObject(payload);
    expect(cache.get(other, 'key-set', 1)?.context).toEqual({ region: 'eu' });
  });
});

describe('checkAuth with the verified-token cache', () => {
  it('answers a repeated token from the cache, with a private copy each time', async () => {
    const { onEvent, cached } = recorder();
    const checkAuth = createCheckAuth({ apiSecret: secret, onEvent });
    const token = hs({ tenant: 'acme', roles: ['viewer'] });
    const first = (await contextOf(checkAuth, serviceRequest(), token)) as { roles: string[] };
    first.roles.push('admin');
    const second = (await contextOf(checkAuth, serviceRequest(), token)) as { roles: string[] };
    expect(second.roles).toEqual(['viewer']);
    expect(cached()).toEqual([false, true]);
  });

  it('re-checks expiry on every hit', async () => {
    const clock = createClock(T0);
    const checkAuth = createNamedCheckAuth(
      { apiSecret: secret, clockTolerance: 0 },
      { names: OPTION_NAMES, clock: clock.now },
    );
    const token = signToken(timed({}, { now: T0 / 1000, expiresIn: 10 }), { alg: 'HS256', key: secret });
    await checkAuth(serviceRequest(), token);
    clock.advance(11_000);
    expect((await rejectionOf(checkAuth(serviceRequest(), token))).code).toBe('ERR_TOKEN_EXPIRED');
  });

  it('never lets a token accepted on one path answer on the other', async () => {
    const checkAuth = createCheckAuth({ apiSecret: secret, jwksUri: 'http://127.0.0.1:9/jwks.json' });
    const token = hs({});
    await checkAuth(serviceRequest(), token);
    expect((await rejectionOf(checkAuth(appRequest(), token))).code).toBe('ERR_ALG_NOT_ALLOWED');
    checkAuth.close();
  });

  it('can be turned off', async () => {
    const { onEvent, cached } = recorder();
    const checkAuth = createCheckAuth({ apiSecret: secret, tokenCacheSize: 0, onEvent });
    const token = hs({});
    await checkAuth(serviceRequest(), token);
    await checkAuth(serviceRequest(), token);
    expect(cached()).toEqual([false, false]);
  });

  it('is bypassed by explain, which always shows a real verification', async () => {
    const checkAuth = createCheckAuth({ apiSecret: secret });
    const token = hs({});
    await checkAuth(serviceRequest(), token);
    const verdict = await checkAuth.explain(serviceRequest(), token);
    expect(verdict).toMatchObject({ accepted: true, header: { alg: 'HS256' } });
    expect(verdict).not.toHaveProperty('cached');
  });
});

describe('a cached answer is indistinguishable from a fresh one', () => {
  /** An HS256 token over exactly this payload text (JSON.stringify cannot write an own "__proto__" key). */
  function signedText(payloadJson: string): string {
    const input = `${Buffer.from('{"alg":"HS256"}').toString('base64url')}.${Buffer.from(payloadJson).toString('base64url')}`;
    return `${input}.${createHmac('sha256', secret).update(input).digest('base64url')}`;
  }

  async function freshAndCached(options: Partial<DualAuthOptions>, token: string) {
    const fresh = (await contextOf(
      createCheckAuth({ apiSecret: secret, tokenCacheSize: 0, ...options }),
      serviceRequest(),
      token,
    )) as Record<string, unknown>;
    const checkAuth = createCheckAuth({ apiSecret: secret, ...options });
    const answers: Array<Record<string, unknown>> = [];
    for (let i = 0; i < 3; i++)
      answers.push((await contextOf(checkAuth, serviceRequest(), token)) as Record<string, unknown>);
    return { fresh, answers };
  }

  const sameAs = (actual: unknown, expected: unknown) => {
    expect(JSON.stringify(actual)).toBe(JSON.stringify(expected));
    expect(Object.getPrototypeOf(actual)).toBe(Object.getPrototypeOf(expected));
    expect((actual as { role?: unknown }).role).toBe((expected as { role?: unknown }).role);
  };

  it('keeps an own "__proto__" key a key: no inherited role, no shared object', async () => {
    const { fresh, answers } = await freshAndCached(
      {},
      signedText(`{"tenant":"acme","__proto__":{"role":"admin"},"exp":${exp()}}`),
    );
    expect(fresh.role).toBeUndefined();
    for (const answer of answers) sameAs(answer, fresh);
    (answers[1] as Record<string, unknown>).tenant = 'changed';
    expect(answers[2]).not.toBe(answers[1]);
    expect(answers[2]?.tenant).toBe('acme');
  });

  it('does the same inside a claims-namespace claim and for "constructor"', async () => {
    const token = signedText(
      `{"ctx":{"__proto__":{"role":"admin"},"constructor":{"name":"x"},"tenant":"acme"},"exp":${exp()}}`,
    );
    const jwksUri = 'http://127.0.0.1:9/jwks.json';
    // The namespace applies on the key-set path: shape it with a securityContext function on the shared-secret path instead.
    const { fresh, answers } = await freshAndCached(
      { jwksUri, securityContext: (context) => context.ctx as Record<string, unknown> },
      token,
    );
    expect(fresh.role).toBeUndefined();
    for (const answer of answers) sameAs(answer, fresh);
  });

  it('copies a null-prototype object a securityContext function returns, keeping its prototype', async () => {
    const securityContext = (context: Record<string, unknown>) =>
      Object.assign(Object.create(null) as Record<string, unknown>, context);
    const { fresh, answers } = await freshAndCached(
      { securityContext },
      signedText(`{"tenant":"acme","exp":${exp()}}`),
    );
    expect(Object.getPrototypeOf(fresh)).toBeNull();
    for (const answer of answers) sameAs(answer, fresh);
    (answers[0] as Record<string, unknown>).tenant = 'changed';
    expect(answers[1]?.tenant).toBe('acme');
  });

  it('answers a payload nested 3000 levels deep from the cache as verification does', async () => {
    const deep = `${'['.repeat(3000)}1${']'.repeat(3000)}`;
    const { fresh, answers } = await freshAndCached({}, signedText(`{"deep":${deep},"exp":${exp()}}`));
    for (const answer of answers) expect(depthOf(answer.deep)).toEqual(depthOf(fresh.deep));
    expect(depthOf(fresh.deep)).toEqual({ depth: 3000, leaf: 1 });
  });
});

/** How deep `[[[…1…]]]` goes, walked without recursion (JSON.stringify overflows the stack at this depth). */
function depthOf(value: unknown): { depth: number; leaf: unknown } {
  let depth = 0;
  let current = value;
  for (; Array.isArray(current); depth++) current = current[0];
  return { depth, leaf: current };
}

function exp(): number {
  return Math.floor(Date.now() / 1000) + 300;
}
