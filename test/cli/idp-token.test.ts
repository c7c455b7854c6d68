/** How commands read an identity provider's token: a file or standard input, one token, held by the scrubber. */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { readIdpToken } from '../../src/cli/idp-token';
import { UsageError, type CliIO } from '../../src/cli/io';
import { Scrubber } from '../../src/cli/scrub';
import { scratchDirs } from '../support/scratch';

const TOKEN = 'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ1c2VyLTEifQ.c2lnbmF0dXJlLW9mLXRoZS10b2tlbg';

function ioWith(stdin: string): CliIO {
  const sink = () => new PassThrough();
  return { stdout: sink(), stderr: sink(), stdin: Readable.from([stdin]), env: {}, cwd: '.', scrubber: new Scrubber() };
}

describe('readIdpToken', () => {
  const scratchDir = scratchDirs('idp-token-');

  it('reads nothing when no source is given', async () => {
    expect(await readIdpToken(undefined, ioWith(TOKEN))).toBeUndefined();
  });

  it('reads a file or standard input, trimmed and without "Bearer ", and the scrubber holds the token', async () => {
    const file = join(scratchDir(), 'id-token.txt');
    writeFileSync(file, `  Bearer ${TOKEN}\n`);
    const io = ioWith('');
    expect(await readIdpToken({ file }, io)).toBe(TOKEN);
    expect(io.scrubber?.scrub(`sent ${TOKEN}`)).toBe('sent [token]');
    expect(await readIdpToken('stdin', ioWith(`${TOKEN}\n`))).toBe(TOKEN);
  });

  it('refuses an unreadable or empty source and one of two tokens, naming the source, never the token', async () => {
    const dir = scratchDir();
    const missing = join(dir, 'missing.txt');
    const empty = join(dir, 'empty.txt');
    writeFileSync(empty, '\n');
    const refusals: Array<[() => Promise<unknown>, string]> = [
      [() => readIdpToken({ file: missing }, ioWith('')), `cannot read ${missing}: ENOENT`],
      [() => readIdpToken({ file: empty }, ioWith('')), `no token in ${empty}: it is empty`],
      [() => readIdpToken('stdin', ioWith('')), 'no token in standard input: it is empty'],
      [
        () => readIdpToken('stdin', ioWith(`${TOKEN}\n${TOKEN}\n`)),
        'standard input must hold one token: one line of printable characters without spaces',
      ],
    ];
    for (const [read, message] of refusals) {
      await expect(read()).rejects.toBeInstanceOf(UsageError);
      await expect(read()).rejects.toThrow(new UsageError(message));
    }
  });
});
