/**
 * Why an exchange failed below HTTP, in the words an operator acts on, where Node's error code alone misleads: an
 * https URL whose server speaks plain http fails the TLS handshake with `EPROTO` ("wrong version number"), which
 * reads like a network fault. Used wherever a transport error is explained (the key store's fetches, `probe`).
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
