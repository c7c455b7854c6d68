import { createHash, randomBytes } from 'node:crypto';
import { describe, expect, it, vi } from 'vitest';
import { createCheckAuth } from '../../src';
import { describeStrength, keyMaterialBytes, secretStrength, secretWeakness } from '../../src/config/secret-strength';

describe('API secret strength (RFC 7518 3.2: at least 256 bits)', () => {
  it.each([
    ['32 hex characters', randomBytes(16).toString('hex'), 16],
    ['64 hex characters', randomBytes(32).toString('hex'), 32],
    ['base64 of 32 bytes', randomBytes(32).toString('base64'), 32],
    ['base64url of 48 bytes', randomBytes(48).toString('base64url'), 48],
    ['32 printable characters', '!"#$%&\'()*+,-./:;<=>?@[\\]^_`{|}~', 26],
  ])('counts %s as %d bytes of key material', (_, secret, bytes) => {
    expect(keyMaterialBytes(secret)).toBe(bytes);
  });

  it.each([
    ['openssl rand -hex 32', randomBytes(32).toString('hex'), '64 hex digits, 32 bytes: 256 bits'],
    ['openssl rand -base64 48', randomBytes(48).toString('base64'), '64 base64 characters, 48 bytes: 384 bits'],
    ['text beyond ASCII', 'é'.repeat(20), '40 bytes of text: 320 bits'],
  ])('says what it measured of %s, a fact and never a bound', (_, secret, said) => {
    expect(describeStrength(secretStrength(secret))).toBe(said);
  });

  it.each([
    [
      'too little key material',
      randomBytes(16).toString('hex'),
      /is 32 hex digits, 16 bytes: 128 bits of key material, under 32 bytes/,
    ],
    ['a pattern', 'abab'.repeat(20), /has only 2 distinct characters/],
    ['a dictionary word', 'Supercalifragilisticexpialidocious-Antidisestablishmentarianism', /looks like words/],
    ['a passphrase', 'correct horse battery staple and then some more words 2024', /looks like words/],
    ['a camelCase passphrase', 'CorrectHorseBatteryStapleAndThenSomeMoreWords_UPPER.case', /looks like words/],
    ['a placeholder', `my-secret-${randomBytes(32).toString('hex')}`, /placeholder word/],
  ])('finds %s weak, without repeating it', (_, secret, why) => {
    const weakness = secretWeakness(secret);
    expect(weakness).toMatch(why);
    expect(weakness).not.toContain(secret);
  });

  it('finds random base64url strong though it holds only letters, - and _', () => {
    // Fixed inputs, so that the verdict is the same in every run: SHA-256 digests stand in for random bytes.
    const secrets = Array.from({ length: 20_000 }, (_, i) =>
      createHash('sha256').update(String(i)).digest('base64url'),
    );
    const lettersOnly = secrets.filter((secret) => /^[A-Za-z_-]+$/.test(secret));
    expect(lettersOnly.length).toBeGreaterThan(0);
    expect(secrets.filter((secret) => secretWeakness(secret) !== undefined)).toEqual([]);
  });

  it('finds what openssl rand makes strong', () => {
    expect(secretWeakness(randomBytes(32).toString('hex'))).toBeUndefined();
    expect(secretWeakness(randomBytes(48).toString('base64'))).toBeUndefined();
  });

  it('the hook, opted in with allowWeakSecret, warns once at start about a weak secret, naming the setting, never the secret', () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    try {
      const weak = randomBytes(16).toString('hex');
      createCheckAuth({ apiSecret: [randomBytes(32).toString('hex'), weak], allowWeakSecret: true });
      expect(warn).toHaveBeenCalledTimes(1);
      const line = String(warn.mock.calls[0]?.[0]);
      expect(line).toBe(
        'cube-dual-auth: secret 2 of 2 of option "apiSecret" is 32 hex digits, 16 bytes: 128 bits of key material, under 32 bytes: anyone can choose the shared-secret path, so use at least 32 random bytes (openssl rand -hex 32) (RFC 7518 3.2)',
      );
      expect(line).not.toContain(weak);
      createCheckAuth({ apiSecret: randomBytes(32).toString('hex') });
      createCheckAuth({ jwksUri: 'https://idp.example/jwks.json' });
      expect(warn).toHaveBeenCalledTimes(1);
    } finally {
      warn.mockRestore();
    }
  });
});
