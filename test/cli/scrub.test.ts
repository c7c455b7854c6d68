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

  describe('in every form a service or a Cube echoes a secret back', () => {
    const secret = `Zk9/+q=&?x${randomSecret(24)}`;
    const scrubber = new Scrubber();
    scrubber.holdSecret(secret);
    const base64 = (text: string) => Buffer.from(text).toString('base64');

    it('exact, in JSON, in either case, hex and URL-encoded', () => {
      for (const form of [
        secret,
        JSON.stringify(secret).slice(1, -1),
        secret.toUpperCase(),
        secret.toLowerCase(),
        Buffer.from(secret).toString('hex'),
        Buffer.from(secret).toString('hex').toUpperCase(),
        encodeURIComponent(secret),
        encodeURIComponent(secret).toLowerCase(),
      ])
        expect(scrubber.scrub(`echo: ${form} end`)).toBe('echo: [secret] end');
    });

    it('split by white space, a line break or their escapes, in text and JSON', () => {
      const [head, tail] = [secret.slice(0, 20), secret.slice(20)];
      for (const split of [' ', '\n', '\r\n', '\\n', '\\u000a'])
        expect(scrubber.scrub(`echo: ${head}${split}${tail} end`)).toBe('echo: [secret] end');
      expect(scrubber.scrub(JSON.stringify({ said: `${head}\n${tail}` }))).toBe('{"said":"[secret]"}');
    });

    it('cut: each half, and any part of 16 characters or more', () => {
      const half = Math.ceil(secret.length / 2);
      // Marks that no secret holds around the parts: else a part and the mark after it can make a longer part.
      expect(scrubber.scrub(`< ${secret.slice(0, half)} | ${secret.slice(half)} >`)).toBe('< [secret] | [secret] >');
      expect(scrubber.scrub(`< ${secret.slice(5, 21)} >`)).toBe('< [secret] >');
    });

    it('base64 and base64url, alone or inside a longer encoded text, at every alignment', () => {
      for (const prefix of ['', '{', '{"', '{"secretKey":"'])
        for (const encode of [base64, (text: string) => Buffer.from(text).toString('base64url')]) {
          const text = encode(`${prefix}${secret}"}`);
          const scrubbed = scrubber.scrub(`echo: ${text} end`);
          const [, left, right] = /^echo: (\S*)\[secret\](\S*) end$/.exec(scrubbed) ?? [];
          // What is left holds only bits of the text around the secret: the prefix's own characters, the padding.
          expect(encode(prefix).startsWith(left ?? 'none')).toBe(true);
          expect(text.endsWith(right ?? 'none')).toBe(true);
          expect(right?.length).toBeLessThanOrEqual(3);
        }
      expect(scrubber.scrub(base64(secret).replace(/(.{19})/g, '$1\n'))).toBe('[secret]');
    });

    it('a token minted and echoed base64-encoded, whole or its signature', () => {
      const tokens = new Scrubber();
      tokens.holdToken(TOKEN);
      const signature = TOKEN.split('.')[2] as string;
      expect(tokens.scrub(`got ${base64(`Bearer ${TOKEN}`)}`)).toMatch(
        /^got [A-Za-z0-9+/=]{0,8}\[token\][A-Za-z0-9+/=]{0,3}$/,
      );
      expect(tokens.scrub(`sig ${base64(signature)}.`)).toMatch(/^sig \[token\][A-Za-z0-9+/=]{0,3}\.$/);
      expect(tokens.scrub(`got ${TOKEN.toUpperCase()}`)).toBe('got [token]');
    });

    it("takes a secret variable's value out whole only: a part of it (a path) is printed", () => {
      const environment = new Scrubber();
      environment.holdEnvironment({ GOOGLE_APPLICATION_CREDENTIALS: '/srv/cube/credentials/service-account.json' });
      expect(environment.scrub('read /srv/cube/credentials/service-account.json')).toBe('read [secret]');
      expect(environment.scrub('in /srv/cube/credentials/')).toBe('in /srv/cube/credentials/');
    });
  });
});
