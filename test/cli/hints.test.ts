import { describe, expect, it } from 'vitest';
import { hintFor } from '../../src/cli/hints';

describe('hintFor: the one-line fix verify prints under a rejection', () => {
  it('gives a code with one fix that fix, whatever the path', () => {
    const hint = 'Get a fresh token, or raise CUBE_DUAL_AUTH_MAX_TOKEN_AGE if tokens are meant to live longer.';
    expect(hintFor('ERR_TOKEN_TOO_OLD', 'key-set', 'embeddable')).toBe(hint);
    expect(hintFor('ERR_TOKEN_TOO_OLD', 'shared-secret', 'embeddable')).toBe(hint);
    expect(hintFor('ERR_TOKEN_TOO_OLD', undefined, 'embeddable')).toBe(hint);
  });

  it('gives a code whose fix depends on the path the fix of that path, with the configured origin', () => {
    expect(hintFor('ERR_ALG_NOT_ALLOWED', 'key-set', 'partner')).toBe(
      'If this is a service token (HS256), send it with "Request-Origin: partner" (--origin); an HS256 token without that header is most likely the service\'s Cube Core connection (docs/embeddable.md); if the identity provider signs with another algorithm, add it to CUBEJS_JWT_ALGS.',
    );
    expect(hintFor('ERR_ALG_NOT_ALLOWED', 'shared-secret', 'partner')).toBe(
      'Only HS256 tokens signed with the API secret use "Request-Origin: partner": send identity-provider tokens without that header (--no-origin).',
    );
    expect(hintFor('ERR_SIGNATURE_INVALID', 'shared-secret', 'partner')).toMatch(
      /^CUBEJS_API_SECRET must be the secret the service signs with/,
    );
  });

  it("takes the key-set path's fix when no path was chosen", () => {
    expect(hintFor('ERR_SIGNATURE_INVALID', undefined, 'embeddable')).toBe(
      hintFor('ERR_SIGNATURE_INVALID', 'key-set', 'embeddable'),
    );
  });
});
