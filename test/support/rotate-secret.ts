/**
 * The `provider rotate-secret` tests' bed: the service commands' contract server holding a data provider with the old
 * secret, a file with the new one, and Cube stand-ins on 127.0.0.1 that each test starts and the bed closes.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach } from 'vitest';
import { createCheckAuth, type CheckAuth } from '../../src';
import { randomSecret } from './claims';
import { runCli, type CliResult } from './cli';
import type { ContractServer, RecordedRequest } from './contract-server';
import { cubeGateway, startDeployment, type Deployment, type Handler } from './deployment';
import { API_KEY, serviceCommandsBed } from './service-commands';

/** The data provider the tests rotate the secret of. */
export const PROVIDER = 'cube-main';

export interface RotateSecretBed {
  /** A random secret: the data provider's `secretKey` before each test. */
  readonly oldSecret: string;
  /** A random secret: the one in {@link newSecretFile}. */
  readonly newSecret: string;
  /** What no run may print: the API key, the old secret and the new one. */
  readonly secrets: readonly string[];
  /** The contract server, holding {@link PROVIDER} (type cube, version v1.4.0, the old secret) before each test. */
  readonly server: ContractServer;
  /** The commands' environment: the API key and the contract server's URL, as a deployment's CI gives them. */
  readonly env: Record<string, string>;
  /** A directory for the test file's own files, removed after its tests. */
  readonly dir: string;
  /** The file of `--new-secret-file`: the new secret and a newline. */
  readonly newSecretFile: string;
  /** A checkAuth with `apiSecret` in force, closed after the test. */
  checkAuth(apiSecret: string[]): CheckAuth;
  /** A Cube stand-in answering with `handler`, closed after the test. */
  standIn(handler: Handler): Promise<Deployment>;
  /** A Cube stand-in whose gateway calls a {@link checkAuth} with `apiSecret`; both closed after the test. */
  cube(apiSecret: string[]): Promise<Deployment>;
  /** `provider rotate-secret` of {@link PROVIDER} to the new secret, asking the Cube at `cubeUrl`, with `extra`. */
  rotate(cubeUrl: string, ...extra: string[]): Promise<CliResult>;
  /** The updates of a data provider the contract server received in this test. */
  updates(): RecordedRequest[];
}

/** Registers the bed's hooks in the calling test file and returns it; `prefix` names its directory. */
export function rotateSecretBed(prefix: string): RotateSecretBed {
  const [oldSecret, newSecret] = [randomSecret(32), randomSecret(32)];
  const secrets = [API_KEY, oldSecret, newSecret];
  const commands = serviceCommandsBed();
  let dir = '';
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), prefix));
    writeFileSync(join(dir, 'new-api-secret'), `${newSecret}\n`);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  beforeEach(() => {
    commands.server.dataProviders.set(PROVIDER, {
      name: PROVIDER,
      type: 'cube',
      version: 'v1.4.0',
      credentials: { secretKey: oldSecret, instanceUrl: 'https://main.cubecloudapp.dev' },
    });
  });
  const standIns: Deployment[] = [];
  const hooks: CheckAuth[] = [];
  afterEach(async () => {
    await Promise.all(standIns.splice(0).map((standIn) => standIn.close()));
    hooks.splice(0).forEach((hook) => hook.close());
  });
  const bed: RotateSecretBed = {
    oldSecret,
    newSecret,
    secrets,
    get server() {
      return commands.server;
    },
    get env() {
      return commands.env();
    },
    get dir() {
      return dir;
    },
    get newSecretFile() {
      return join(dir, 'new-api-secret');
    },
    checkAuth(apiSecret) {
      const hook = createCheckAuth({ apiSecret });
      hooks.push(hook);
      return hook;
    },
    async standIn(handler) {
      const standIn = await startDeployment(handler);
      standIns.push(standIn);
      return standIn;
    },
    cube: (apiSecret) => bed.standIn(cubeGateway(bed.checkAuth(apiSecret))),
    rotate: (cubeUrl, ...extra) =>
      runCli(
        ['provider', 'rotate-secret', PROVIDER, '--cube', cubeUrl, '--new-secret-file', bed.newSecretFile, ...extra],
        {
          env: bed.env,
          secrets,
        },
      ),
    updates: () => commands.server.requestsTo('PUT', '/data-providers/'),
  };
  return bed;
}
