import type { Command } from './io';

/** A subcommand as the overview lists it; its module (the hook's core, or the service client) loads on use. */
interface CommandEntry {
  readonly name: string;
  /** One line for the overview. */
  readonly summary: string;
  /** Loads the command's module, in commands/: only when the command runs or its `--help` is asked for. */
  load(): Promise<Command>;
}

/** Every subcommand, in the order `--help` lists them. */
export const commands: readonly CommandEntry[] = [
  {
    name: 'verify',
    summary: 'explain how the checkAuth hook judges a token: path, header, claims, key, verdict and fix',
    load: async () => (await import('./commands/verify.js')).verify,
  },
  {
    name: 'doctor',
    summary: "check this environment's configuration: secrets, JWKS reachability and keys, claims, Cube",
    load: async () => (await import('./commands/doctor.js')).doctor,
  },
  {
    name: 'token',
    summary: 'mint an HS256 test token with the API secret, for the shared-secret path',
    load: async () => (await import('./commands/token.js')).token,
  },
  {
    name: 'sql-key',
    summary: "mint a SQL key: a BI tool's SQL API password standing for an identity-provider login",
    load: async () => (await import('./commands/sql-key.js')).sqlKey,
  },
  {
    name: 'probe',
    summary: 'check a running deployment from outside, as the embedding service and an app call it',
    load: async () => (await import('./commands/probe.js')).probe,
  },
  {
    name: 'access',
    summary: 'show what the running Cube lets a token see (cubes, members, row conditions); compare two',
    load: async () => (await import('./commands/access.js')).access,
  },
  {
    name: 'replicas',
    summary: 'compare what each running replica holds of the secrets files, from their metrics',
    load: async () => (await import('./commands/replicas.js')).replicas,
  },
  {
    name: 'provider',
    summary: 'register and update the Cube deployments the service queries (data providers)',
    load: async () => (await import('./commands/provider.js')).provider,
  },
  {
    name: 'versions',
    summary: "list, show, compare, publish, promote and roll back a dashboard's saved versions",
    load: async () => (await import('./commands/versions.js')).versions,
  },
  {
    name: 'security-token',
    summary: 'request a security token to embed a dashboard against a data provider',
    load: async () => (await import('./commands/security-token.js')).securityToken,
  },
];
