// What the embedding service's backend does before calling Cube: sign the viewer's security
// context with the shared API secret (HS256), as embeddable's service does.
import jwt from 'jsonwebtoken';

/**
 * @param {string} apiSecret  the shared secret (CUBEJS_API_SECRET)
 * @param {object} securityContext  becomes the token payload, so Cube sees it as the security context
 * @param {{expiresInSeconds?: number}} [options]  negative values make a token that expired that long ago
 */
export function signServiceToken(apiSecret, securityContext, { expiresInSeconds = 300 } = {}) {
  const now = Math.floor(Date.now() / 1000);
  return jwt.sign({ ...securityContext, iat: now, exp: now + expiresInSeconds }, apiSecret, { algorithm: 'HS256' });
}

/** The header the service sends so Cube takes the shared-secret path. */
export const SERVICE_ORIGIN_HEADER = { 'Request-Origin': 'embeddable' };
