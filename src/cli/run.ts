import { forTerminal, jsonForTerminal } from '../terminal-text';
import { commands } from './registry';
import { faultReport } from './fault';
import { EXIT_FAILURE, EXIT_OK, EXIT_USAGE, UsageError, type CliIO } from './io';
import { packageVersion } from './package-version';
import { Scrubber, scrubbingStream } from './scrub';
import { secretsInForce } from '../config/deployment';
import { didYouMean } from './suggest';

const HELP_FLAGS = ['--help', '-h'];
const VERSION_FLAGS = ['--version', '-v'];
const VERBOSE_FLAG = '--verbose';

function overview(): string {
  const width = Math.max(...commands.map((c) => c.name.length), '-v, --version'.length);
  const lines = commands.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`);
  return [
    'Usage: cube-dual-auth <command> [options]',
    '',
    'Commands:',
    ...lines,
    '',
    'Options:',
    `  ${'-h, --help'.padEnd(width)}  print this overview; after a command, that command's help`,
    `  ${'-v, --version'.padEnd(width)}  print the version of cube-dual-auth`,
    `  ${VERBOSE_FLAG.padEnd(width)}  after a command: an internal fault's detail too (docs/cli.md)`,
    '',
    "Run 'cube-dual-auth <command> --help' for a command's options and examples.",
    '',
  ].join('\n');
}

/** A first argument that names no command: an option is said to be one, a near command is suggested. */
function unknown(name: string, io: CliIO): number {
  const option = name.startsWith('-');
  const suggestion = didYouMean(name, option ? [...HELP_FLAGS, ...VERSION_FLAGS] : commands.map((c) => c.name));
  io.stderr.write(`cube-dual-auth: unknown ${option ? 'option' : 'command'} ${jsonForTerminal(name)}${suggestion}\n`);
  // Without a near name, the list of commands is the help that is needed.
  io.stderr.write(suggestion === '' ? `\n${overview()}` : "Run 'cube-dual-auth --help' for the commands.\n");
  return EXIT_USAGE;
}

/**
 * Runs the command line and returns the exit status; never throws. All it prints is scrubbed of the tokens and
 * secrets the command holds (scrub.ts).
 */
export async function run(argv: readonly string[], given: CliIO): Promise<number> {
  const scrubber = given.scrubber ?? new Scrubber();
  scrubber.holdEnvironment(given.env);
  for (const secret of secretsInForce({ env: given.env, cwd: given.cwd })) scrubber.holdSecret(secret);
  const io: CliIO = {
    ...given,
    stdout: scrubbingStream(given.stdout, scrubber),
    stderr: scrubbingStream(given.stderr, scrubber),
    scrubber,
  };
  return runCommand(argv, io);
}

async function runCommand(argv: readonly string[], io: CliIO): Promise<number> {
  const verbose = argv.includes(VERBOSE_FLAG);
  const [first, ...after] = argv.filter((arg) => arg !== VERBOSE_FLAG);
  // `help <command>` is `<command> --help`; `help` alone (or before an option) is the overview.
  const topic = first === 'help' && after[0] !== undefined && !after[0].startsWith('-') ? after[0] : undefined;
  if (first === undefined || HELP_FLAGS.includes(first) || (first === 'help' && topic === undefined)) {
    io.stdout.write(overview());
    return first === undefined ? EXIT_USAGE : EXIT_OK;
  }
  if (VERSION_FLAGS.includes(first)) {
    io.stdout.write(`${packageVersion()}\n`);
    return EXIT_OK;
  }
  const [name, ...rest] = topic === undefined ? [first, ...after] : [topic, '--help'];
  const entry = commands.find((c) => c.name === name);
  if (!entry) return unknown(name, io);
  try {
    const command = await entry.load();
    // Anywhere after the command, also after an action (`versions publish -h`): help, exit 0.
    if (rest.some((arg) => HELP_FLAGS.includes(arg))) {
      io.stdout.write(command.help.endsWith('\n') ? command.help : `${command.help}\n`);
      return EXIT_OK;
    }
    return await command.run(rest, io);
  } catch (error) {
    // Both messages may quote the command line or what a server answered.
    if (error instanceof UsageError) {
      io.stderr.write(
        `cube-dual-auth ${name}: ${forTerminal(error.message)}\nRun 'cube-dual-auth ${name} --help' for usage.\n`,
      );
      return EXIT_USAGE;
    }
    io.stderr.write(faultReport(name, error, verbose));
    return EXIT_FAILURE;
  }
}
