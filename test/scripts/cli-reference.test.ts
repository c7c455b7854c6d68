// docs/cli.md is generated from the built CLI by scripts/cli-reference.mjs; it must be what the commands print now.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CLI_REFERENCE, cliReference } from '../../scripts/cli-reference.mjs';
import { scratchDirs } from '../support/scratch';

describe('the CLI reference', () => {
  it('docs/cli.md is what the built CLI prints now', async () => {
    expect(readFileSync(CLI_REFERENCE, 'utf8'), 'docs/cli.md is out of date: run `npm run docs:cli`').toBe(
      await cliReference(),
    );
  });

  describe('generated from a CLI', () => {
    const scratchDir = scratchDirs('cli-reference-');

    /** A built CLI with one command, `alpha`, whose `create` action has a help of its own and whose `list` has not. */
    function fakeDist(): string {
      const dist = scratchDir();
      mkdirSync(join(dist, 'cli'), { recursive: true });
      const helps = {
        '--help': 'Usage: cube-dual-auth <command>',
        alpha:
          'Usage: cube-dual-auth alpha <action>\n\nActions:\n  create --name <n>\n      Make one.\n  list   List them.\n\nExamples:\n  cube-dual-auth alpha list\n',
        'alpha create': 'Usage: cube-dual-auth alpha create --name <n>\n',
      };
      writeFileSync(
        join(dist, 'cli/run.js'),
        `const helps = ${JSON.stringify(helps)};
exports.run = async (args, io) => {
  const key = args.length === 1 ? args[0] : args.filter((a) => a !== '--help').join(' ');
  io.stdout.write(helps[key] ?? helps[args[0]]);
  return 0;
};`,
      );
      writeFileSync(
        join(dist, 'cli/registry.js'),
        `exports.commands = [{ name: 'alpha', summary: 'make or list | things', load: async () => ({}) }];`,
      );
      return dist;
    }

    it('lists each command, then its help, then each action that answers --help with a text of its own', async () => {
      const markdown = await cliReference(fakeDist());
      expect(markdown).toContain('| [`alpha`](#alpha) | make or list \\| things |');
      expect(markdown).toContain('## cube-dual-auth --help\n\n```text\nUsage: cube-dual-auth <command>\n```');
      expect(markdown).toContain('## alpha\n\n```text\nUsage: cube-dual-auth alpha <action>\n');
      expect(markdown).toContain('### alpha create\n\n```text\nUsage: cube-dual-auth alpha create --name <n>\n```');
      expect(markdown).not.toContain('### alpha list');
      expect(markdown).not.toContain('### alpha cube-dual-auth');
    });
  });
});
