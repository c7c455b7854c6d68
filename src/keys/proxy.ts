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
 * GETs `url`, through `proxy` when one is given, and resolves with the answer's head; every error (of the proxy too)
 * rejects. Aborting `signal` ends whatever is under way, until the body is read: the proxy's CONNECT, the TLS
 * handshake through the tunnel, the request, the answer. A pending step that nobody could end would outlive the
 * fetch's deadline and hold every caller waiting on that fetch.
 */
export async function get(url: URL, headers: http.OutgoingHttpHeaders, proxy: URL | undefined, signal: AbortSignal): Promise<http.IncomingMessage> {
  let request: http.ClientRequest;
  if (proxy === undefined) {
    request = (url.protocol === 'https:' ? https : http).get(url, { agent: false, headers });
  } else if (url.protocol !== 'https:') {
    // A plain-http proxy takes the absolute URL as the request target (RFC 9112, section 3.2.2).
    request = http.get({ host: proxy.hostname, port: proxy.port || 80, path: url.href, agent: false, headers: { ...headers, ...proxyAuthorization(proxy), host: url.host } });
  } else {
    const socket = await tunnel(proxy, url, signal);
    // No agent: Node then takes the connection from `createConnection`, here the tunnel already secured.
    request = https.get(url, { headers, createConnection: () => socket });
  }
  return new Promise((resolve, reject) => {
    signal.addEventListener('abort', () => request.destroy(), { once: true });
    request.once('response', resolve);
    // Stays attached for the request's life, so a late socket error is never an unhandled 'error' event.
    request.on('error', reject);
  });
}

/** CONNECT to the target through the proxy, then TLS over that tunnel, verified against the target's name. */
function tunnel(proxy: URL, url: URL, signal: AbortSignal): Promise<tls.TLSSocket> {
  return new Promise((resolve, reject) => {
    const target = `${url.hostname}:${url.port || 443}`;
    const connect = http.request({ host: proxy.hostname, port: proxy.port || 80, method: 'CONNECT', path: target, agent: false, headers: { ...proxyAuthorization(proxy), host: target } });
    let socket: Duplex | undefined;
    let secure: tls.TLSSocket | undefined;
    const settle = (error: Error | undefined): void => {
      signal.removeEventListener('abort', abort);
      if (error === undefined) return resolve(secure as tls.TLSSocket);
      // Once the proxy has answered, the socket is ours alone: the CONNECT request no longer ends it.
      for (const each of [connect, socket, secure]) each?.destroy();
      reject(error);
    };
    const abort = (): void => settle(signal.reason as Error);
    signal.addEventListener('abort', abort);
    connect.once('connect', (response, tunnelled) => {
      socket = tunnelled;
      if (response.statusCode !== 200) {
        settle(Object.assign(new Error(`proxy answered CONNECT with HTTP ${response.statusCode}`), { code: 'EPROXY' }));
        return;
      }
      // The certificate is checked against the target's name; SNI carries it unless it is an IP address.
      secure = tls.connect({ socket: tunnelled, host: url.hostname, servername: isIP(url.hostname) ? undefined : url.hostname });
      secure.once('secureConnect', () => settle(undefined));
      // Once settled, an error reaches the request that took the socket; this listener only keeps it from going unhandled.
      secure.once('error', settle);
    });
    connect.once('error', settle);
    connect.end();
  });
}

function proxyAuthorization(proxy: URL): http.OutgoingHttpHeaders {
  if (!proxy.username) return {};
  const credentials = `${decodeURIComponent(proxy.username)}:${decodeURIComponent(proxy.password)}`;
  return { 'proxy-authorization': `Basic ${Buffer.from(credentials).toString('base64')}` };
}
