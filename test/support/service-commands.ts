/**
 * The service commands' test bed: a contract server for a test file, cleared before each test and given a dashboard
 * of 35 saved versions; the environment a deployment's CI gives the commands; and the CLI run in-process against the
 * server, failing the test when the API key or a deployment secret reached its output.
 */
import { afterAll, beforeAll, beforeEach } from 'vitest';
import { runCli, type CliResult } from './cli';
import { startContractServer, type ContractServer, type ContractServerOptions } from './contract-server';

export const API_KEY = 'emb_cli_4c1d9e7a2b8f6053aa91';
export const SECRET = 'cube-main-secret-8d3F2kQ9';
export const PREVIEW_SECRET = 'cube-preview-secret-1Xw7Rt5';
const SECRETS = [API_KEY, SECRET, PREVIEW_SECRET];

/** `provider create` of a data provider `name` for the Cube at `instanceUrl`, of version `version`. */
export const createProvider = (name: string, instanceUrl: string, version: string) => [
  'provider',
  'create',
  '--name',
  name,
  '--instance-url',
  instanceUrl,
  '--provider-version',
  version,
];

/** `provider create` of the main deployment, whose secret is CUBEJS_API_SECRET. */
export const CREATE_MAIN = createProvider('cube-main', 'https://main.cubecloudapp.dev/cubejs-api/v1', 'v1.0.0');

export interface ServiceCommandsBed {
  /** The contract server. It echoes `secretKey` in its records: the commands must still never print it. */
  readonly server: ContractServer;
  /** The dashboard made for the test running. */
  readonly id: string;
  /** The environment of the commands: the API key, the server's URL, the deployment's secrets, and `extra`. */
  env(extra?: Record<string, string>): Record<string, string>;
  /** {@link env} without one variable. */
  without(name: string): Record<string, string>;
  /** Runs the CLI with `environment` (default {@link env}) and checks that no secret reached stdout or stderr. */
  cli(args: readonly string[], environment?: Record<string, string>, stdin?: string): Promise<CliResult>;
}

/**
 * A contract server (with `options`) for the calling test file, handed to `use` once it has started, closed after the
 * file's tests; before each test, what earlier tests left is forgotten (requests, faults, streamed answers, data
 * providers), so each test sees only its own.
 */
export function contractServerPerFile(options: ContractServerOptions, use: (server: ContractServer) => void): void {
  let server: ContractServer | undefined;
  beforeAll(async () => {
    server = await startContractServer(options);
    use(server);
  });
  afterAll(() => server?.close());
  beforeEach(() => {
    if (server === undefined) return;
    server.requests.length = 0;
    server.faults.length = 0;
    server.streamed.length = 0;
    server.dataProviders.clear();
    server.coreRequiresJwt = false;
  });
}

/**
 * Registers the server's hooks in the calling test file, and returns the bed its tests use; `use`, when given, is
 * handed the bed before each test, once its dashboard is made.
 */
export function serviceCommandsBed(use?: (bed: ServiceCommandsBed) => void): ServiceCommandsBed {
  let server: ContractServer | undefined;
  let id = '';
  const started = (): ContractServer => {
    if (server === undefined) throw new Error('the contract server starts in beforeAll');
    return server;
  };
  contractServerPerFile({ apiKey: API_KEY, echoSecretKey: true }, (running) => (server = running));
  beforeEach(() => {
    id = started().addDashboard(35);
    use?.(bed);
  });
  const env = (extra: Record<string, string> = {}): Record<string, string> => ({
    EMBEDDABLE_API_KEY: API_KEY,
    EMBEDDABLE_BASE_URL: started().baseUrl,
    CUBEJS_API_SECRET: SECRET,
    PREVIEW_SECRET,
    ...extra,
  });
  const bed: ServiceCommandsBed = {
    get server() {
      return started();
    },
    get id() {
      return id;
    },
    env,
    without: (name) => Object.fromEntries(Object.entries(env()).filter(([key]) => key !== name)),
    cli: (args, environment = env(), stdin) =>
      runCli(args, { env: environment, secrets: SECRETS, ...(stdin !== undefined && { stdin }) }),
  };
  return bed;
}
