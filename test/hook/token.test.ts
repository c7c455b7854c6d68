import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createCheckAuth } from '../../src';
import { randomSecret } from '../support/claims';
import { contextOf, rejectionOf, serviceRequest } from '../support/requests';

const secret = randomSecret();
const checkAuth = createCheckAuth({ apiSecret: secret, tokenCacheSize: 0 });
const exp = Math.floor(Date.now() / 1000) + 300;

/** A token whose signature is right for exactly these segment texts, canonical or not. */
function signedAs(header: string, payload: string): string {
  const input = `${header}.${payload}`;
  return `${input}.${createHmac('sha256', secret).update(input).digest('base64url')}`;
}

const b64u = (bytes: Buffer | string) => Buffer.from(bytes).toString('base64url');
const HEADER = b64u('{"alg":"HS256","typ":"JWT"}');

/** A payload whose base64url text has a `-` or `_`, which Node's decoder also reads as `+` or `/`. */
function payloadWith(char: '-' | '_'): string {
  for (let i = 0; ; i++) {
    const text = b64u(JSON.stringify({ exp, tenant: `t${i}~?>` }));
    if (text.includes(char)) return text;
  }
}

describe('one token, one encoding', () => {
  it('accepts the canonical text', async () => {
    expect(await contextOf(checkAuth, serviceRequest(), signedAs(HEADER, payloadWith('-')))).toHaveProperty('exp', exp);
  });

  it.each([
    [
      '"+" for "-" in the payload',
      () => signedAs(HEADER, payloadWith('-').replace(/-/g, '+')),
      /payload is not base64url/,
    ],
    [
      '"/" for "_" in the payload',
      () => signedAs(HEADER, payloadWith('_').replace(/_/g, '/')),
      /payload is not base64url/,
    ],
    [
      '"=" padding in the header',
      () => signedAs(`${b64u('{"alg":"HS256"}')}=`, payloadWith('-')),
      /header is not base64url/,
    ],
    [
      'non-zero spare bits in the payload',
      () => signedAs(HEADER, withSpareBitSet(`{"exp":${exp}}`)),
      /payload is not base64url/,
    ],
    [
      'invalid UTF-8 in the payload',
      () =>
        signedAs(
          HEADER,
          b64u(Buffer.concat([Buffer.from(`{"exp":${exp},"tenant":"`), Buffer.from([0xff, 0xfe]), Buffer.from('"}')])),
        ),
      /payload is not UTF-8/,
    ],
    [
      'a payload that opens an object but is not JSON',
      () => signedAs(HEADER, b64u(`{"exp":${exp},`)),
      /payload is not JSON/,
    ],
    [
      'invalid UTF-8 in the header',
      () =>
        signedAs(
          b64u(Buffer.concat([Buffer.from('{"alg":"HS256","x":"'), Buffer.from([0xc3]), Buffer.from('"}')])),
          payloadWith('-'),
        ),
      /header is not UTF-8/,
    ],
  ])('refuses %s as malformed, although the signature covers it', async (_, token, message) => {
    const error = await rejectionOf(checkAuth(serviceRequest(), token()));
    expect(error).toMatchObject({ code: 'ERR_TOKEN_MALFORMED' });
    expect(error.message).toMatch(message);
  });

  // The payload is decoded only when its text shows a byte that is not ASCII: wherever such a byte falls in a group
  // of three (or in the last, shorter group), it must be found, and UTF-8 judged on the bytes.
  it.each([0, 1, 2, 3, 4, 5])(
    'judges a non-ASCII byte after %i characters of padding exactly where it falls',
    async (pad) => {
      const payload = (bytes: number[]) =>
        Buffer.concat([Buffer.from(`{"exp":${exp},"t":"${'x'.repeat(pad)}`), Buffer.from(bytes), Buffer.from('"}')]);
      const accepted = await contextOf(checkAuth, serviceRequest(), signedAs(HEADER, b64u(payload([0xc3, 0xa9]))));
      expect(accepted).toEqual({ exp, t: `${'x'.repeat(pad)}é` });
      const refused = await rejectionOf(checkAuth(serviceRequest(), signedAs(HEADER, b64u(payload([0x80])))));
      expect(refused).toMatchObject({
        code: 'ERR_TOKEN_MALFORMED',
        message: expect.stringMatching(/payload is not UTF-8/),
      });
      const last = await rejectionOf(
        checkAuth(serviceRequest(), signedAs(HEADER, b64u(Buffer.concat([payload([]), Buffer.from([0xa9])])))),
      );
      expect(last.message).toMatch(/payload is not UTF-8/);
    },
  );

  it('accepts JSON white space before the payload object, and refuses JSON of another kind', async () => {
    expect(await contextOf(checkAuth, serviceRequest(), signedAs(HEADER, b64u(` \n\t{"exp":${exp}}`)))).toEqual({
      exp,
    });
    const error = await rejectionOf(checkAuth(serviceRequest(), signedAs(HEADER, b64u(` [${exp}]`))));
    expect(error).toMatchObject({ code: 'ERR_PAYLOAD_NOT_OBJECT' });
  });

  it('refuses a "+" or "/" in the signature', async () => {
    for (let i = 0; i < 200; i++) {
      const token = signedAs(HEADER, b64u(JSON.stringify({ exp, i })));
      const signature = token.split('.')[2] as string;
      if (!/[-_]/.test(signature)) continue;
      const altered = `${token.slice(0, token.lastIndexOf('.'))}.${signature.replace(/-/g, '+').replace(/_/g, '/')}`;
      expect((await rejectionOf(checkAuth(serviceRequest(), altered))).message).toMatch(/signature is not base64url/);
      return;
    }
    throw new Error('no signature with - or _ in 200 tries');
  });
});

/**
 * The base64url text of `json` (padded with spaces to 3n+2 bytes, so its last character carries two spare bits)
 * with one spare bit set: it decodes to the very same bytes as the canonical text.
 */
function withSpareBitSet(json: string): string {
  let text = json;
  while (text.length % 3 !== 2) text = text.replace(/}$/, ' }');
  const canonical = b64u(text);
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
  const altered = `${canonical.slice(0, -1)}${alphabet[alphabet.indexOf(canonical.slice(-1)) + 1]}`;
  expect(Buffer.from(altered, 'base64url').equals(Buffer.from(text))).toBe(true);
  return altered;
}
