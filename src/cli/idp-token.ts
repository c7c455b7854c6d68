/** How commands read an identity provider's token (probe, access, doctor's example token, sql-key). */
import { readFile } from 'node:fs/promises';
import { withoutBearer } from '../hook/request';
import type { TokenFrom } from './args';
import { UsageError, readStdin, type CliIO } from './io';

/**
 * The token of `--token-file <file>` or `--token -`, trimmed and without a `Bearer ` prefix, held by the scrubber;
 * a usage error when unreadable or not one token.
 */
export async function readIdpToken(from: TokenFrom | undefined, io: CliIO): Promise<string | undefined> {
  if (from === undefined) return undefined;
  let text: string;
  const source = from === 'stdin' ? 'standard input' : from.file;
  try {
    text = from === 'stdin' ? await readStdin(io.stdin) : await readFile(from.file, 'utf8');
  } catch (error) {
    throw new UsageError(`cannot read ${source}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
  const token = withoutBearer(text.trim());
  if (token === '') throw new UsageError(`no token in ${source}: it is empty`);
  if (!/^[\x21-\x7e]+$/.test(token))
    throw new UsageError(`${source} must hold one token: one line of printable characters without spaces`);
  io.scrubber?.holdToken(token);
  return token;
}
