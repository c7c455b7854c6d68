/**
 * The command line as a whole, in-process: --version, --help everywhere, "did you mean", and the one
 * layout every command's help follows (its text is also the source of the generated CLI reference).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Readable, Writable } from 'node:stream';
import { describe, expect, test } from 'vitest';
import { commands } from '../../src/cli/registry';
import { run } from '../../src/cli/run';
import { randomSecret } from '../support/claims';
import { runCli, terminalControlsIn } from '../support/cli';

const root = join(__dirname, '..', '..');
const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string };

/** Every command's help text, by name. */
async function helps(): Promise<Array<[string, string]>> {
  return Promise.all(commands.map(async (c) => [c.name, (await c.load()).help] as [string, string]));
}

describe('--version', () => {
  test.each([['--version'], ['-v']])('%s prints the version from package.json, exit 0', async (flag) => {
    expect(version).toMatch(/^\d+\.\d+\.\d+/);
    expect(await runCli([flag])).toMatchObject({ code: 0, stdout: `${version}\n`, stderr: '' });
  });
});

describe('--help', () => {
  test.each([['--help'], ['-h'], ['help'], ['help', '--version']])(
    '%s %s prints the overview, exit 0',
    async (...argv) => {
      const result = await runCli(argv);
      expect(result).toMatchObject({ code: 0, stderr: '' });
      expect(result.stdout).toMatch(/^Usage: cube-dual-auth <command> \[options\]\n/);
      expect(result.stdout).toContain('  -v, --version   print the version of cube-dual-auth\n');
      const width = Math.max(...commands.map((c) => c.name.length), '-v, --version'.length);
      for (const { name, summary } of commands)
        expect(result.stdout).toContain(`  ${name.padEnd(width)}  ${summary}\n`);
    },
  );

  test('no command at all prints the overview, exit 2', async () => {
    const result = await runCli([]);
    expect(result.code).toBe(2);
    expect(result.stdout).toMatch(/^Usage: cube-dual-auth <command>/);
  });

  test.each(commands.map((c) => [c.name]))('%s --help, -h and help %s print its help, exit 0', async (name) => {
    const help = (await (commands.find((c) => c.name === name) as (typeof commands)[number]).load()).help;
    for (const argv of [
      [name, '--help'],
      [name, '-h'],
      ['help', name],
    ]) {
      expect(await runCli(argv)).toEqual({
        code: 0,
        stdout: help,
        stderr: '',
        ms: expect.any(Number),
        lateMs: expect.any(Number),
      });
    }
  });

  test.each([
    ['provider', 'list', '--help'],
    ['provider', 'upsert', '-h'],
    ['versions', 'publish', '-h'],
    ['versions', 'promote', '--help'],
    ['versions', 'rollback', 'x', '--tag', 'production', '--help'],
    ['verify', 'some-token', '--origin', '--help'],
  ])('after an action or other arguments, %s %s %s prints the help, exit 0, and sends nothing', async (...argv) => {
    const result = await runCli(argv, { env: { EMBEDDABLE_API_KEY: 'k', EMBEDDABLE_BASE_URL: 'http://127.0.0.1:9' } });
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(result.stdout).toMatch(new RegExp(`^Usage: cube-dual-auth ${argv[0]} `));
  });
});

describe('did you mean', () => {
  test.each([
    [['verfy', 'x'], 'cube-dual-auth: unknown command "verfy"; did you mean "verify"?'],
    [['version'], 'cube-dual-auth: unknown command "version"; did you mean "versions"?'],
    [['securty-token'], 'cube-dual-auth: unknown command "securty-token"; did you mean "security-token"?'],
    [['--verison'], 'cube-dual-auth: unknown option "--verison"; did you mean "--version"?'],
  ])('%j', async (argv, message) => {
    const result = await runCli(argv);
    expect(result).toMatchObject({
      code: 2,
      stdout: '',
      stderr: `${message}\nRun 'cube-dual-auth --help' for the commands.\n`,
    });
  });

  test('a command nothing is close to gets the list of commands', async () => {
    const result = await runCli(['deploy']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^cube-dual-auth: unknown command "deploy"\n\nUsage: cube-dual-auth <command>/);
  });

  test.each([
    [
      ['versions', 'promte', 'x'],
      'expected an action (list, show, diff, publish, promote, rollback), got "promte"; did you mean "promote"?',
    ],
    [['versions', 'rolback'], 'got "rolback"; did you mean "rollback"?'],
    [['provider', 'upsret'], 'got "upsret"; did you mean "upsert"?'],
    [['provider', 'rename'], 'got "rename"\n'],
    [['doctor', '--jsno'], `Unknown option '--jsno'; did you mean "--json"?`],
    [['versions', 'promote', 'x', '--form', 'staging'], `Unknown option '--form'; did you mean "--from"?`],
    [['token', '--claim', '{}'], `Unknown option '--claim'; did you mean "--claims"?`],
  ])('%j', async (argv, message) => {
    const result = await runCli(argv, { env: { EMBEDDABLE_API_KEY: 'k', EMBEDDABLE_BASE_URL: 'http://127.0.0.1:9' } });
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain(message);
    expect(result.stderr).toMatch(new RegExp(`\\nRun 'cube-dual-auth ${argv[0]} --help' for usage\\.\\n$`));
  });
});

describe('the command line quoted back', () => {
  // Named, not shown with %j: the titles would carry the raw characters to the test runner's terminal.
  test.each([
    ['an unknown command', ['\u009b2Jverify'], 'unknown command "\\u009b2Jverify"'],
    ['an unknown option', ['doctor', '--\u009b2Jjson'], "Unknown option '--\\u009b2Jjson'"],
    ['a stray argument', ['token', '--claims', '{}', '\u001b[2J'], "Unexpected argument '\\u001b[2J'"],
  ])('%s holding control characters: escaped, exit 2', async (_name, argv, quoted) => {
    const result = await runCli(argv);
    expect(result.code).toBe(2);
    expect(terminalControlsIn(result.stderr)).toEqual([]);
    expect(result.stderr).toContain(quoted);
  });
});

describe('an unexpected failure', () => {
  /** Runs `args` with a standard output that throws `error` on every write: nothing the command foresees. */
  const failing = async (args: string[], error: Error, env: NodeJS.ProcessEnv = {}): Promise<string> => {
    let errors = '';
    const stderr = new Writable({
      write(chunk: Buffer, _encoding, done) {
        errors += chunk.toString('utf8');
        done();
      },
    });
    const stdout = Object.assign(new Writable(), {
      write(): boolean {
        throw error;
      },
    });
    const code = await run(args, { stdout, stderr, stdin: Readable.from([]), env, cwd: root });
    expect(code).toBe(3);
    return errors;
  };

  test('is told on standard error, escaped, with the command it ended: exit 3', async () => {
    const errors = await failing(['token', '--claims', '{}'], new Error('stdout is gone\u001b[2J'), {
      CUBEJS_API_SECRET: randomSecret(),
    });
    expect(errors).toMatch(
      /^cube-dual-auth token: internal fault [0-9a-f]{8}: Error: stdout is gone\\u001b\[2J \(run again with --verbose for the detail\)\n$/,
    );
  });

  test('gives its detail under the same id with --verbose, never a raw stack without it', async () => {
    const plain = await failing(
      ['token', '--secret-file', '/nonexistent', '--help'],
      new RangeError('Invalid string length'),
    );
    expect(plain.split('\n')).toHaveLength(2);
    expect(plain).not.toMatch(/\n\s+at /);
    const verbose = await failing(['--verbose', 'token', '--help'], new RangeError('Invalid string length'));
    const id = /internal fault ([0-9a-f]{8}): RangeError: Invalid string length\n/.exec(verbose)?.[1];
    expect(id).toBeDefined();
    expect(verbose).toContain(`fault ${id} detail:\n  RangeError: Invalid string length\n      at `);
  });
});

describe('one help style', () => {
  const SECTIONS = ['Arguments', 'Actions', 'Options', 'Environment', 'Exit status', 'Examples'];

  test('the overview: every summary starts in lower case, without a closing full stop', () => {
    for (const { summary } of commands) {
      expect(summary).toMatch(/^[a-z]/);
      expect(summary).not.toMatch(/\.$/);
    }
  });

  test.each(commands.map((c) => [c.name]))("%s's help follows the layout", async (name) => {
    const help = new Map(await helps()).get(name) as string;
    const lines = help.split('\n');
    expect(lines[0]).toMatch(new RegExp(`^Usage: cube-dual-auth ${name}( |$)`));
    expect(lines[1]).toBe('');
    expect(lines[2]).toMatch(/^[A-Z]/);
    expect(help.endsWith('\n') && !help.endsWith('\n\n')).toBe(true);

    // Headings: alone on their line, from the list, in its order; always Options, Exit status, Examples.
    const headings = lines.filter((line) => /^[A-Z][a-z]*( [a-z]+)?:$/.test(line)).map((line) => line.slice(0, -1));
    for (const heading of headings) expect(SECTIONS).toContain(heading);
    expect([...headings].sort((a, b) => SECTIONS.indexOf(a) - SECTIONS.indexOf(b))).toEqual(headings);
    expect(headings).toEqual(expect.arrayContaining(['Options', 'Exit status', 'Examples']));

    // Each section: a blank line before its heading, its lines indented by two spaces.
    for (const heading of headings) {
      const start = lines.indexOf(`${heading}:`);
      expect(lines[start - 1]).toBe('');
      const body = lines.slice(start + 1, lines.indexOf('', start));
      expect(body.length).toBeGreaterThan(0);
      for (const line of body) expect(line).toMatch(/^ {2}\S|^ {3,}\S/);
    }

    // Options and actions are described in lower case; exit statuses one per line.
    const section = (heading: string) =>
      headings.includes(heading)
        ? lines.slice(lines.indexOf(`${heading}:`) + 1, lines.indexOf('', lines.indexOf(`${heading}:`)))
        : [];
    for (const line of section('Options')) {
      const described = /^ {2}-\S.*? {2,}(\S)/.exec(line);
      if (described) expect(described[1], line).toMatch(/[a-z"{]/);
    }
    // An action: its usage line (indented 2), then what it does (indented 6).
    const actions = section('Actions');
    actions.forEach((line, i) => {
      if (/^ {2}\S/.test(line)) expect(actions[i + 1], line).toMatch(/^ {6}[a-z]/);
    });
    const statuses = section('Exit status').filter((line) => /^ {2}\d/.test(line));
    // A command may add a status of its own after these (provider rotate-secret's 4, docs/errors.md).
    expect(statuses.map((line) => line.slice(2, 3)).slice(0, 3)).toEqual(['0', '1', '2']);
    expect(statuses.map((line) => line.slice(2, 3)).slice(3)).toEqual(name === 'provider' ? ['4'] : []);
    for (const line of statuses) expect(line).toMatch(/^ {2}\d {2}[a-z]/);
  });

  test('no help text and no source file names a file that does not exist', async () => {
    const texts = (await helps()).map(([, help]) => help);
    const sources = readdirSync(join(root, 'src'), { recursive: true, encoding: 'utf8' })
      .filter((file) => file.endsWith('.ts'))
      .map((file) => readFileSync(join(root, 'src', file), 'utf8'));
    const named = [...texts, ...sources].flatMap((text) =>
      [...text.matchAll(/\b((?:docs|src|test|scripts|examples)\/[\w./-]+\.(?:md|ts|mjs|js|json))\b/g)].map(
        (m) => m[1] as string,
      ),
    );
    for (const file of new Set(named)) expect(existsSync(join(root, file)), file).toBe(true);
    for (const text of texts) expect(text).not.toMatch(/README|readme-cli/);
  });
});
