/** The registry of commands: every module of src/cli/commands/ listed once, each loaded by its own entry. */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { commands } from '../../src/cli/registry';

describe('the command registry', () => {
  it('lists each module of src/cli/commands/ once, by its file name', () => {
    const files = readdirSync(join(__dirname, '../../src/cli/commands')).map((file) => file.replace(/\.ts$/, ''));
    expect(commands.map((entry) => entry.name).sort()).toEqual(files.sort());
  });

  it.each(commands.map((entry) => [entry.name, entry] as const))('%s loads its own command', async (name, entry) => {
    const command = await entry.load();
    expect(command.help.startsWith(`Usage: cube-dual-auth ${name} `)).toBe(true);
    expect(typeof command.run).toBe('function');
  });
});
