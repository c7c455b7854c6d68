import type { Command } from '../io';

/** Every subcommand, in the order `--help` lists them. Each command lives in its own module beside this one. */
export const commands: readonly Command[] = [];
