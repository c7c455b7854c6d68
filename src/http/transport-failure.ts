/**
 * Why an exchange failed below HTTP, where Node's code misleads
 * (docs/troubleshooting.md#before-deploying-or-when-nothing-is-accepted-doctor).
 */

/** OpenSSL's words for a first answer that is no TLS record (Node 20 to 24 report them as EPROTO or ERR_SSL_*). */
const NOT_TLS = /wrong version number|packet length too long|http request|unknown protocol/i;

/** The hint for an error, with its code; undefined when the code says it well enough. */
export function transportHint(error: unknown): string | undefined {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  if (typeof code !== 'string') return undefined;
  if (code === 'EPROTO' || (code.startsWith('ERR_SSL_') && NOT_TLS.test(String(message))))
    return `TLS handshake failed: does the server speak https? (${code})`;
  return undefined;
}
