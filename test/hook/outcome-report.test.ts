import { describe, expect, it } from 'vitest';
import { DualAuthError } from '../../src/errors';
import type { AuthEvent } from '../../src/events';
import { reportOutcome, reportStart } from '../../src/hook/outcome-report';

describe('reportOutcome', () => {
  it('emits an accepted event with the path, the kid made printable, the issuer, the cache and a duration', () => {
    const events: AuthEvent[] = [];
    const listener = (event: AuthEvent) => events.push(event);
    reportOutcome(listener, reportStart(listener), {
      accepted: true,
      path: 'key-set',
      kid: 'k\u001b1',
      issuer: 'https://idp.example',
      cached: true,
    });
    expect(events).toEqual([
      {
        type: 'accepted',
        path: 'key-set',
        kid: 'k?1',
        issuer: 'https://idp.example',
        cached: true,
        durationMs: expect.any(Number),
      },
    ]);
  });

  it("emits a rejected event with the error's code and detail, on the error's path unless one is given", () => {
    const events: AuthEvent[] = [];
    const error = new DualAuthError('ERR_TOKEN_EXPIRED', 'Token expired', 'shared-secret', 'Token expired at 12:00');
    reportOutcome((event) => events.push(event), 0, { accepted: false, error });
    reportOutcome((event) => events.push(event), 0, { accepted: false, error, path: 'key-set' });
    expect(events.map((event) => [event.type, 'path' in event && event.path, 'code' in event && event.code])).toEqual([
      ['rejected', 'shared-secret', 'ERR_TOKEN_EXPIRED'],
      ['rejected', 'key-set', 'ERR_TOKEN_EXPIRED'],
    ]);
    expect(events[0]).toMatchObject({ message: 'Token expired at 12:00' });
    expect(events[0]).toEqual(expect.not.objectContaining({ kid: expect.anything() }));
  });

  it('reads no clock and emits nothing without a listener', () => {
    expect(reportStart(undefined)).toBe(0);
    expect(() => reportOutcome(undefined, 0, { accepted: true, path: 'shared-secret', cached: false })).not.toThrow();
  });
});
