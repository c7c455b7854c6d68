import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { maskUrlPasswords, Scrubber, scrubbingStream } from '../../src/cli/scrub';
import { randomSecret } from '../support/claims';
import { randomText, seeded } from '../support/random';

const TOKEN = `eyJhbGciOiJIUzI1NiJ9.${Buffer.from('{"tenant":"acme"}').toString('base64url')}.${randomSecret(32)}`;

describe('maskUrlPasswords', () => {
  it('masks the password of every URL, and only that', () => {
    expect(maskUrlPasswords('at postgres://cube:hunter2@db/x and https://u:p@h:443/, not a://b@c or x:y@z')).toBe(
      'at postgres://cube:***@db/x and https://u:***@h:443/, not a://b@c or x:y@z',
    );
    expect(maskUrlPasswords('"redis://:pw@cache"')).toBe('"redis://:***@cache"');
  });

  it('never shows a password on random text of a fixed seed', () => {
    const random = seeded(4343);
    const pieces = ['://', 'u', ':', 'pw', '@', '/', ' ', 'h', 'x'];
    for (let run = 0; run < 3_000; run++) {
      const text = randomText(random, pieces, random.int(30));
      const masked = maskUrlPasswords(text);
      expect(maskUrlPasswords(masked)).toBe(masked);
      // Each URL whose userinfo holds a password before the @ loses it.
      for (const match of masked.matchAll(/[a-z0-9]:\/\/[^\s/?#@"'<>\\:]*:([^\s/?#@"'<>\\]+)@/g))
        expect(match[1]).toBe('***');
      // Only a password is replaced: the text around it stays.
      expect(masked.length).toBeLessThanOrEqual(text.length + 3 * (text.split('@').length - 1));
    }
  });

  it('runs in one pass over input made to make a regular expression backtrack', () => {
    const bait = `${'a'.repeat(200_000)}://${'u:'.repeat(100_000)}`;
    expect(maskUrlPasswords(bait)).toBe(bait);
  });
});

describe('Scrubber', () => {
  it("takes out a held token whole and each of its parts, in text and in JSON's escapes", () => {
    const scrubber = new Scrubber();
    scrubber.holdToken(TOKEN);
    const [header, payload, signature] = TOKEN.split('.');
    expect(scrubber.scrub(`a ${TOKEN} b ${signature} c ${payload} d ${header}`)).toBe(
      'a [token] b [token] c [token] d [token]',
    );
  });

  it('takes out secret variables (each item of a list), URL passwords of any variable, and leaves flags', () => {
    const secret = randomSecret();
    const scrubber = new Scrubber();
    scrubber.holdEnvironment({
      CUBEJS_API_SECRET: secret,
      CUBE_DUAL_AUTH_SQL_KEY_SECRETS: 'first-secret-1, second-secret-2',
      DATABASE_URL: 'postgres://cube:s3cr3t-pw@db/cube',
      CUBE_DUAL_AUTH_ALLOW_WEAK_SECRET: 'true',
    });
    expect(scrubber.scrub(`${secret} second-secret-2 "s3cr3t-pw" true`)).toBe('[secret] [secret] "[secret]" true');
    expect(scrubber.scrub('postgres://cube:s3cr3t-pw@db/cube')).toBe('postgres://cube:***@db/cube');
    const settings = new Scrubber();
    settings.holdEnvironment({
      CUBE_DUAL_AUTH_SQL_KEYS_REVOKED: 'key-id-1,key-id-2',
      CUBE_DUAL_AUTH_SECRETS_DIR: '/etc/cube-secrets',
      CUBE_DUAL_AUTH_SQL_KEY_MAX_AGE: '2592000',
      CUBE_DUAL_AUTH_SQL_PER_TOKEN_CLAIMS: 'session_state,nonce',
    });
    const reported = 'key-id-1 /etc/cube-secrets 2592000 session_state nonce';
    expect(settings.scrub(reported)).toBe(reported);
    const quoted = new Scrubber();
    quoted.holdSecret('a"b\\c-secret');
    expect(quoted.scrub(JSON.stringify({ value: 'a"b\\c-secret' }))).toBe('{"value":"[secret]"}');
  });

  it('scrubs what goes through its stream, which stays a terminal when its target is one', () => {
    let written = '';
    const target = Object.assign(
      new Writable({
        write(chunk: Buffer, _encoding, done) {
          written += chunk.toString('utf8');
          done();
        },
      }),
      { isTTY: true },
    );
    const scrubber = new Scrubber();
    scrubber.holdToken(TOKEN);
    const stream = scrubbingStream(target, scrubber);
    stream.write(`token ${TOKEN}\n`);
    expect(written).toBe('token [token]\n');
    expect(stream.isTTY).toBe(true);
  });
});
