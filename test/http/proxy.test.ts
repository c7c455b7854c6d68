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

  /** The cases of `url`: each NO_PROXY list of `bypassing` bypasses the proxy for it, each of `notBypassing` does not. */
  const noProxyCases = (url: string, bypassing: string[], notBypassing: string[] = []) => [
    ...bypassing.map((noProxy) => [noProxy, url, true] as const),
    ...notBypassing.map((noProxy) => [noProxy, url, false] as const),
  ];

  // curl's reading (lib/proxy.c), plus ports and brackets as undici, Go and Node read them.
  it.each([
    // `*` alone bypasses every host; as one entry among others it names no host (curl, undici, Go).
    ...noProxyCases('https://idp.example/jwks', ['*', ' * '], ['localhost, *']),
    // A name matches itself and its subdomains, with or without a leading dot or `*.`; never a longer name.
    ...noProxyCases('https://idp.example/jwks', ['idp.example', 'example', '.idp.example'], ['xample']),
    ...noProxyCases('https://login.idp.example/jwks', ['.example', '*.idp.example']),
    ...noProxyCases('https://idp.example.org/jwks', [], ['idp.example']),
    // Case, blanks, and the trailing dot of a fully qualified name do not matter.
    ...noProxyCases('https://idp.example/jwks', ['IDP.Example', '  other.example,\tidp.example  ']),
    ...noProxyCases('https://idp.example/jwks', ['other.example idp.example', 'idp.example.']),
    ...noProxyCases('https://idp.example./jwks', ['idp.example']),
    // A port limits an entry to that port (the scheme's own when the URL has none).
    ...noProxyCases('https://idp.example/jwks', ['idp.example:443'], ['idp.example:8443']),
    ...noProxyCases('http://127.0.0.1:4000/jwks', ['127.0.0.1:4000'], ['127.0.0.1:4001']),
    // IP addresses are compared as addresses, never as names: no suffix match, no name resolution.
    ...noProxyCases('http://127.0.0.1:4000/jwks', ['other.example, 127.0.0.1'], ['.0.0.1', 'localhost']),
    ...noProxyCases('https://10.20.30.40/jwks', ['10.0.0.0/8']),
    ...noProxyCases('https://11.20.30.40/jwks', [], ['10.0.0.0/8']),
    // IPv6 with brackets or without (curl's own form), any spelling of the same address, a prefix, a port.
    ...noProxyCases('http://[::1]:4000/jwks', ['::1', '[::1]', '0:0:0:0:0:0:0:1', '[::1]:4000'], ['[::1]:8080']),
    ...noProxyCases('http://[::2]:4000/jwks', [], ['::1']),
    ...noProxyCases('https://[fd12:3456::1]/jwks', ['fd00::/8']),
    ...noProxyCases('https://[fe80::1]/jwks', [], ['fd00::/8']),
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
