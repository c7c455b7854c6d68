import { describe, expect, it } from 'vitest';
import { proxyFor } from '../../src/keys/proxy';

const proxy = (url: string, env: NodeJS.ProcessEnv) => proxyFor(new URL(url), env)?.href;

describe('proxyFor: the proxy the environment names for a URL', () => {
  it('takes HTTPS_PROXY for https and HTTP_PROXY for http, in either case of name', () => {
    const env = { HTTPS_PROXY: 'http://secure-proxy:3128', http_proxy: 'http://plain-proxy:3128' };
    expect(proxy('https://idp.example/jwks', env)).toBe('http://secure-proxy:3128/');
    expect(proxy('http://idp.example/jwks', env)).toBe('http://plain-proxy:3128/');
  });

  it('falls back to HTTP_PROXY for https, and reads a proxy given without a scheme', () => {
    expect(proxy('https://idp.example/jwks', { HTTP_PROXY: 'proxy.internal:8080' })).toBe('http://proxy.internal:8080/');
  });

  it('connects directly when no proxy is set, or an empty one', () => {
    expect(proxy('https://idp.example/jwks', {})).toBeUndefined();
    expect(proxy('https://idp.example/jwks', { HTTPS_PROXY: ' ' })).toBeUndefined();
  });

  it.each([
    ['*', 'https://idp.example/jwks', true],
    ['idp.example', 'https://idp.example/jwks', true],
    ['example', 'https://idp.example/jwks', true],
    ['.example', 'https://login.idp.example/jwks', true],
    ['*.idp.example', 'https://login.idp.example/jwks', true],
    ['idp.example:443', 'https://idp.example/jwks', true],
    ['idp.example:8443', 'https://idp.example/jwks', false],
    ['other.example, 127.0.0.1', 'http://127.0.0.1:4000/jwks', true],
    ['[::1]', 'http://[::1]:4000/jwks', true],
    ['xample', 'https://idp.example/jwks', false],
  ])('NO_PROXY=%s for %s bypasses the proxy: %s', (noProxy, url, bypassed) => {
    expect(proxy(url, { HTTPS_PROXY: 'http://p:1', HTTP_PROXY: 'http://p:1', NO_PROXY: noProxy }) === undefined).toBe(bypassed);
  });
});
