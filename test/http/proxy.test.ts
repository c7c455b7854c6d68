import { describe, expect, it } from 'vitest';
import { proxyFor } from '../../src/http/proxy';

const proxy = (url: string, env: NodeJS.ProcessEnv) => proxyFor(new URL(url), env)?.href;

describe('proxyFor: the proxy the environment names for a URL', () => {
  it('takes HTTPS_PROXY for https and HTTP_PROXY for http, in either case of name', () => {
    const env = { HTTPS_PROXY: 'http://secure-proxy:3128', http_proxy: 'http://plain-proxy:3128' };
    expect(proxy('https://idp.example/jwks', env)).toBe('http://secure-proxy:3128/');
    expect(proxy('http://idp.example/jwks', env)).toBe('http://plain-proxy:3128/');
  });

  it('falls back to HTTP_PROXY for https, and reads a proxy given without a scheme', () => {
    expect(proxy('https://idp.example/jwks', { HTTP_PROXY: 'proxy.internal:8080' })).toBe(
      'http://proxy.internal:8080/',
    );
  });

  it('connects directly when no proxy is set, or an empty one', () => {
    expect(proxy('https://idp.example/jwks', {})).toBeUndefined();
    expect(proxy('https://idp.example/jwks', { HTTPS_PROXY: ' ' })).toBeUndefined();
  });

  // curl's reading (lib/proxy.c), plus ports and brackets as undici, Go and Node read them.
  it.each([
    // `*` alone bypasses every host; as one entry among others it names no host (curl, undici, Go).
    ['*', 'https://idp.example/jwks', true],
    [' * ', 'https://idp.example/jwks', true],
    ['localhost, *', 'https://idp.example/jwks', false],
    // A name matches itself and its subdomains, with or without a leading dot or `*.`; never a longer name.
    ['idp.example', 'https://idp.example/jwks', true],
    ['example', 'https://idp.example/jwks', true],
    ['.example', 'https://login.idp.example/jwks', true],
    ['.idp.example', 'https://idp.example/jwks', true],
    ['*.idp.example', 'https://login.idp.example/jwks', true],
    ['xample', 'https://idp.example/jwks', false],
    ['idp.example', 'https://idp.example.org/jwks', false],
    // Case, blanks, and the trailing dot of a fully qualified name do not matter.
    ['IDP.Example', 'https://idp.example/jwks', true],
    ['  other.example,\tidp.example  ', 'https://idp.example/jwks', true],
    ['other.example idp.example', 'https://idp.example/jwks', true],
    ['idp.example.', 'https://idp.example/jwks', true],
    ['idp.example', 'https://idp.example./jwks', true],
    // A port limits an entry to that port (the scheme's own when the URL has none).
    ['idp.example:443', 'https://idp.example/jwks', true],
    ['idp.example:8443', 'https://idp.example/jwks', false],
    ['127.0.0.1:4000', 'http://127.0.0.1:4000/jwks', true],
    ['127.0.0.1:4001', 'http://127.0.0.1:4000/jwks', false],
    // IP addresses are compared as addresses, never as names: no suffix match, no name resolution.
    ['other.example, 127.0.0.1', 'http://127.0.0.1:4000/jwks', true],
    ['.0.0.1', 'http://127.0.0.1:4000/jwks', false],
    ['localhost', 'http://127.0.0.1:4000/jwks', false],
    ['10.0.0.0/8', 'https://10.20.30.40/jwks', true],
    ['10.0.0.0/8', 'https://11.20.30.40/jwks', false],
    // IPv6 with brackets or without (curl's own form), any spelling of the same address, a prefix, a port.
    ['::1', 'http://[::1]:4000/jwks', true],
    ['[::1]', 'http://[::1]:4000/jwks', true],
    ['0:0:0:0:0:0:0:1', 'http://[::1]:4000/jwks', true],
    ['[::1]:4000', 'http://[::1]:4000/jwks', true],
    ['[::1]:8080', 'http://[::1]:4000/jwks', false],
    ['::1', 'http://[::2]:4000/jwks', false],
    ['fd00::/8', 'https://[fd12:3456::1]/jwks', true],
    ['fd00::/8', 'https://[fe80::1]/jwks', false],
  ])('NO_PROXY=%j for %s bypasses the proxy: %s', (noProxy, url, bypassed) => {
    expect(proxy(url, { HTTPS_PROXY: 'http://p:1', HTTP_PROXY: 'http://p:1', NO_PROXY: noProxy }) === undefined).toBe(
      bypassed,
    );
  });

  it('reads no_proxy before NO_PROXY, as curl does: the lower-case one, when set, is the list, even empty', () => {
    const env = { HTTPS_PROXY: 'http://p:1', NO_PROXY: 'idp.example' };
    expect(proxy('https://idp.example/jwks', env)).toBeUndefined();
    expect(proxy('https://idp.example/jwks', { ...env, no_proxy: 'other.example' })).toBe('http://p:1/');
    expect(proxy('https://idp.example/jwks', { ...env, no_proxy: '' })).toBe('http://p:1/');
  });
});
