import type { Command } from '../io';
import { doctor } from './doctor';
import { provider } from './provider';
import { securityToken } from './security-token';
import { token } from './token';
import { verify } from './verify';
import { versions } from './versions';

/** Every subcommand, in the order `--help` lists them. Each command lives in its own module beside this one. */
export const commands: readonly Command[] = [
  verify,
  doctor,
  token,
  provider,
  versions,
  securityToken,
];
