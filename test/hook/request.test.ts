import { IncomingMessage } from 'node:http';
import { Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { extractToken, pathChooser, readHeader, withoutBearer } from '../../src/hook/request';

function nodeRequest(headers: Record<string, string>): IncomingMessage {
  const req = new IncomingMessage(new Socket());
  for (const [name, value] of Object.entries(headers)) req.headers[name.toLowerCase()] = value;
  return req;
}

function expressLike(headers: Record<string, string>) {
  const lower = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));
  return { get: (name: string) => lower[name.toLowerCase()] };
}

describe('readHeader', () => {
  const cases: [string, unknown][] = [
    ['Node IncomingMessage', nodeRequest({ 'Request-Origin': 'embeddable' })],
    ['Express req.get only', expressLike({ 'Request-Origin': 'embeddable' })],
    ['Fetch Headers', { headers: new Headers({ 'Request-Origin': 'embeddable' }) }],
    ['hand-built headers in sender case', { headers: { 'REQUEST-ORIGIN': 'embeddable' } }],
    ['repeated header as array', { headers: { 'request-origin': ['embeddable', 'other'] } }],
  ];
  it.each(cases)('reads a header from a %s', (_, req) => {
    expect(readHeader(req, 'request-origin')).toBe('embeddable');
  });

  it("walks the header names of a hand-built request for another casing, never a Node request's, which Node lower-cased", () => {
    const req = nodeRequest({ Authorization: 'Bearer abc.def.ghi' });
    let walks = 0;
    req.headers = new Proxy(req.headers, {
      ownKeys: (target) => {
        walks++;
        return Reflect.ownKeys(target);
      },
    });
    expect(readHeader(req, 'request-origin')).toBeUndefined();
    expect(walks).toBe(0);
    expect(readHeader({ headers: req.headers }, 'request-origin')).toBeUndefined();
    expect(walks).toBe(1);
  });

  it.each([
    ['WebSocket call without headers', { isSubscription: true, protocol: 'ws' }],
    ['undefined', undefined],
    ['null', null],
    ['a string', 'GET /'],
    ['headers that is a number', { headers: 42 }],
    [
      'a get that throws',
      {
        get: () => {
          throw new Error('boom');
        },
      },
    ],
  ])('returns undefined for %s, without throwing', (_, req) => {
    expect(readHeader(req, 'request-origin')).toBeUndefined();
  });
});

describe('extractToken', () => {
  it('prefers the auth argument Cube passes', () => {
    expect(extractToken(nodeRequest({ Authorization: 'header-token' }), 'argument-token')).toBe('argument-token');
  });

  it.each(['Bearer abc.def.ghi', 'bearer abc.def.ghi', 'BEARER   abc.def.ghi', '  abc.def.ghi  ', 'abc.def.ghi'])(
    'accepts %j',
    (value) => {
      expect(extractToken({}, value)).toBe('abc.def.ghi');
    },
  );

  it('falls back to Authorization, then X-Cube-Authorization', () => {
    expect(extractToken(nodeRequest({ Authorization: 'Bearer from-authorization' }), undefined)).toBe(
      'from-authorization',
    );
    expect(extractToken(nodeRequest({ 'X-Cube-Authorization': 'from-cube-header' }), undefined)).toBe(
      'from-cube-header',
    );
  });

  it.each([undefined, '', '   ', 'Bearer', 'Bearer   ', 42, {}])('finds no token in %j', (auth) => {
    expect(extractToken({ protocol: 'ws' }, auth)).toBeUndefined();
  });
});

describe("withoutBearer: the one reading of a Bearer scheme, the hook's and the CLI's", () => {
  it.each(['Bearer eyJ.a.b', 'bearer \t eyJ.a.b', 'BEARER eyJ.a.b'])('%j gives the token after the scheme', (text) => {
    expect(withoutBearer(text)).toBe('eyJ.a.b');
  });

  it('gives an empty token for the scheme alone', () => {
    expect(withoutBearer('Bearer')).toBe('');
  });

  // Only the scheme followed by blanks, or alone: a token that merely starts with the word is kept.
  it.each(['eyJ.a.b', 'Bearereyj', 'Basic dXNlcg=='])('keeps %j as it is', (text) => {
    expect(withoutBearer(text)).toBe(text);
  });
});

describe('pathChooser', () => {
  const choosePath = pathChooser('embeddable');

  it('chooses the shared-secret path when the origin matches, ignoring case and surrounding space', () => {
    expect(choosePath(nodeRequest({ 'Request-Origin': ' Embeddable ' }))).toEqual({
      path: 'shared-secret',
      reason: 'Request-Origin is "embeddable": the shared-secret path (service tokens)',
    });
  });

  it('chooses the key-set path for another value, a missing header or a WebSocket call, and says which', () => {
    expect(choosePath(nodeRequest({ 'Request-Origin': 'embeddable-evil' }))).toEqual({
      path: 'key-set',
      reason: 'Request-Origin is not "embeddable": the key-set path (identity provider tokens)',
    });
    const noHeader = {
      path: 'key-set',
      reason: 'no Request-Origin header: the key-set path (identity provider tokens)',
    };
    expect(choosePath(nodeRequest({}))).toEqual(noHeader);
    expect(choosePath({ isSubscription: true, protocol: 'ws' })).toEqual(noHeader);
  });
});

describe('one request, one path', () => {
  const choosePath = pathChooser('embeddable');

  it.each([
    ['an array of two values', { 'request-origin': ['embeddable', 'embeddable'] }],
    ['an array whose first value matches', { 'request-origin': ['embeddable', 'partner'] }],
    ["Node's comma-joined form", { 'request-origin': 'embeddable, embeddable' }],
    ["Node's comma-joined form, first value matching", { 'request-origin': 'embeddable,partner' }],
  ])('sends several Request-Origin values (%s) to the key-set path', (_, headers) => {
    expect(choosePath({ headers })).toEqual({
      path: 'key-set',
      reason: 'several Request-Origin values: the key-set path (identity provider tokens)',
    });
  });

  it('takes an array of exactly one value as that value', () => {
    expect(choosePath({ headers: { 'request-origin': [' Embeddable '] } }).path).toBe('shared-secret');
  });

  it('reads no inherited header', () => {
    const headers = Object.create({ 'request-origin': 'embeddable' }) as Record<string, string>;
    expect(choosePath({ headers }).path).toBe('key-set');
  });
});
