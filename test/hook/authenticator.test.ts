import { describe, expect, it } from 'vitest';
import { Authenticator, type Outcome } from '../../src/hook/authenticator';
import { resolveOptions } from '../../src/config/options';
import { randomSecret } from '../support/claims';
import { createClock } from '../support/clock';
import { serviceRequest } from '../support/requests';
import { signToken } from '../support/tokens';

const secret = randomSecret();
const T0 = 1_800_000_000_000;

const settle = async (outcome: Outcome | Promise<Outcome>): Promise<Outcome> => outcome;

describe('Authenticator', () => {
  it('answers from the cache until exactly the moment verification would refuse the token, then verifies again', async () => {
    const time = createClock(T0);
    const authenticator = new Authenticator(
      resolveOptions({ apiSecret: secret, clockTolerance: 5, tokenCacheMaxAgeMs: 3_600_000 }),
      time.now,
    );
    const exp = T0 / 1000 + 60;
    const token = signToken({ iat: T0 / 1000, exp }, { alg: 'HS256', key: secret });
    const judge = () => settle(authenticator.authenticate(serviceRequest(), token, { useCache: true }));

    expect(await judge()).toMatchObject({ accepted: true, cached: false });
    time.advance((exp + 5) * 1000 - 1 - T0);
    expect(await judge()).toMatchObject({ accepted: true, cached: true });
    time.advance(1);
    expect(await judge()).toMatchObject({ accepted: false, error: { code: 'ERR_TOKEN_EXPIRED' } });
  });

  it('reports the decoded token with a refusal after decoding, and nothing of it before', async () => {
    const authenticator = new Authenticator(resolveOptions({ apiSecret: secret }));
    const forged = signToken({ tenant: 'acme' }, { alg: 'HS256', key: randomSecret() });
    expect(await settle(authenticator.authenticate(serviceRequest(), forged, { useCache: true }))).toMatchObject({
      accepted: false,
      path: 'shared-secret',
      header: { alg: 'HS256' },
      payload: { tenant: 'acme' },
      error: { code: 'ERR_SIGNATURE_INVALID' },
    });
    const garbage = await settle(authenticator.authenticate(serviceRequest(), 'not-a-token', { useCache: true }));
    expect(garbage).toMatchObject({ accepted: false, path: 'shared-secret', error: { code: 'ERR_TOKEN_MALFORMED' } });
    expect(garbage.payload).toBeUndefined();
  });
});
