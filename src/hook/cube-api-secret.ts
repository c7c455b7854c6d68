/**
 * Cube's own start requires its `apiSecret` option unless a JWKS URL is set; a deployment whose API secret lives only
 * in the secrets directory gives Cube this instead (docs/deploying.md#an-api-secret-only-in-the-directory).
 */
import { randomBytes } from 'node:crypto';

/** 32 random bytes, new in each process and shown nowhere: the hook never verifies with it. */
export const CUBE_API_SECRET_PLACEHOLDER: string = randomBytes(32).toString('hex');
