/** The service token commands mint to call a running Cube as the embedding service does. */
import { verify, type JwtPayload } from 'jsonwebtoken';
import { describe, expect, it } from 'vitest';
import { mintServiceToken, SERVICE_TOKEN_SECONDS } from '../../src/cli/cube-call';
import { Scrubber } from '../../src/cli/scrub';
import { randomSecret } from '../support/claims';

describe('mintServiceToken', () => {
  const secret = randomSecret(32);

  it('signs the claims with HS256, for SERVICE_TOKEN_SECONDS, and the scrubber holds the token', () => {
    const scrubber = new Scrubber();
    const token = mintServiceToken(secret, { tenant: 'acme' }, { scrubber });
    const payload = verify(token, secret, { algorithms: ['HS256'] }) as JwtPayload;
    expect(payload).toMatchObject({ tenant: 'acme' });
    expect((payload.exp as number) - (payload.iat as number)).toBe(SERVICE_TOKEN_SECONDS);
    expect(scrubber.scrub(`Authorization: ${token}`)).toBe('Authorization: [token]');
  });

  it('keeps an exp the claims set', () => {
    const exp = Math.floor(Date.now() / 1000) + 3_600;
    const token = mintServiceToken(secret, { exp }, {});
    expect((verify(token, secret, { algorithms: ['HS256'] }) as JwtPayload).exp).toBe(exp);
  });
});
