/** The command line of every command, parsed one way: strictly, positionals by name, mistakes as usage errors. */
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { MAX_DEADLINE_MS } from './deadline';
import { UsageError } from './io';
import { didYouMean } from './suggest';

/** A command's options, as `parseArgs` takes them. */
export type OptionsSpec = NonNullable<ParseArgsConfig['options']>;

interface ArgsSpec<O extends OptionsSpec> {
  readonly options: O;
  /**
   * The positional arguments, by name, all required: another count is a usage error naming them. Left out
   * by a command that checks its own (verify: one token, or `-`).
   */
  readonly positionals?: readonly string[];
  /**
   * Set by commands that read credentials from the environment: options such as `--api-key` or `--secret`
   * are refused without echoing their value, and this text says where the credential goes instead.
   */
  readonly credentialsFrom?: string;
}

export type ParsedArgs<O extends OptionsSpec> = ReturnType<
  typeof parseArgs<{ args: string[]; options: O; allowPositionals: true; strict: true }>
>;

/** Longest stray argument repeated in a message: real secrets and tokens are longer. */
const MAX_ECHOED = 16;

// Options that would put a credential on the command line (shell history, process list, CI logs).
const CREDENTIAL_FLAG = /^--(api-key|key|secret|secret-key|token)(=|$)/;

/** Parses `args` strictly against `spec`; every mistake becomes a {@link UsageError}. */
export function parseCommandLine<O extends OptionsSpec>(args: readonly string[], spec: ArgsSpec<O>): ParsedArgs<O> {
  if (spec.credentialsFrom !== undefined) refuseCredentials(args, spec.credentialsFrom);
  let parsed: ParsedArgs<O>;
  try {
    parsed = parseArgs({ args: [...args], options: spec.options, allowPositionals: true, strict: true });
  } catch (error) {
    throw new UsageError(parseProblem(error, spec.options));
  }
  if (spec.positionals !== undefined) checkPositionals(parsed.positionals, spec.positionals);
  return parsed;
}

/** Reads a required option, or fails with a usage error naming it. */
export function required(value: string | undefined, flag: string): string {
  if (value === undefined) throw new UsageError(`${flag} is required`);
  return value;
}

/** Where a command reads a token: the file of `--token-file <file>`, or standard input for `--token -`. */
export type TokenFrom = { readonly file: string } | 'stdin';

/**
 * The token source that `--token-file` and `--token -` give, or undefined when neither is given. `--token` takes
 * only `-`: any other value is a token written on the command line, and it is never repeated.
 */
export function tokenFrom(values: { readonly token?: string; readonly 'token-file'?: string }): TokenFrom | undefined {
  const { token, 'token-file': file } = values;
  if (token !== undefined && token !== '-')
    throw new UsageError(
      '--token takes only - (standard input): tokens are never taken from the command line; use --token-file <file> or --token -',
    );
  if (token !== undefined && file !== undefined)
    throw new UsageError('--token-file and --token exclude each other: give the token one way');
  return file !== undefined ? { file } : token === '-' ? 'stdin' : undefined;
}

/** `parseArgs`'s message, with the nearest option named when an unknown one looks like a misspelling. */
function parseProblem(error: unknown, options: OptionsSpec): string {
  const message = error instanceof Error ? error.message : String(error);
  const unknown =
    (error as { code?: unknown }).code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION'
      ? /^Unknown option '(--[^'=]+)/.exec(message)?.[1]
      : undefined;
  if (unknown === undefined) return message;
  const suggestion = didYouMean(unknown, [...Object.keys(options).map((name) => `--${name}`), '--help']);
  return suggestion === '' ? message : `Unknown option '${unknown}'${suggestion}`;
}

function refuseCredentials(args: readonly string[], credentialsFrom: string): void {
  const credential = args.find((arg) => CREDENTIAL_FLAG.test(arg));
  if (credential) {
    throw new UsageError(
      `${credential.split('=')[0]} is not accepted: credentials are never taken from the command line. ${credentialsFrom}`,
    );
  }
}

function checkPositionals(given: readonly string[], names: readonly string[]): void {
  if (given.length === names.length) return;
  // A command without arguments names a short stray one, which is usually half of a value the shell split
  // (--claims {"a": 1}); a long one may be a pasted token or secret, and named arguments may be tokens: counted only.
  if (names.length === 0) {
    const stray = given[0] as string;
    const shown =
      stray.length <= MAX_ECHOED && !stray.startsWith('eyJ') ? `'${stray}'` : `of ${stray.length} characters`;
    throw new UsageError(`Unexpected argument ${shown}: expected no arguments`);
  }
  throw new UsageError(`expected ${names.map((name) => `<${name}>`).join(' ')}, got ${given.length} argument(s)`);
}

/** `--deadline <ms>`: a whole number of milliseconds, 1 to {@link MAX_DEADLINE_MS}; `fallback` when not given. */
export function parseDeadline(text: string | undefined, fallback: number): number {
  if (text === undefined) return fallback;
  const value = /^[1-9][0-9]*$/.test(text) ? Number(text) : NaN;
  if (!(value <= MAX_DEADLINE_MS))
    throw new UsageError(
      `--deadline takes a whole number of milliseconds from 1 to ${MAX_DEADLINE_MS} (got "${text}")`,
    );
  return value;
}
