import { commands } from './commands';
import { EXIT_OK, EXIT_USAGE, UsageError, type CliIO } from './io';

function overview(): string {
  const width = Math.max(...commands.map((c) => c.name.length));
  const lines = commands.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`);
  return [
    'Usage: cube-dual-auth <command> [options]',
    '',
    'Commands:',
    ...lines,
    '',
    "Run 'cube-dual-auth <command> --help' for a command's options and examples.",
    '',
  ].join('\n');
}

/** Runs the command line and returns the exit status; never throws. */
export async function run(argv: readonly string[], io: CliIO): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    io.stdout.write(overview());
    return name === undefined ? EXIT_USAGE : EXIT_OK;
  }
  const entry = commands.find((c) => c.name === name);
  if (!entry) {
    io.stderr.write(`cube-dual-auth: unknown command ${JSON.stringify(name)}\n\n${overview()}`);
    return EXIT_USAGE;
  }
  try {
    const command = await entry.load();
    if (rest.includes('--help') || rest.includes('-h')) {
      io.stdout.write(command.help.endsWith('\n') ? command.help : `${command.help}\n`);
      return EXIT_OK;
    }
    return await command.run(rest, io);
  } catch (error) {
    if (error instanceof UsageError) {
      io.stderr.write(`cube-dual-auth ${name}: ${error.message}\nRun 'cube-dual-auth ${name} --help' for usage.\n`);
      return EXIT_USAGE;
    }
    const message = error instanceof Error ? error.message : String(error);
    io.stderr.write(`cube-dual-auth ${name}: unexpected failure: ${message}\n`);
    return EXIT_USAGE + 1;
  }
}
