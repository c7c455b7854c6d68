/**
 * Outbound requests through the environment's proxy, as Cube's own are (docs/reference.md#proxies); https is
 * tunnelled with CONNECT, so the proxy never sees a token or a key set in clear.
 */
import * as http from 'node:http';
import * as https from 'node:https';
import { BlockList, isIP } from 'node:net';
import type { Duplex } from 'node:stream';
import * as tls from 'node:tls';

/** The proxy to use for `url`, or undefined to connect directly. */
export function proxyFor(url: URL, env: NodeJS.ProcessEnv = process.env): URL | undefined {
  const https = url.protocol === 'https:';
  const configured = https
    ? (variable(env, 'https_proxy') ?? variable(env, 'http_proxy'))
    : variable(env, 'http_proxy');
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

/** `NO_PROXY` as curl reads it, with undici's and Go's ports and brackets (docs/failure-modes.md#defaults). */
function bypasses(url: URL, noProxy: string | undefined): boolean {
  if (noProxy === undefined) return false;
  if (noProxy === '*') return true;
  const host = url.hostname.replace(/^\[|\]$/g, '').replace(/\.$/, '');
  const port = Number(url.port || (url.protocol === 'https:' ? 443 : 80));
  return noProxy.split(/[\s,]+/).some((raw) => {
    const entry = parseEntry(raw);
    return entry !== undefined && (entry.port === undefined || entry.port === port) && covers(entry.name, host);
  });
}

/** An entry's host part and port. Brackets set an IPv6 address apart from a port; without them it has none. */
function parseEntry(entry: string): { readonly name: string; readonly port: number | undefined } | undefined {
  const [, bracketed, bracketedPort] = /^\[([^\]]+)\](?::(\d+))?$/.exec(entry) ?? [];
  if (bracketed !== undefined)
    return { name: bracketed, port: bracketedPort === undefined ? undefined : Number(bracketedPort) };
  if (isIP(entry.replace(/\/\d+$/, '')) === 6) return { name: entry, port: undefined };
  const [, name, port] = /^([^:]+)(?::(\d+))?$/.exec(entry) ?? [];
  return name === undefined ? undefined : { name, port: port === undefined ? undefined : Number(port) };
}

/** Whether an entry covers `host` (lower case, without brackets or trailing dot). */
function covers(name: string, host: string): boolean {
  const [, address = '', bits] = /^(.*?)(?:\/(\d+))?$/.exec(name) ?? [];
  const family = isIP(address);
  const hostFamily = isIP(host);
  if (hostFamily === 0) {
    const domain = name
      .toLowerCase()
      .replace(/^\*?\./, '')
      .replace(/\.$/, '');
    return family === 0 && domain !== '' && (host === domain || host.endsWith(`.${domain}`));
  }
  if (family === 0) return false;
  const list = new BlockList();
  const type = family === 4 ? 'ipv4' : 'ipv6';
  if (bits === undefined) list.addAddress(address, type);
  else if (Number(bits) <= (family === 4 ? 32 : 128)) list.addSubnet(address, Number(bits), type);
  return list.check(host, hostFamily === 4 ? 'ipv4' : 'ipv6');
}

/** A request to send: a GET unless said otherwise. */
interface RequestToSend {
  readonly method?: string;
  readonly headers: http.OutgoingHttpHeaders;
  readonly body?: string | undefined;
}

/**
 * Sends `outgoing` through `proxy` if any and resolves with the answer's head; no redirect is followed. Aborting
 * `signal` ends every step under way: one nobody could end would hold everyone waiting on the request.
 */
export async function send(
  url: URL,
  outgoing: RequestToSend,
  proxy: URL | undefined,
  signal: AbortSignal,
): Promise<http.IncomingMessage> {
  // The caller's deadline may have passed while this module loaded: an abort listener added now would never run.
  if (signal.aborted) throw signal.reason;
  const { method = 'GET', headers, body } = outgoing;
  let request: http.ClientRequest;
  if (proxy === undefined) {
    request = (url.protocol === 'https:' ? https : http).request(url, { method, agent: false, headers });
  } else if (url.protocol !== 'https:') {
    // A plain-http proxy takes the absolute URL as the request target (RFC 9112, section 3.2.2).
    request = http.request({
      host: proxy.hostname,
      port: proxy.port || 80,
      method,
      path: url.href,
      agent: false,
      headers: { ...headers, ...proxyAuthorization(proxy), host: url.host },
    });
  } else {
    const socket = await tunnel(proxy, url, signal);
    // No agent: Node then takes the connection from `createConnection`, here the tunnel already secured.
    request = https.request(url, { method, headers, createConnection: () => socket });
  }
  return new Promise((resolve, reject) => {
    signal.addEventListener(
      'abort',
      () => {
        reject(signal.reason);
        request.destroy();
      },
      { once: true },
    );
    request.once('response', resolve);
    // Stays attached for the request's life, so a late socket error is never an unhandled 'error' event.
    request.on('error', reject);
    request.end(body);
  });
}

/** CONNECT to the target through the proxy, then TLS over that tunnel, verified against the target's name. */
function tunnel(proxy: URL, url: URL, signal: AbortSignal): Promise<tls.TLSSocket> {
  return new Promise((resolve, reject) => {
    const target = `${url.hostname}:${url.port || 443}`;
    const connect = http.request({
      host: proxy.hostname,
      port: proxy.port || 80,
      method: 'CONNECT',
      path: target,
      agent: false,
      headers: { ...proxyAuthorization(proxy), host: target },
    });
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
      // SNI carries the target's name unless it is an IP address, which TLS takes without brackets.
      const host = url.hostname.replace(/^\[|\]$/g, '');
      secure = tls.connect({ socket: tunnelled, host, servername: isIP(host) ? undefined : host });
      secure.once('secureConnect', () => settle(undefined));
      // Once settled, an error reaches the request; this listener only keeps it from going unhandled.
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
