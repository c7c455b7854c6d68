import { describe, expect, it } from 'vitest';
import { checkedUrl, isLoopback, type UrlWording } from '../../src/http/url';

const WORDING: UrlWording = {
  'not-a-url': 'not-a-url',
  scheme: 'scheme',
  credentials: 'credentials',
  'query-or-fragment': 'query-or-fragment',
};

/** The problem `checkedUrl` finds first, or the URL it returns. */
function check(text: string, rule?: Parameters<typeof checkedUrl>[3]): string {
  try {
    return checkedUrl(
      text,
      WORDING,
      (message) => {
        throw new Error(message);
      },
      rule,
    ).href;
  } catch (error) {
    return `problem: ${(error as Error).message}`;
  }
}

describe('checkedUrl: the one rule for a URL requests are sent to', () => {
  it.each([
    ['https://idp.example/jwks', 'https://idp.example/jwks'],
    ['http://127.0.0.1:4000', 'http://127.0.0.1:4000/'],
    ['idp.example/jwks', 'problem: not-a-url'],
    ['', 'problem: not-a-url'],
    ['ftp://idp.example/jwks', 'problem: scheme'],
    ['https://user:pw@idp.example/jwks', 'problem: credentials'],
    ['https://user@idp.example/jwks', 'problem: credentials'],
    // A query or a fragment is a problem only for a bare URL.
    ['https://idp.example/jwks?x=1', 'https://idp.example/jwks?x=1'],
  ])('%j: %s', (text, outcome) => {
    expect(check(text)).toBe(outcome);
  });

  it('refuses a query or a fragment when the URL must be bare, after the other problems', () => {
    expect(check('https://idp.example/?x=1', { bare: true })).toBe('problem: query-or-fragment');
    expect(check('https://idp.example/#top', { bare: true })).toBe('problem: query-or-fragment');
    expect(check('https://user:pw@idp.example/?x=1', { bare: true })).toBe('problem: credentials');
  });

  it("takes the caller's scheme rule, checked before the credentials", () => {
    const loopbackOnly = (url: URL) => url.protocol === 'https:' || url.hostname === 'localhost';
    expect(check('http://localhost:3000', { scheme: loopbackOnly })).toBe('http://localhost:3000/');
    expect(check('http://user:pw@api.example', { scheme: loopbackOnly })).toBe('problem: scheme');
  });
});

describe('isLoopback: the hosts plain http may go to', () => {
  it.each([
    ['http://localhost:3000', true],
    ['http://127.0.0.1:4000/x', true],
    ['http://[::1]:8080', true],
    ['http://localhost.example', false],
    ['http://127.0.0.2', false],
    ['https://api.example', false],
  ])('%s: %s', (text, loopback) => {
    expect(isLoopback(new URL(text))).toBe(loopback);
  });
});
