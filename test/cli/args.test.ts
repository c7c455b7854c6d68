import { describe, expect, it } from 'vitest';
import { parseCommandLine, required, tokenFrom } from '../../src/cli/args';
import { UsageError } from '../../src/cli/io';

const OPTIONS = { json: { type: 'boolean', default: false }, name: { type: 'string' } } as const;

function usageError(parse: () => unknown): string {
  try {
    parse();
  } catch (error) {
    expect(error).toBeInstanceOf(UsageError);
    return (error as Error).message;
  }
  throw new Error('expected a usage error');
}

describe('parseCommandLine', () => {
  it('returns the options, defaults filled in, and the named positionals', () => {
    const { values, positionals } = parseCommandLine(['a', '--name', 'x', 'b'], {
      options: OPTIONS,
      positionals: ['first', 'second'],
    });
    expect(values).toEqual({ json: false, name: 'x' });
    expect(positionals).toEqual(['a', 'b']);
  });

  it('turns parse errors into usage errors', () => {
    expect(usageError(() => parseCommandLine(['--colour'], { options: OPTIONS, positionals: [] }))).toMatch(
      /^Unknown option '--colour'/,
    );
    expect(usageError(() => parseCommandLine(['--name'], { options: OPTIONS, positionals: [] }))).toMatch(
      /^Option '--name <value>' argument missing/,
    );
  });

  it('names the expected positionals without echoing the given ones', () => {
    const message = usageError(() =>
      parseCommandLine(['eyJ.secret-looking'], { options: OPTIONS, positionals: ['id', 'version'] }),
    );
    expect(message).toBe('expected <id> <version>, got 1 argument(s)');
  });

  it('names the stray argument of a command that takes none', () => {
    expect(usageError(() => parseCommandLine(['1}'], { options: OPTIONS, positionals: [] }))).toBe(
      "Unexpected argument '1}': expected no arguments",
    );
    const secret = 'f3a9c1e07b2d4a6e8c0b1d2e3f4a5b6c';
    expect(usageError(() => parseCommandLine([secret], { options: OPTIONS, positionals: [] }))).toBe(
      'Unexpected argument of 32 characters: expected no arguments',
    );
    expect(usageError(() => parseCommandLine(['eyJhbGciOi'], { options: OPTIONS, positionals: [] }))).not.toContain(
      'eyJ',
    );
  });

  it('leaves the positionals to the command when it names none', () => {
    expect(parseCommandLine(['a', 'b', 'c'], { options: OPTIONS }).positionals).toEqual(['a', 'b', 'c']);
  });

  it('refuses credential options without their value, only where credentials come from elsewhere', () => {
    const spec = { options: OPTIONS, positionals: [], credentialsFrom: 'Set THE_KEY.' };
    for (const flag of ['--api-key', '--key', '--secret', '--secret-key', '--token']) {
      expect(usageError(() => parseCommandLine([`${flag}=typed-value`], spec))).toBe(
        `${flag} is not accepted: credentials are never taken from the command line. Set THE_KEY.`,
      );
    }
    expect(usageError(() => parseCommandLine(['--secret', 'typed-value'], spec))).not.toContain('typed-value');
    expect(usageError(() => parseCommandLine(['--secret=typed-value'], { options: OPTIONS, positionals: [] }))).toMatch(
      /^Unknown option '--secret'/,
    );
  });
});

describe('required', () => {
  it('returns the value, or names the missing option', () => {
    expect(required('x', '--name')).toBe('x');
    expect(usageError(() => required(undefined, '--name'))).toBe('--name is required');
  });
});

describe('tokenFrom', () => {
  it('reads --token-file as a file and --token - as standard input, and neither as no token', () => {
    expect(tokenFrom({ 'token-file': 'token.jwt' })).toEqual({ file: 'token.jwt' });
    expect(tokenFrom({ token: '-' })).toBe('stdin');
    expect(tokenFrom({})).toBeUndefined();
  });

  it('refuses a token written on the command line without repeating it, and both ways at once', () => {
    const message = usageError(() => tokenFrom({ token: 'eyJhbGciOiJIUzI1NiJ9.e30.c2ln' }));
    expect(message).toBe(
      '--token takes only - (standard input): tokens are never taken from the command line; use ' +
        '--token-file <file> or --token -',
    );
    expect(usageError(() => tokenFrom({ token: '-', 'token-file': 'token.jwt' }))).toBe(
      '--token-file and --token exclude each other: give the token one way',
    );
  });
});
