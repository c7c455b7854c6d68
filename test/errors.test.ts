import { createRequire } from 'node:module';
import { afterEach, describe, expect, it } from 'vitest';
import { createCheckAuth, DualAuthError, forbidden } from '../src';
import { maskTokens, mayHoldToken, quote, resetHostErrorClass, toThrowable } from '../src/errors';
import { randomSecret } from './support/claims';
import { rejectionOf, serviceRequest } from './support/requests';

const nodeRequire = createRequire(import.meta.url);
const gatewayModuleId = '/srv/cube/node_modules/@cubejs-backend/api-gateway/dist/src/CubejsHandlerError.js';

/** The shape of Cube's class (packages/cubejs-api-gateway/src/CubejsHandlerError.ts), loaded as Cube loads it. */
class CubejsHandlerError extends Error {
  constructor(
    readonly status: number,
    readonly type: string,
    message: string,
  ) {
    super(message || type);
  }
}

function loadFakeGateway(): void {
  nodeRequire.cache[gatewayModuleId] = { id: gatewayModuleId, loaded: true, exports: { CubejsHandlerError } } as never;
  resetHostErrorClass();
}

afterEach(() => {
  delete nodeRequire.cache[gatewayModuleId];
  resetHostErrorClass();
});

describe('rejections outside Cube', () => {
  it('are DualAuthErrors with status 403, type Forbidden and a stable code', () => {
    const thrown = toThrowable(new DualAuthError('ERR_TOKEN_EXPIRED', 'Token expired at x', 'key-set'));
    expect(thrown).toBeInstanceOf(DualAuthError);
    expect(thrown).toMatchObject({
      status: 403,
      type: 'Forbidden',
      code: 'ERR_TOKEN_EXPIRED',
      path: 'key-set',
      name: 'DualAuthError',
    });
  });
});

describe('rejections inside Cube', () => {
  it("are instances of the loaded Cube's CubejsHandlerError, and still DualAuthErrors", async () => {
    loadFakeGateway();
    const checkAuth = createCheckAuth({ apiSecret: randomSecret() });
    const error = await rejectionOf(checkAuth(serviceRequest(), undefined));
    expect(error).toBeInstanceOf(CubejsHandlerError);
    expect(error).toBeInstanceOf(DualAuthError);
    expect(error).toMatchObject({
      status: 403,
      type: 'Forbidden',
      message: 'Authentication required',
      code: 'ERR_TOKEN_MISSING',
    });
    expect(error.stack).toBe('DualAuthError: Authentication required');
  });
});

describe('quote', () => {
  it('caps length and strips control characters from values taken from a token', () => {
    expect(quote('k1')).toBe('"k1"');
    expect(quote('a\nb\u0000c')).toBe('"a?b?c"');
    expect(quote('x'.repeat(500))).toBe(`"${'x'.repeat(64)}..."`);
    expect(quote(['aud'])).toBe('"[\\"aud\\"]"');
  });
});

describe('maskTokens and mayHoldToken', () => {
  it('mask every token-shaped text, whole or cut, and mayHoldToken says yes wherever masking changes anything', () => {
    const texts = [
      'Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ1In0.c2ln',
      'cut: eyJhbGciOiJIUzI1NiJ9.eyJz',
      'eyJ',
      'plain text',
      'EYJ',
      'ey J',
      '',
    ];
    expect(texts.map(maskTokens)).toEqual([
      'Bearer [token]',
      'cut: [token]',
      '[token]',
      'plain text',
      'EYJ',
      'ey J',
      '',
    ]);
    for (const text of texts) if (maskTokens(text) !== text) expect(mayHoldToken(text), text).toBe(true);
    expect(texts.map(mayHoldToken)).toEqual([true, true, true, false, false, false, false]);
  });
});

describe('forbidden: a refusal of your own code, answered 403', () => {
  it("is the running Cube's CubejsHandlerError, 403, with your message and no stack beyond it", () => {
    loadFakeGateway();
    const error = forbidden('No tenant in the security context');
    expect(error).toBeInstanceOf(CubejsHandlerError);
    expect(error).toBeInstanceOf(DualAuthError);
    expect(error).toMatchObject({
      status: 403,
      type: 'Forbidden',
      code: 'ERR_FORBIDDEN',
      message: 'No tenant in the security context',
    });
    expect(error.stack).toBe('DualAuthError: No tenant in the security context');
  });

  it('outside Cube is a DualAuthError, and an empty message becomes "Forbidden"', () => {
    expect(forbidden('')).toMatchObject({ status: 403, code: 'ERR_FORBIDDEN', message: 'Forbidden' });
    expect(forbidden('x')).toBeInstanceOf(DualAuthError);
  });
});
