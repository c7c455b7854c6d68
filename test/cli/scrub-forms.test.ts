import { describe, expect, it } from 'vitest';
import { encodedForms, FormIndex, WINDOW } from '../../src/cli/scrub-forms';
import { randomSecret } from '../support/claims';
import { seeded } from '../support/random';

/** `text` with what `index` finds replaced by its label. */
function masked(index: FormIndex, text: string): string {
  let out = '';
  let from = 0;
  for (const { start, end, shownAs } of index.find(text)) {
    out += `${text.slice(from, start)}${shownAs}`;
    from = end;
  }
  return out + text.slice(from);
}

describe('encodedForms', () => {
  it('gives base64 cores that every base64 text holding the value holds, whatever comes before it', () => {
    const value = `Zk9/+q=&?x%\u00e9${randomSecret(16)}`;
    const cores = encodedForms(value).filter(({ spill }) => spill > 0);
    for (const prefix of ['', 'a', 'ab', 'abc', '{"secretKey":"'])
      for (const suffix of ['', 'z', 'zy', '"}']) {
        const text = Buffer.from(`${prefix}${value}${suffix}`);
        for (const encoded of [text.toString('base64'), text.toString('base64url')])
          expect(cores.some(({ form }) => encoded.includes(form))).toBe(true);
      }
  });

  it('gives the hex and the URL-encoding, not the value itself', () => {
    const forms = encodedForms('a b/c').map(({ form }) => form);
    expect(forms).toContain(Buffer.from('a b/c').toString('hex'));
    expect(forms).toContain('a%20b%2Fc');
    expect(forms).not.toContain('a b/c');
  });
});

describe('FormIndex', () => {
  const secret = randomSecret(24);
  const index = new FormIndex();
  index.add(secret, { shownAs: '[s]', parts: true, minLength: 4 });

  it('finds the value whole, in any case, split by white space, line breaks and their escapes', () => {
    const half = secret.length / 2;
    for (const split of [' ', '\n', '\r\n\t', '\\n', '\\\\n', '\\u000a', '\\u000D', '%0A'])
      expect(masked(index, `x ${secret.slice(0, half)}${split}${secret.slice(half)} y`)).toBe('x [s] y');
    expect(masked(index, `x ${secret.toUpperCase()} y`)).toBe('x [s] y');
    expect(masked(index, `x ${secret.slice(0, 20)}`)).toBe('x [s]');
  });

  it('finds any part of 16 characters or more, and none shorter', () => {
    const random = seeded(4949);
    for (let run = 0; run < 500; run++) {
      const length = WINDOW + random.int(secret.length - WINDOW + 1);
      const at = random.int(secret.length - length + 1);
      expect(masked(index, `<${secret.slice(at, at + length)}>`)).toBe('<[s]>');
    }
    const short = secret.slice(3, 3 + WINDOW - 1);
    expect(masked(index, `<${short}>`)).toBe(`<${short}>`);
  });

  it('decodes %XX as the value is read, so a URL-encoded value is found however much is encoded', () => {
    const slashed = new FormIndex();
    slashed.add('k3y/with+signs=and&more', { shownAs: '[s]', parts: true, minLength: 4 });
    expect(masked(slashed, '?v=k3y%2Fwith%2Bsigns%3Dand%26more&x=1')).toBe('?v=[s]&x=1');
    expect(masked(slashed, '?v=k3y%2fwith+signs=and%26more')).toBe('?v=[s]');
  });

  it('finds a whole-only value only whole, and short values by search', () => {
    const whole = new FormIndex();
    whole.add('/srv/cube/credentials/service.json', { shownAs: '[s]', parts: false, minLength: 4 });
    whole.add('pw12', { shownAs: '[p]', parts: false, minLength: 4 });
    expect(masked(whole, 'at /srv/cube/credentials/service.json.')).toBe('at [s].');
    expect(masked(whole, 'in /srv/cube/credentials/')).toBe('in /srv/cube/credentials/');
    expect(masked(whole, 'pw12 and PW12')).toBe('[p] and [p]');
  });

  it('leaves text without a held value as it is, and keeps the text between two values', () => {
    const text = 'The Cube accepts the new secret (200 /meta lists 1 cube).\n';
    expect(masked(index, text)).toBe(text);
    expect(masked(index, `${secret} ${secret}`)).toBe('[s] [s]');
    expect(new FormIndex().find(text)).toEqual([]);
  });
});
