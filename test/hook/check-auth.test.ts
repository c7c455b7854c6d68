import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  createCheckAuth,
  DualAuthError,
  type AuthEvent,
  type CheckAuth,
  type KeySetAlgorithm,
  type SecurityContext,
} from '../../src';
import { createNamedCheckAuth } from '../../src/hook/check-auth';
import { ENV_NAMES } from '../../src/config/options';
import { optionsFromEnv } from '../../src/config/env';
import { randomSecret, timed, type TimedOptions } from '../support/claims';
import { generateKeyPair, jwks } from '../support/keys';
import { startJwksServer, type JwksServer } from '../support/jwks-server';
import { base64url, signToken } from '../support/tokens';
import { appRequest, contextOf, rejectionOf, serviceRequest } from '../support/requests';
import { cubesContext, withEnv } from '../support/cube';
import { watchLateness } from '../support/lateness';

const secret = randomSecret();
const hs = (payload: Record<string, unknown>, options: TimedOptions = {}) =>
  signToken(timed(payload, options), { alg: 'HS256', key: secret });
const unusedJwks = 'http://127.0.0.1:9/jwks.json';

describe('checkAuth: token and request handling', () => {
  const checkAuth = createCheckAuth({ apiSecret: secret, detailedErrors: true });

  it.each([undefined, '', 'Bearer ', '   '])(
    'refuses a missing token (%j) with exactly "Authentication required"',
    async (auth) => {
      const error = await rejectionOf(checkAuth(serviceRequest(), auth));
      expect(error).toBeInstanceOf(DualAuthError);
      expect(error).toMatchObject({
        status: 403,
        code: 'ERR_TOKEN_MISSING',
        message: 'Authentication required',
        path: undefined,
      });
    },
  );

  it('reads the token from the Authorization header when Cube passes none', async () => {
    const req = { headers: { 'request-origin': 'embeddable', authorization: `Bearer ${hs({ tenant: 'acme' })}` } };
    expect(await contextOf(checkAuth, req)).toMatchObject({ tenant: 'acme' });
  });

  it('reads headers from a Fetch Headers object and from Express-style req.get', async () => {
    const fetchStyle = { headers: new Headers({ 'Request-Origin': 'embeddable' }) };
    const expressStyle = {
      get: (name: string) => (name.toLowerCase() === 'request-origin' ? 'embeddable' : undefined),
    };
    expect(await contextOf(checkAuth, fetchStyle, hs({ a: 1 }))).toMatchObject({ a: 1 });
    expect(await contextOf(checkAuth, expressStyle, hs({ b: 2 }))).toMatchObject({ b: 2 });
  });

  it('sends a WebSocket call without headers to the key-set path, never a TypeError', async () => {
    const error = await rejectionOf(checkAuth({ isSubscription: true, protocol: 'ws' }, hs({})));
    expect(error.code).toBe('ERR_JWKS_NOT_CONFIGURED');
    expect(error.message).toMatch(
      /^Key-set path is not configured on this deployment \(option "jwksUri" is not set, nor option "providers", nor one issuer URL in option "issuer" to discover it from\)/,
    );
  });

  it('names the environment variable in a message only when the option came from the environment', async () => {
    const fromEnv = createNamedCheckAuth(
      optionsFromEnv({ CUBEJS_API_SECRET: secret, CUBE_DUAL_AUTH_DETAILED_ERRORS: 'true' }),
      { names: ENV_NAMES },
    );
    const error = await rejectionOf(fromEnv({ isSubscription: true, protocol: 'ws' }, hs({})));
    expect(error.message).toMatch(
      /^Key-set path is not configured on this deployment \(CUBEJS_JWK_URL is not set, nor CUBE_DUAL_AUTH_PROVIDERS, nor one issuer URL in CUBEJS_JWT_ISSUER to discover it from\)/,
    );
  });

  it('sends a request without the origin header to the key-set path, so an HS256 token is refused there', async () => {
    const withJwks = createCheckAuth({ apiSecret: secret, jwksUri: unusedJwks, detailedErrors: true });
    const error = await rejectionOf(withJwks(appRequest(), hs({})));
    expect(error).toMatchObject({ code: 'ERR_ALG_NOT_ALLOWED', path: 'key-set' });
    expect(error.message).toBe(
      'Algorithm "HS256" is not accepted on the key-set path (RS256 only): a token signed with the API secret needs the header "Request-Origin: embeddable"',
    );
    withJwks.close();
  });

  it('honours a configured origin value', async () => {
    const partner = createCheckAuth({ apiSecret: secret, origin: 'Partner' });
    expect(await contextOf(partner, serviceRequest('partner'), hs({ ok: true }))).toMatchObject({ ok: true });
    expect((await rejectionOf(partner(serviceRequest('embeddable'), hs({})))).path).toBe('key-set');
  });

  it.each([
    ['a string', '"tenant"'],
    ['an array', '[1,2]'],
    ['null', 'null'],
    ['a number', '42'],
  ])('refuses a payload that is %s', async (_, json) => {
    const token = signToken(JSON.parse(json), { alg: 'HS256', key: secret });
    const error = await rejectionOf(checkAuth(serviceRequest(), token));
    expect(error).toMatchObject({
      code: 'ERR_PAYLOAD_NOT_OBJECT',
      message: 'Token payload is not a JSON object; a security context must be one',
    });
  });

  it.each([
    ['one part', 'abc', /expected three dot-separated parts/],
    ['four parts', 'a.b.c.d', /header is not JSON|expected three/],
    ['a header that is not JSON', `${base64url('nope')}.${base64url(JSON.stringify({}))}.c2ln`, /header is not JSON/],
    [
      'a header without alg',
      `${base64url(JSON.stringify({ typ: 'JWT' }))}.${base64url(JSON.stringify({}))}.c2ln`,
      /header has no "alg"/,
    ],
    [
      'a crit header',
      `${base64url(JSON.stringify({ alg: 'HS256', crit: ['b64'] }))}.${base64url(JSON.stringify({}))}.c2ln`,
      /critical extensions/,
    ],
    [
      'a payload that is not base64url',
      `${base64url(JSON.stringify({ alg: 'HS256' }))}.@@@.c2ln`,
      /payload is not base64url/,
    ],
    [
      'an empty signature',
      `${base64url(JSON.stringify({ alg: 'HS256' }))}.${base64url(JSON.stringify({}))}.`,
      /signature is missing/,
    ],
  ])('refuses a malformed token: %s', async (_, token, message) => {
    const error = await rejectionOf(checkAuth(serviceRequest(), token));
    expect(error.code).toBe('ERR_TOKEN_MALFORMED');
    expect(error.message).toMatch(message);
  });

  it('refuses a 1 MB token at once, without decoding it', async () => {
    const huge = `${base64url(JSON.stringify({ alg: 'HS256' }))}.${'A'.repeat(1024 * 1024)}.c2ln`;
    const watch = watchLateness();
    const started = process.hrtime.bigint();
    const error = await rejectionOf(checkAuth(serviceRequest(), huge));
    const elapsedMs = Number(process.hrtime.bigint() - started) / 1e6;
    expect(error.message).toBe('Malformed token: longer than 16384 characters');
    expect(elapsedMs).toBeLessThan(50 + watch.stop());
  });
});

describe('checkAuth: claims', () => {
  const checkAuth = createCheckAuth({ apiSecret: secret, clockTolerance: 5, tokenCacheSize: 0 });
  const now = Math.floor(Date.now() / 1000);

  it('accepts a token inside the clock tolerance and refuses one beyond it', async () => {
    expect(await contextOf(checkAuth, serviceRequest(), hs({ exp: now - 2 }, { expiresIn: null }))).toBeTruthy();
    expect((await rejectionOf(checkAuth(serviceRequest(), hs({ exp: now - 10 }, { expiresIn: null })))).code).toBe(
      'ERR_TOKEN_EXPIRED',
    );
  });

  it('refuses a token before its nbf, naming the time', async () => {
    const error = await rejectionOf(checkAuth(serviceRequest(), hs({ nbf: now + 600 })));
    expect(error.code).toBe('ERR_TOKEN_NOT_YET_VALID');
    expect(error.message).toBe(`Token not valid before ${new Date((now + 600) * 1000).toISOString().slice(0, 19)}Z`);
  });

  it('accepts a token without exp (the service decides its lifetime)', async () => {
    const token = signToken({ tenant: 'x' }, { alg: 'HS256', key: secret });
    expect(await contextOf(checkAuth, serviceRequest(), token)).toEqual({ tenant: 'x' });
  });

  it.each(['exp', 'nbf', 'iat'])('refuses a non-numeric %s', async (claim) => {
    const error = await rejectionOf(checkAuth(serviceRequest(), hs({ [claim]: 'tomorrow' })));
    expect(error).toMatchObject({
      code: 'ERR_CLAIM_INVALID',
      message: `Claim "${claim}" must be a number of seconds since 1970`,
    });
  });

  it('enforces a maximum token age by iat, which it then requires', async () => {
    const strict = createCheckAuth({ apiSecret: secret, maxTokenAge: 60 });
    expect(await contextOf(strict, serviceRequest(), hs({}, { now: now - 30 }))).toBeTruthy();
    expect((await rejectionOf(strict(serviceRequest(), hs({}, { now: now - 3600, expiresIn: 7200 })))).code).toBe(
      'ERR_TOKEN_TOO_OLD',
    );
    const withoutIat = signToken({ exp: now + 60 }, { alg: 'HS256', key: secret });
    const error = await rejectionOf(strict(serviceRequest(), withoutIat));
    expect(error.message).toMatch(/Claim "iat" is required/);
  });
});

const idpKey = generateKeyPair('RS256');
const ecKeys = (['ES256', 'ES384', 'ES512'] as const).map((alg) => generateKeyPair(alg));
let idp: JwksServer;
beforeAll(async () => {
  idp = await startJwksServer(jwks(idpKey, ...ecKeys));
});
afterAll(() => idp.close());

const rs = (payload: Record<string, unknown>, key = idpKey) => signToken(timed(payload), { key });

/** Cube's data model's SECURITY_CONTEXT under CUBEJS_JWT_CLAIMS_NAMESPACE (0.33.65 and 1.7.43's createSecurityContextExtractor). */
function modelContext(context: unknown, namespace: string): unknown {
  if (typeof context === 'object' && context !== null && namespace in context)
    return (context as Record<string, unknown>)[namespace];
  return {};
}

/** Makes hooks of both paths (the cache on) for the calling `describe` block, and closes them after its tests. */
function hookMaker(): (options?: Parameters<typeof createCheckAuth>[0]) => CheckAuth {
  const hooks: CheckAuth[] = [];
  afterAll(() => hooks.forEach((hook) => hook.close()));
  return (options = {}) => {
    const hook = createCheckAuth({ apiSecret: secret, jwksUri: idp.url, tokenCacheSize: 10, ...options });
    hooks.push(hook);
    return hook;
  };
}

describe('checkAuth: what it resolves to', () => {
  const make = hookMaker();

  it.each([
    ['shared-secret', serviceRequest, () => hs({ tenant: 'acme' })],
    ['key-set', appRequest, () => rs({ tenant: 'acme' })],
  ] as const)(
    'resolves to the very object it sets on req.securityContext (%s path), fresh and from the cache',
    async (path, request, token) => {
      const events: AuthEvent[] = [];
      const checkAuth = make({ onEvent: (event) => events.push(event) });
      const same = token();
      for (const cached of [false, true]) {
        const req = request();
        const resolved: SecurityContext = await checkAuth(req, same);
        expect(resolved).toBe(req.securityContext);
        expect(resolved).toMatchObject({ tenant: 'acme' });
        expect(events.at(-1)).toMatchObject({ type: 'accepted', path, cached });
      }
    },
  );

  it('resolves to the context shaped by the securityContext function, the one set on the request', async () => {
    const checkAuth = make({ securityContext: (context) => ({ tenant: context.tenant, shaped: true }) });
    for (const token of [hs({ tenant: 'acme' }), hs({ tenant: 'acme', other: 1 })]) {
      const req = serviceRequest();
      expect(await checkAuth(req, token)).toBe(req.securityContext);
      expect(req.securityContext).toEqual({ tenant: 'acme', shaped: true });
    }
  });

  it.each([null, undefined, 'a string', 42])(
    'resolves to the context when Cube passes no request object (%j)',
    async (req) => {
      await expect(make()(req, rs({ tenant: 'acme' }))).resolves.toMatchObject({ tenant: 'acme' });
    },
  );

  it.each([
    ['an object', { tenant: 'other' }],
    ['a string', 'other'],
    ['true', true],
    ['a number', 1],
  ])(
    "answers { security_context: context } when the context's security_context is truthy (%s): every Cube line gets the context",
    async (_, member) => {
      const checkAuth = make();
      for (const [req, token] of [
        [serviceRequest(), hs({ tenant: 'acme', security_context: member })],
        [appRequest(), rs({ tenant: 'acme', security_context: member })],
      ] as const) {
        const resolved = await checkAuth(req, token);
        const context = req.securityContext as Record<string, unknown>;
        expect(context).toMatchObject({ tenant: 'acme', security_context: member });
        expect(resolved).toEqual({ security_context: context });
        expect((resolved as { security_context: unknown }).security_context).toBe(context);
        expect(cubesContext(req, resolved)).toEqual({ '0.33': context, '1.7': context });
        expect(cubesContext(req, resolved)['1.7']).toBe(context);
      }
    },
  );

  it.each([0, '', null, false])(
    'resolves to the context itself when its security_context is falsy (%j): Cube 1.x then ignores it',
    async (member) => {
      const req = serviceRequest();
      const resolved = await make()(req, hs({ tenant: 'acme', security_context: member }));
      expect(resolved).toBe(req.securityContext);
      expect(cubesContext(req, resolved)['1.7']).toBe(req.securityContext);
    },
  );

  it('wraps a context whose security_context is inherited, as Cube reads it too', async () => {
    const inherited = make({
      securityContext: (context) =>
        Object.assign(Object.create({ security_context: 'from the prototype' }) as object, context),
    });
    const req = serviceRequest();
    const resolved = await inherited(req, hs({ tenant: 'acme' }));
    expect((resolved as { security_context: unknown }).security_context).toBe(req.securityContext);
    expect(cubesContext(req, resolved)['1.7']).toBe(req.securityContext);
  });
});

describe('checkAuth: the data model sees the context queryRewrite sees (CUBEJS_JWT_CLAIMS_NAMESPACE)', () => {
  const ns = 'https://cube.example/claims';
  const make = hookMaker();

  it("answers to the namespace with itself, even when the namespace claim holds a member of the namespace's name (fresh and cached)", async () => {
    const events: AuthEvent[] = [];
    const checkAuth = make({ claimsNamespace: ns, onEvent: (event) => events.push(event) });
    const token = rs({ [ns]: { tenant: 'globex', [ns]: { tenant: 'acme' } } });
    for (const cached of [false, true]) {
      const req = appRequest();
      const resolved = await checkAuth(req, token);
      expect(events.at(-1)).toMatchObject({ type: 'accepted', cached });
      const context = req.securityContext as Record<string, unknown>;
      expect(resolved).toBe(context);
      expect(context.tenant).toBe('globex');
      expect(modelContext(context, ns)).toBe(context);
      expect(JSON.stringify(context)).toBe('{"tenant":"globex"}');
    }
  });

  it('does the same on the shared-secret path, where Cube applies the namespace as well', async () => {
    const checkAuth = make({ claimsNamespace: ns });
    for (const payload of [{ tenant: 'acme' }, { tenant: 'acme', [ns]: { tenant: 'globex' } }]) {
      const req = serviceRequest();
      await checkAuth(req, hs(payload));
      expect(modelContext(req.securityContext, ns)).toBe(req.securityContext);
      expect(req.securityContext).toMatchObject({ tenant: 'acme' });
    }
  });

  it('answers to CUBEJS_JWT_CLAIMS_NAMESPACE as Cube reads it, also when createCheckAuth got no claimsNamespace', async () => {
    const checkAuth = await withEnv({ CUBEJS_JWT_CLAIMS_NAMESPACE: ns }, () => make());
    const req = appRequest();
    await checkAuth(req, rs({ tenant: 'globex', [ns]: { tenant: 'acme' } }));
    expect(req.securityContext).toMatchObject({ tenant: 'globex' });
    expect(modelContext(req.securityContext, ns)).toBe(req.securityContext);
  });

  it('copies a frozen context from the securityContext function into one that answers to the namespace', async () => {
    const checkAuth = make({ claimsNamespace: ns, securityContext: (context) => Object.freeze({ ...context }) });
    const req = appRequest();
    const resolved = await checkAuth(req, rs({ [ns]: { tenant: 'globex', [ns]: { tenant: 'acme' } } }));
    expect(resolved).toBe(req.securityContext);
    expect(modelContext(resolved, ns)).toBe(resolved);
    expect(resolved).toMatchObject({ tenant: 'globex' });
    expect(Object.isFrozen(resolved)).toBe(false);
  });

  it('refuses with a 403 ERR_INTERNAL, never a raw error (a 500 in Cube), a context that throws when given the member', async () => {
    const events: AuthEvent[] = [];
    const hostile = () =>
      new Proxy(
        { tenant: 'globex' },
        {
          defineProperty: () => {
            throw new TypeError('no new members');
          },
        },
      );
    const checkAuth = make({ claimsNamespace: ns, securityContext: hostile, onEvent: (event) => events.push(event) });
    const token = rs({ [ns]: { tenant: 'globex' } });
    const logged = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    try {
      const error = await rejectionOf(checkAuth(appRequest(), token));
      expect(error).toBeInstanceOf(DualAuthError);
      expect(error).toMatchObject({ status: 403, code: 'ERR_INTERNAL' });
      expect(events).toContainEqual({ type: 'internal-error', message: 'unexpected error: no new members' });
      await expect(checkAuth.explain(appRequest(), token)).resolves.toMatchObject({
        accepted: false,
        error: { code: 'ERR_INTERNAL' },
      });
      expect(logged).toHaveBeenCalledWith('cube-dual-auth: unexpected error: no new members');
    } finally {
      logged.mockRestore();
    }
  });

  it('explain reports the context as Cube gets it', async () => {
    const verdict = await make({ claimsNamespace: ns }).explain(
      appRequest(),
      rs({ [ns]: { tenant: 'globex', [ns]: { tenant: 'acme' } } }),
    );
    expect(modelContext(verdict.securityContext, ns)).toBe(verdict.securityContext);
    expect(JSON.stringify(verdict.securityContext)).toBe('{"tenant":"globex"}');
  });
});

describe('checkAuth: a malformed ECDSA signature is an invalid signature, never an internal error', () => {
  it.each(ecKeys.map((key) => [key.alg, key] as const))(
    '%s: too short, too long, DER-shaped, r = s = 0',
    async (alg, key) => {
      const events: AuthEvent[] = [];
      const checkAuth = createCheckAuth({
        jwksUri: idp.url,
        algorithms: [alg as KeySetAlgorithm],
        onEvent: (event) => events.push(event),
      });
      try {
        const good = rs({ tenant: 'acme' }, key);
        const signingInput = good.slice(0, good.lastIndexOf('.'));
        const size = Buffer.from(good.slice(good.lastIndexOf('.') + 1), 'base64url').length;
        for (const signature of [
          Buffer.from('3006020100020100', 'hex'),
          Buffer.alloc(1),
          Buffer.alloc(size - 1, 7),
          Buffer.alloc(size + 1, 7),
          Buffer.alloc(size * 2, 7),
          Buffer.alloc(size),
        ]) {
          const error = await rejectionOf(
            checkAuth(appRequest(), `${signingInput}.${signature.toString('base64url')}`),
          );
          expect(error, `${signature.length} bytes`).toMatchObject({
            status: 403,
            code: 'ERR_SIGNATURE_INVALID',
            message: `Invalid signature: the token is not signed by key "${key.kid}" of the JWKS`,
          });
        }
        expect(events.filter((event) => event.type === 'internal-error')).toEqual([]);
        await expect(checkAuth(appRequest(), good)).resolves.toMatchObject({ tenant: 'acme' });
      } finally {
        checkAuth.close();
      }
    },
  );
});

describe('checkAuth: security context', () => {
  it('shapes the context per path with the securityContext function', async () => {
    const checkAuth = createCheckAuth({
      apiSecret: secret,
      securityContext: (context, { path, payload }) => ({
        tenant: context.tenant,
        via: path,
        iatSeen: typeof payload.iat,
      }),
    });
    expect(await contextOf(checkAuth, serviceRequest(), hs({ tenant: 'acme', other: 1 }))).toEqual({
      tenant: 'acme',
      via: 'shared-secret',
      iatSeen: 'number',
    });
  });

  it('refuses when the securityContext function throws or returns a non-object, reporting the fault', async () => {
    const events: AuthEvent[] = [];
    const throwing = createCheckAuth({
      apiSecret: secret,
      securityContext: () => {
        throw new Error('tenant lookup failed');
      },
      onEvent: (event) => events.push(event),
    });
    const error = await rejectionOf(throwing(serviceRequest(), hs({})));
    expect(error).toMatchObject({
      code: 'ERR_SECURITY_CONTEXT_INVALID',
      message: 'The securityContext function refused the token',
    });
    expect(events).toContainEqual({
      type: 'internal-error',
      message: 'securityContext function failed: tenant lookup failed',
    });

    const nonObject = createCheckAuth({ apiSecret: secret, securityContext: () => 'acme' as never });
    expect((await rejectionOf(nonObject(serviceRequest(), hs({})))).message).toBe(
      'The securityContext function did not return an object',
    );
  });

  it('masks anything shaped like a token in the reported fault', async () => {
    const events: AuthEvent[] = [];
    const token = hs({ tenant: 'acme' });
    const leaky = createCheckAuth({
      apiSecret: secret,
      securityContext: () => {
        throw new Error(`cannot map ${token}`);
      },
      onEvent: (event) => events.push(event),
    });
    await rejectionOf(leaky(serviceRequest(), token));
    expect(events).toContainEqual({
      type: 'internal-error',
      message: 'securityContext function failed: cannot map [token]',
    });
  });

  it('passes a DualAuthError thrown by the securityContext function on with its own message', async () => {
    const checkAuth = createCheckAuth({
      apiSecret: secret,
      securityContext: () => {
        throw new DualAuthError('ERR_SECURITY_CONTEXT_INVALID', 'Tenant "acme" is suspended');
      },
    });
    expect((await rejectionOf(checkAuth(serviceRequest(), hs({})))).message).toBe('Tenant "acme" is suspended');
  });
});

describe('checkAuth: events', () => {
  it('reports accepted and rejected requests without the token', async () => {
    const onEvent = vi.fn<(event: AuthEvent) => void>();
    const checkAuth = createCheckAuth({ apiSecret: secret, onEvent });
    const token = hs({ tenant: 'acme' });
    await checkAuth(serviceRequest(), token);
    await rejectionOf(checkAuth(serviceRequest(), `${token}x`));
    const [accepted, rejected] = onEvent.mock.calls.map(([event]) => event);
    expect(accepted).toMatchObject({ type: 'accepted', path: 'shared-secret', cached: false });
    expect(rejected).toMatchObject({ type: 'rejected', path: 'shared-secret', code: 'ERR_SIGNATURE_INVALID' });
    expect(JSON.stringify(onEvent.mock.calls)).not.toContain(token.split('.')[2]);
  });

  it('keeps working when the listener throws', async () => {
    const checkAuth = createCheckAuth({
      apiSecret: secret,
      onEvent: () => {
        throw new Error('log sink down');
      },
    });
    expect(await contextOf(checkAuth, serviceRequest(), hs({ ok: 1 }))).toMatchObject({ ok: 1 });
  });
});

describe('checkAuth: explain', () => {
  it('reports the path, the reason and the outcome without throwing', async () => {
    const checkAuth = createCheckAuth({ apiSecret: secret });
    const verdict = await checkAuth.explain(serviceRequest(), hs({ tenant: 'acme' }));
    expect(verdict).toMatchObject({
      accepted: true,
      path: 'shared-secret',
      pathReason: 'Request-Origin is "embeddable": the shared-secret path (service tokens)',
      header: { alg: 'HS256', typ: 'JWT' },
      securityContext: { tenant: 'acme' },
    });
    const refused = await checkAuth.explain(appRequest(), hs({}));
    expect(refused).toMatchObject({ accepted: false, path: 'key-set', error: { code: 'ERR_JWKS_NOT_CONFIGURED' } });
    expect(refused.pathReason).toBe('no Request-Origin header: the key-set path (identity provider tokens)');
  });
});

describe('checkAuth: whatever the host object does, a 403 rejection', () => {
  const checkAuth = createCheckAuth({ apiSecret: secret });
  const throwingSet = () =>
    new Proxy(
      { headers: { 'request-origin': 'embeddable' } },
      {
        set: () => {
          throw new TypeError('read-only request');
        },
      },
    );

  it.each([
    ['a proxy that throws on assignment', throwingSet],
    ['a frozen request', () => Object.freeze({ headers: { 'request-origin': 'embeddable' } })],
    [
      'a request whose headers getter throws',
      () =>
        Object.defineProperty({}, 'headers', {
          get: () => {
            throw new Error('boom');
          },
        }),
    ],
  ])('%s: the returned promise rejects with a 403, never a synchronous throw', async (name, makeRequest) => {
    let promise: Promise<unknown> | undefined;
    expect(() => {
      promise = checkAuth(makeRequest(), hs({ tenant: 'acme' }));
    }).not.toThrow();
    const outcome = await (promise as Promise<unknown>).then(
      () => 'accepted',
      (error: unknown) => error,
    );
    if (name === 'a request whose headers getter throws') {
      // No headers: the key-set path, which is not configured here: a 403 all the same.
      expect(outcome).toMatchObject({ status: 403, code: 'ERR_JWKS_NOT_CONFIGURED' });
    } else {
      expect(outcome).toBeInstanceOf(DualAuthError);
      expect(outcome).toMatchObject({ status: 403, code: 'ERR_INTERNAL' });
    }
  });
});

describe('checkAuth: what a stranger learns', () => {
  it('names the failure in the body but no JWKS URL, host, or configuration name or value', async () => {
    const jwksUri = 'http://127.0.0.1:9/private/jwks.json';
    const events: AuthEvent[] = [];
    const checkAuth = createCheckAuth({
      apiSecret: secret,
      jwksUri,
      audience: 'internal-api',
      jwksTimeoutMs: 200,
      onEvent: (event) => events.push(event),
    });
    const withKid = `${base64url(JSON.stringify({ alg: 'RS256', kid: 'k1' }))}.${base64url(JSON.stringify(timed({})))}.c2ln`;
    const keyless = createCheckAuth({ apiSecret: secret });
    const refusals = [
      await rejectionOf(checkAuth(appRequest(), withKid)),
      await rejectionOf(checkAuth(appRequest(), hs({}))),
      await rejectionOf(keyless(appRequest(), hs({}))),
      await rejectionOf(createCheckAuth({ jwksUri })(serviceRequest(), hs({}))),
    ];
    expect(refusals.map((error) => error.code)).toEqual([
      'ERR_JWKS_UNREACHABLE',
      'ERR_ALG_NOT_ALLOWED',
      'ERR_JWKS_NOT_CONFIGURED',
      'ERR_SHARED_SECRET_NOT_CONFIGURED',
    ]);
    for (const { message } of refusals) {
      expect(message).not.toMatch(/127\.0\.0\.1|jwks\.json|private|CUBEJS_|option "|RS256 only|embeddable/);
    }
    expect(refusals[0]?.message).toBe("The identity provider's key set could not be reached");
    const logged = events.find((event) => event.type === 'rejected');
    expect(logged).toMatchObject({
      code: 'ERR_JWKS_UNREACHABLE',
      message: `JWKS URL ${jwksUri} unreachable: ECONNREFUSED`,
    });
    checkAuth.close();
  });

  it('sends the whole message with detailedErrors, for development', async () => {
    const error = await rejectionOf(createCheckAuth({ apiSecret: secret, detailedErrors: true })(appRequest(), hs({})));
    expect(error.message).toMatch(/option "jwksUri" is not set/);
  });

  it('puts a kid taken from a token into events as it puts it into messages: printable and capped', async () => {
    const events: AuthEvent[] = [];
    const checkAuth = createCheckAuth({
      jwksUri: 'http://127.0.0.1:9/jwks.json',
      jwksTimeoutMs: 200,
      onEvent: (event) => events.push(event),
    });
    const kid = `evil\u001b[31m\n${'x'.repeat(200)}`;
    const token = `${base64url(JSON.stringify({ alg: 'RS256', kid }))}.${base64url(JSON.stringify({}))}.c2ln`;
    await rejectionOf(checkAuth(appRequest(), token));
    const rejected = events.find((event) => event.type === 'rejected') as { kid?: string };
    expect(rejected.kid).toBe(`evil?[31m?${'x'.repeat(54)}...`);
    checkAuth.close();
  });
});
