/**
 * Outbound requests through the proxy the environment names, as Cube's own JWKS fetcher does (it uses `proxy-agent`)
 * and as operators expect: `HTTPS_PROXY` for https URLs, `HTTP_PROXY` for http ones (lower-case names too), never for
 * a host that `NO_PROXY` lists. An https URL is tunnelled with CONNECT, so the proxy never sees the key set in clear.
 */
import * as http from 'node:http';
import * as https from 'node:https';
import { isIP } from 'node:net';
import type { Duplex } from 'node:stream';
import * as tls from 'node:tls';

/** The proxy to use for `url`, or undefined to connect directly. */
export function proxyFor(url: URL, env: NodeJS.ProcessEnv = process.env): URL | undefined {
  const https = url.protocol === 'https:';
  const configured = https ? variable(env, 'https_proxy') ?? variable(env, 'http_proxy') : variable(env, 'http_proxy');
  if (configured === undefined || bypasses(url, variable(env, 'no_proxy'))) return undefined;
  try {
    return new URL(/^[a-z][a-z\d+.-]*:\/\//i.test(configured) ? configured : `http://${configured}`);
  } catch {
    return undefined;
  }
}

function variable(env: NodeJS.ProcessEnv, lowerName: string): string | undefined {
  const value = (env[lowerName] ?? env[lowerName.toUpperCase()])?.trim();
  return value === undefined || value === '' ? undefined : value;
}

/**
 * `NO_PROXY`: comma- or space-separated entries; `*` bypasses every host; `example.com` and `.example.com` bypass it
 * and its subdomains; an entry with `:port` only that port. The convention of curl and Node's own proxy support.
 */
function bypasses(url: URL, noProxy: string | undefined): boolean {
  if (noProxy === undefined) return false;
  const host = url.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  const port = url.port || (url.protocol === 'https:' ? '443' : '80');
  return noProxy.split(/[\s,]+/).some((raw) => {
    const entry = raw.trim().toLowerCase();
    if (entry === '') return false;
    if (entry === '*') return true;
    const match = /^(.*?)(?::(\d+))?$/.exec(entry.replace(/^\*?\./, '.')) as RegExpExecArray;
    const [, name = '', entryPort] = match;
    if (entryPort !== undefined && entryPort !== port) return false;
    const domain = name.replace(/^\[|\]$/g, '').replace(/^\./, '');
    return host === domain || host.endsWith(`.${domain}`);
  });
}

/**
 * Starts a GET of `url`, through `proxy` when one is given. Errors (of the proxy too) surface as the request's
 * 'error' event, and `destroy()` ends whatever is under way, tunnel included.
 */
export function get(url: URL, headers: http.OutgoingHttpHeaders, proxy: URL | undefined): http.ClientRequest {
  if (proxy === undefined) return (url.protocol === 'https:' ? https : http).get(url, { agent: false, headers });
  const proxyHeaders = proxyAuthorization(proxy);
  if (url.protocol !== 'https:') {
    // A plain-http proxy takes the absolute URL as the request target (RFC 9112, section 3.2.2).
    return http.get({ host: proxy.hostname, port: proxy.port || 80, path: url.href, agent: false, headers: { ...headers, ...proxyHeaders, host: url.host } });
  }
  // No agent: Node then opens the connection with `createConnection`, which may answer through its callback.
  return https.get(url, {
    headers,
    createConnection: (_options, done) => {
      // Node ignores the socket argument when there is an error.
      tunnel(proxy, url, proxyHeaders, (error, socket) => done(error, socket as Duplex));
      return undefined as unknown as Duplex;
    },
  });
}

/** CONNECT to the target through the proxy, then TLS over that tunnel, verified against the target's name. */
function tunnel(
  proxy: URL,
  url: URL,
  proxyHeaders: http.OutgoingHttpHeaders,
  done: (error: Error | null, socket?: Duplex) => void,
): void {
  const target = `${url.hostname}:${url.port || 443}`;
  const connect = http.request({ host: proxy.hostname, port: proxy.port || 80, method: 'CONNECT', path: target, agent: false, headers: { ...proxyHeaders, host: target } });
  connect.once('connect', (response, socket) => {
    if (response.statusCode !== 200) {
      socket.destroy();
      done(Object.assign(new Error(`proxy answered CONNECT with HTTP ${response.statusCode}`), { code: 'EPROXY' }));
      return;
    }
    // The certificate is checked against the target's name; SNI carries it unless it is an IP address.
    const secure = tls.connect({ socket, host: url.hostname, servername: isIP(url.hostname) ? undefined : url.hostname });
    secure.once('secureConnect', () => done(null, secure));
    secure.once('error', (error) => done(error));
  });
  connect.once('error', (error) => done(error));
  connect.end();
}

function proxyAuthorization(proxy: URL): http.OutgoingHttpHeaders {
  if (!proxy.username) return {};
  const credentials = `${decodeURIComponent(proxy.username)}:${decodeURIComponent(proxy.password)}`;
  return { 'proxy-authorization': `Basic ${Buffer.from(credentials).toString('base64')}` };
}
