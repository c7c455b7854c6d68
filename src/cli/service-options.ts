/** What the service commands share: connection options, the API key, parsing, output without secrets, exit statuses. */
import {
  createEmbeddableClient,
  DEFAULT_MAX_RESPONSE_BYTES,
  EMBEDDABLE_SERVICE_DOMAIN,
  EmbeddableError,
  MAX_MAX_RESPONSE_BYTES,
  type EmbeddableClient,
} from '../service';
import { forTerminal, jsonForTerminal } from '../terminal-text';
import { parseCommandLine, type OptionsSpec, type ParsedArgs } from './args';
import { EXIT_OK, EXIT_REFUSED, UsageError, type CliIO, type Command } from './io';
import { didYouMean } from './suggest';

/** Environment variable holding the workspace API key. */
export const API_KEY_ENV = 'EMBEDDABLE_API_KEY';
/** Environment variable holding the base URL, used when neither `--base-url` nor `--region` is given. */
const BASE_URL_ENV = 'EMBEDDABLE_BASE_URL';
/** Environment variable holding the largest answer accepted, used when `--max-response-bytes` is not given. */
const MAX_RESPONSE_BYTES_ENV = 'EMBEDDABLE_MAX_RESPONSE_BYTES';

/** Options every service command takes. */
export const CONNECTION_OPTIONS = {
  'base-url': { type: 'string' },
  region: { type: 'string' },
  'timeout-ms': { type: 'string' },
  'max-response-bytes': { type: 'string' },
  json: { type: 'boolean', default: false },
} as const satisfies OptionsSpec;

const CONNECTION_OPTION_LINES: ReadonlyArray<readonly [string, string]> = [
  ['--region <name>', `service region (us, eu, ...): https://api.<region>.${EMBEDDABLE_SERVICE_DOMAIN}`],
  ['--base-url <url>', `the whole base URL instead (default: $${BASE_URL_ENV})`],
  ['--timeout-ms <ms>', 'time allowed per attempt (default 10000)'],
  ['--max-response-bytes <n>', `largest answer accepted, in bytes (default ${DEFAULT_MAX_RESPONSE_BYTES}: 8 MiB)`],
  ['--json', 'print JSON on stdout (failures too, as {"error": {...}})'],
];

/** The Options lines of {@link CONNECTION_OPTIONS}, flags padded to `width`; a longer flag's text on the next line. */
export function connectionOptionsHelp(width = 18): string {
  return CONNECTION_OPTION_LINES.map(([flag, text]) =>
    flag.length > width ? `  ${flag}\n  ${' '.repeat(width)}  ${text}` : `  ${flag.padEnd(width)}  ${text}`,
  ).join('\n');
}

/** The lines of a service command's Environment section: the key and the address. */
export const SERVICE_ENVIRONMENT_HELP = `  ${API_KEY_ENV}   the workspace API key (required); never taken from the \
command line,
                       never printed
  ${BASE_URL_ENV}  the base URL, when neither --base-url nor --region is given
  ${MAX_RESPONSE_BYTES_ENV}
                       the largest answer accepted, in bytes, without --max-response-bytes`;

/** A service command's Exit status section; `refusedAlso` adds the command's own refusals to status 1. */
export function serviceExitHelp(refusedAlso = ''): string {
  return `Exit status:
  0  done
  1  refused: by validation before sending, or by the service (the message names the field, or the
     HTTP status and BUILDER code), or the service could not be reached${refusedAlso}
  2  wrong command line, or a required environment variable is not set`;
}

const MIN_REDACTED_LENGTH = 6;

/** Parses a service command's arguments; options that would carry a credential are refused. */
export function parseServiceArgs<O extends OptionsSpec>(
  args: readonly string[],
  options: O,
  positionals: readonly string[],
): ParsedArgs<O> {
  return parseCommandLine(args, {
    options,
    positionals,
    credentialsFrom: `Set ${API_KEY_ENV} for the API key; see --help for secrets.`,
  });
}

/** A whole number from 1 to `max` given as text by `source` (a flag or a variable); `undefined` when not given. */
function wholeNumber(
  source: string,
  value: string | undefined,
  unit: string,
  max = Number.MAX_SAFE_INTEGER,
): number | undefined {
  if (value === undefined) return undefined;
  if (!/^[1-9][0-9]*$/.test(value) || Number(value) > max) {
    throw new UsageError(
      `${source} must be a whole number of ${unit}${max === Number.MAX_SAFE_INTEGER ? '' : ` from 1 to ${max}`}, got ${JSON.stringify(value)}`,
    );
  }
  return Number(value);
}

/** The values of {@link CONNECTION_OPTIONS}, as every service command has them parsed. */
type ConnectionValues = ParsedArgs<typeof CONNECTION_OPTIONS>['values'];

/** Creates the client from the connection flags and the `EMBEDDABLE_…` variables. */
function connect(values: ConnectionValues, env: NodeJS.ProcessEnv): EmbeddableClient {
  const apiKey = env[API_KEY_ENV];
  if (!apiKey) throw new UsageError(`${API_KEY_ENV} is not set: put the workspace API key in it`);
  if (values['base-url'] !== undefined && values.region !== undefined)
    throw new UsageError('give --base-url or --region, not both');
  const baseUrl = values['base-url'] ?? (values.region === undefined ? env[BASE_URL_ENV] || undefined : undefined);
  if (baseUrl === undefined && values.region === undefined) {
    throw new UsageError(`no service address: give --region (such as us or eu) or --base-url, or set ${BASE_URL_ENV}`);
  }
  const timeoutMs = wholeNumber('--timeout-ms', values['timeout-ms'], 'milliseconds');
  const maxResponseBytes =
    values['max-response-bytes'] !== undefined
      ? wholeNumber('--max-response-bytes', values['max-response-bytes'], 'bytes', MAX_MAX_RESPONSE_BYTES)
      : wholeNumber(MAX_RESPONSE_BYTES_ENV, env[MAX_RESPONSE_BYTES_ENV] || undefined, 'bytes', MAX_MAX_RESPONSE_BYTES);
  return createEmbeddableClient({
    apiKey,
    ...(baseUrl === undefined ? { region: values.region } : { baseUrl }),
    ...(timeoutMs !== undefined && { timeoutMs }),
    ...(maxResponseBytes !== undefined && { maxResponseBytes }),
  });
}

/** Writes results, JSON or text, secrets kept out and escaped by `forTerminal` (terminal-text.ts), `--json` too. */
class Output {
  private readonly secrets: string[];

  constructor(
    private readonly io: CliIO,
    readonly json: boolean,
    secrets: ReadonlyArray<string | undefined>,
  ) {
    // Very short values would garble ordinary text if replaced; real keys and secrets are long.
    this.secrets = secrets.filter((s): s is string => typeof s === 'string' && s.length >= MIN_REDACTED_LENGTH);
  }

  /** Prints `value` as JSON with `--json` or without `human`, otherwise the text `human()` makes. */
  result(value: unknown, human?: () => string): void {
    this.write(this.json || !human ? `${jsonForTerminal(withoutSecretKeys(value), 2)}\n` : human());
  }

  /** Prints the error; exit status 1. */
  refused(command: string, error: EmbeddableError): number {
    if (this.json) {
      const { name, message, operation } = error;
      const details = error as unknown as Record<string, unknown>;
      const fields = Object.fromEntries(
        ['status', 'code', 'field', 'attempts'].filter((k) => details[k] !== undefined).map((k) => [k, details[k]]),
      );
      this.write(`${jsonForTerminal({ error: { type: name, operation, ...fields, message } }, 2)}\n`);
    }
    // One line: a line break inside the message (it may quote the service) is escaped like any other control.
    this.io.stderr.write(`${forTerminal(this.redact(`cube-dual-auth ${command}: ${error.message}`))}\n`);
    return EXIT_REFUSED;
  }

  private write(text: string): void {
    this.io.stdout.write(this.clean(text));
  }

  /** Removes known secrets, then escapes line by line, keeping the line breaks of tables and indented JSON. */
  private clean(text: string): string {
    return this.redact(text).split('\n').map(forTerminal).join('\n');
  }

  private redact(text: string): string {
    let result = text;
    for (const secret of this.secrets) result = result.split(secret).join('[redacted]');
    return result;
  }
}

/** Replaces every `secretKey` value (a data-provider record may echo it) with a placeholder. */
function withoutSecretKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutSecretKeys);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.entries(value).map(([k, v]) => [k, k === 'secretKey' ? '[redacted]' : withoutSecretKeys(v)]),
  );
}

/** Runs a service action with a client and an {@link Output} keeping secrets out: exit 0, or 1 when refused. */
export async function runService(
  command: string,
  io: CliIO,
  values: ConnectionValues,
  action: (client: EmbeddableClient, output: Output) => Promise<void>,
  secrets: ReadonlyArray<string | undefined> = [],
): Promise<number> {
  const output = new Output(io, values.json, [io.env[API_KEY_ENV], ...secrets]);
  try {
    await action(connect(values, io.env), output);
    return EXIT_OK;
  } catch (error) {
    if (error instanceof EmbeddableError) return output.refused(command, error);
    throw error;
  }
}

/** An action of a command with actions (`provider create`, `versions list`, ...). */
type Action = (args: readonly string[], io: CliIO) => Promise<number>;

/** A command's `run` that hands the arguments after the first to the action the first one names. */
export function dispatch(actions: Readonly<Record<string, Action>>): Command['run'] {
  return async (args, io) => {
    const [name, ...rest] = args;
    const action = name === undefined ? undefined : actions[name];
    if (!action) {
      const got = name === undefined ? '' : `, got ${JSON.stringify(name)}${didYouMean(name, Object.keys(actions))}`;
      throw new UsageError(`expected an action (${Object.keys(actions).join(', ')})${got}`);
    }
    return action(rest, io);
  };
}

/** Lays out rows under a header, columns padded to their widest cell. */
export function table(header: readonly string[], rows: ReadonlyArray<readonly string[]>): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: readonly string[]) =>
    cells
      .map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i] ?? 0)))
      .join('  ')
      .trimEnd();
  return `${[header, ...rows].map(line).join('\n')}\n`;
}
