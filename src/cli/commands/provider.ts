import { ENV, NO_SIGNING_SECRET } from '../../config/env';
import { deploymentOf, secretsOfDeployment, signingSecretOf } from '../../config/deployment';
import { DEFAULTS } from '../../config/options';
import { CUBE_DATA_PROVIDER_TYPE, type DataProviderRecord } from '../../service';
import { forTerminal } from '../../terminal-text';
import { UsageError, type CliIO, type Command } from '../io';
import { required } from '../args';
import { parseClaims } from '../cube-call';
import {
  CREDENTIAL_OPTION,
  credentialKind,
  instanceUrlOf,
  mintStandingToken,
  secretKeyShape,
  type CredentialKind,
} from '../rotate-secret/credential';
import { rotateSecret, RETRY_MS } from '../rotate-secret/action';
import { CLOCK_TOLERANCE_ENV, DEFAULT_WAIT_MS, MAX_REPLICAS, MAX_TOKEN_AGE_ENV } from '../rotate-secret/inputs';
import {
  API_KEY_ENV,
  CONNECTION_OPTIONS,
  connectionOptionsHelp,
  dispatch,
  parseServiceArgs,
  runService,
  SERVICE_ENVIRONMENT_HELP,
  serviceExitHelp,
  table,
} from '../service-options';

/**
 * Where `provider create` and `upsert` read the deployment's API secret unless `--secret-env` names another variable:
 * its main secret, the one the service is to sign with, as the hook reads it (`signingSecretOf`, config/deployment.ts): the
 * first of Cube's rotation list `CUBEJS_API_SECRETS` when that is set, `CUBEJS_API_SECRET` otherwise.
 */
const DEFAULT_SECRET_ENV = ENV.apiSecret;
const DEFAULT_SECRETS_ENV = ENV.apiSecrets;

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Options of `create` and `update`. */
const WRITE_OPTIONS = {
  ...CONNECTION_OPTIONS,
  name: { type: 'string' },
  'instance-url': { type: 'string' },
  'provider-version': { type: 'string' },
  'secret-env': { type: 'string' },
  ...CREDENTIAL_OPTION,
  claims: { type: 'string' },
} as const;

const help = `Usage: cube-dual-auth provider <action> [options]

Registers Cube deployments with the service as data providers (type "${CUBE_DATA_PROVIDER_TYPE}") and keeps them
up to date. A deployment's API secret is read from the environment, never from the command line, and
never printed: secrets in answers (any "secretKey" field) are printed as [redacted].

Actions:
  create --name <name> --instance-url <url> --provider-version <vX.Y.Z> [--secret-env <VAR>]
      register a deployment; the secret is the deployment's main API secret, read as the hook
      reads it: the first of $${DEFAULT_SECRETS_ENV} when set, else $${DEFAULT_SECRET_ENV}; or the
      variable --secret-env names; --instance-url may end in /cubejs-api/v1: the suffix is
      trimmed, as the service requires
  update --name <name> --provider-version <vX.Y.Z> [--instance-url <url>] [--secret-env <VAR>]
      update a deployment; the credential is sent only when --secret-env or --credential is given
  upsert --name <name> --instance-url <url> --provider-version <vX.Y.Z> [--secret-env <VAR>]
      update the deployment when it exists, create it otherwise (a preview-branch deployment
      created from CI): sends the update, and the create when the service answers 404; the
      secret as for create
  list
      list the data providers (assumed path: GET /api/v1/data-providers)
  show --name <name>
      show one (assumed path: GET /api/v1/data-providers/{name})
  delete --name <name> --yes
      delete one (assumed path: DELETE /api/v1/data-providers/{name})
  rotate-secret <name> --cube <cube-api-url> --new-secret-file <file> [rotation options]
      the service's part of rotating the deployment's API secret (docs/rotation.md): signs a
      service token with the new secret and asks the Cube, as probe's service-token check does,
      every ${RETRY_MS / 1000} s until it accepts it or --wait passes; only then updates the data provider's
      secretKey, with the version the update requires (--provider-version, else the one the
      service's record holds), and prints the last step: when the old secret can leave the Cube's
      list. A Cube that never accepts it: exit 1, nothing changed at the service. The secret must
      be as strong as the hook requires, on one line of <file>; it is never printed

Options:
${connectionOptionsHelp()}

  credential options (create, update, upsert, rotate-secret; docs/embeddable.md):
  --credential secret|token  what credentials.secretKey carries: the API secret (the service's
                            Cube Cloud connection), or a service token signed HS256 with it, with
                            no "exp" and a jti of cube-dual-auth's form (its Cube Core connection);
                            default secret for a *.cubecloudapp.dev or *.cubecloud.dev URL, required
                            for any other (exit 2 before anything is sent)
  --claims <json>           the token's claims, e.g. '{"tenant":"acme"}' (token only; default
                            {"sub":"embeddable-service"}): every request it carries gets this context

  rotation options (rotate-secret):
  --cube <cube-api-url>     the Cube to ask, as probe takes it (https://cube.example.com)
  --new-secret-file <file>  the file holding the new secret (one line)
  --dry-run                 ask the Cube, say what would change, change nothing
  --wait <duration>         how long to keep asking: 1500ms, 90s, 2m (default ${DEFAULT_WAIT_MS / 1000}s, at most 60m)
  --replicas <n>            answers in a row that must accept, each on a connection of its own: the
                            replicas behind --cube's load balancer (default 1, at most ${MAX_REPLICAS})
  --replica-metrics <url>   a replica's metrics URL, once per replica (as replicas takes them): once the
                            Cube accepts, waits up to --wait until every replica holds the same
                            api-secrets, none kept at its last good content, before the service changes
  --k8s-selector <s>        the Cube pods' label selector (app=cube-api): prints the kubectl annotate that
                            makes kubelet sync the Secret into every pod at once (docs/rotation.md)
  --provider-version <v>    the version to send, vX.Y.Z (default: the one the service's record holds)
  --token-lifetime <d>      how long the service's tokens live (30s, 15m, 1h), which its interface
                            does not show: with ${MAX_TOKEN_AGE_ENV}, the shorter one sets
                            when the old secret can go
  --claims <json>           the service token's claims, as probe takes them (default {})
  --origin <value>          the Request-Origin value of the service (default ${ENV.origin},
                            else "${DEFAULTS.origin}")

Environment:
${SERVICE_ENVIRONMENT_HELP}
  ${DEFAULT_SECRETS_ENV}   Cube's rotation list: its first secret is the deployment's API secret,
                       for create and upsert (unless --secret-env names another variable)
  ${DEFAULT_SECRET_ENV}    the deployment's API secret, when ${DEFAULT_SECRETS_ENV} is not set
  ${MAX_TOKEN_AGE_ENV}
                       the deployment's maximum token age, for rotate-secret's last step
  ${CLOCK_TOLERANCE_ENV}
                       its clock tolerance (default ${DEFAULTS.clockTolerance} s), added to it

${serviceExitHelp(';\n     and for rotate-secret, the Cube did not accept the new secret within --wait, or accepted\n     a token signed with a random secret (the URL does not judge tokens)')}
  4  rotate-secret: the update got no answer: the service may hold the new secret (check with
     provider show --name <name>, or run rotate-secret again)

Examples:
  export ${API_KEY_ENV}=... ${DEFAULT_SECRET_ENV}=...
  cube-dual-auth provider create --region us --name cube-main \\
    --instance-url https://example.cubecloudapp.dev/cubejs-api/v1 --provider-version v1.0.0
  PREVIEW_SECRET=... cube-dual-auth provider upsert --region us --name cube-preview-42 \\
    --instance-url https://preview-42--example.cubecloudapp.dev --provider-version v1.0.0 --secret-env PREVIEW_SECRET
  cube-dual-auth provider list --region us --json
  cube-dual-auth provider rotate-secret cube-main --region us --cube https://cube.example.com \\
    --new-secret-file ./new-api-secret --dry-run
  cube-dual-auth provider rotate-secret cube-main --region us --cube https://cube.example.com \\
    --new-secret-file ./new-api-secret --k8s-selector app=cube-api \\
    --replica-metrics http://10.0.0.7:9464 --replica-metrics http://10.0.0.8:9464
`;

/** The secret registered by create and upsert: from `--secret-env` when given, else the deployment's main secret. */
function registeredSecret(io: CliIO, variable: string | undefined): string {
  const { env } = deploymentOf({ env: io.env, cwd: io.cwd });
  if (variable !== undefined) return secretFrom(env, variable);
  const secret = signingSecretOf(secretsOfDeployment(env));
  if (!secret)
    throw new UsageError(
      `${NO_SIGNING_SECRET}, nor an api-secrets file in ${ENV.secretsDir}: one must hold the deployment's API secret, or name its variable with --secret-env`,
    );
  return secret.value;
}

function secretFrom(env: NodeJS.ProcessEnv, variable: string): string {
  if (!ENV_NAME.test(variable))
    throw new UsageError(`--secret-env must name an environment variable, got ${JSON.stringify(variable)}`);
  const value = env[variable];
  if (!value) throw new UsageError(`${variable} is not set: it must hold the deployment's API secret`);
  return value;
}

function describeRecord(record: DataProviderRecord | undefined, name: string, verb: string): string {
  const version = typeof record?.version === 'string' ? ` (version ${record.version})` : '';
  // The version is the service's answer.
  return `${forTerminal(`${verb} data provider ${name}${version}.`)}\n`;
}

/** What create and upsert take: every field of a data provider, the secret from the environment. */
function fullRecordArgs(args: readonly string[], io: CliIO) {
  const { values } = parseServiceArgs(args, WRITE_OPTIONS, []);
  const name = required(values.name, '--name');
  const instanceUrl = required(values['instance-url'], '--instance-url');
  const version = required(values['provider-version'], '--provider-version');
  const kind = credentialKind(values.credential, instanceUrl);
  const secret = registeredSecret(io, values['secret-env']);
  const secretKey = credentialOf(kind, secret, values.claims, io);
  return { values, secret, input: { name, version, credentials: { instanceUrl, secretKey } } };
}

/**
 * What `secretKey` carries: the API secret, or a standing service token signed with it (docs/embeddable.md), which
 * the run's scrubber holds like the secret.
 */
function credentialOf(kind: CredentialKind, secret: string, claims: string | undefined, io: CliIO): string {
  if (kind === 'secret') {
    if (claims !== undefined) throw new UsageError('--claims is for --credential token: the secret carries no claims');
    return secret;
  }
  const token = mintStandingToken(secret, claims === undefined ? {} : parseClaims(claims));
  io.scrubber?.holdToken(token);
  return token;
}

async function create(args: readonly string[], io: CliIO): Promise<number> {
  const { values, input, secret } = fullRecordArgs(args, io);
  return runService(
    'provider create',
    io,
    values,
    async (client, output) => {
      const record = await client.createDataProvider(input);
      output.result({ name: input.name, response: record ?? null }, () =>
        describeRecord(record, input.name, 'Created'),
      );
    },
    [input.credentials.secretKey, secret],
  );
}

async function upsert(args: readonly string[], io: CliIO): Promise<number> {
  const { values, input, secret } = fullRecordArgs(args, io);
  return runService(
    'provider upsert',
    io,
    values,
    async (client, output) => {
      const { action, record } = await client.upsertDataProvider(input);
      output.result({ name: input.name, action, response: record ?? null }, () =>
        describeRecord(record, input.name, action === 'created' ? 'Created' : 'Updated'),
      );
    },
    [input.credentials.secretKey, secret],
  );
}

async function update(args: readonly string[], io: CliIO): Promise<number> {
  const { values } = parseServiceArgs(args, WRITE_OPTIONS, []);
  const name = required(values.name, '--name');
  const version = required(values['provider-version'], '--provider-version');
  const sends = values['secret-env'] !== undefined || values.credential !== undefined;
  const secret = !sends ? undefined : registeredSecret(io, values['secret-env']);
  const instanceUrl = values['instance-url'];
  // Known before anything is sent: the URL given, or for none the one the service's record holds (asked first).
  if (sends && instanceUrl !== undefined) credentialKind(values.credential, instanceUrl);
  const sent: string[] = [];
  return runService(
    'provider update',
    io,
    values,
    async (client, output) => {
      const url = instanceUrl ?? (sends ? instanceUrlOf(await client.getDataProvider(name)) : undefined);
      const secretKey =
        secret === undefined
          ? undefined
          : credentialOf(credentialKind(values.credential, url), secret, values.claims, io);
      if (secretKey !== undefined) sent.push(secretKey);
      const credentials = {
        ...(secretKey !== undefined && { secretKey }),
        ...(instanceUrl !== undefined && { instanceUrl }),
      };
      const record = await client.updateDataProvider(name, {
        version,
        ...(Object.keys(credentials).length > 0 && { credentials }),
      });
      output.result({ name, response: record ?? null }, () => describeRecord(record, name, 'Updated'));
    },
    [secret, ...sent],
  );
}

async function list(args: readonly string[], io: CliIO): Promise<number> {
  const { values } = parseServiceArgs(args, CONNECTION_OPTIONS, []);
  return runService('provider list', io, values, async (client, output) => {
    const records = await client.listDataProviders();
    const cell = (value: unknown) => (typeof value === 'string' ? forTerminal(value) : '');
    output.result(records, () =>
      records.length === 0
        ? 'No data providers.\n'
        : table(
            ['NAME', 'TYPE', 'VERSION'],
            records.map((r) => [cell(r.name), cell(r.type), cell(r.version)]),
          ),
    );
  });
}

async function show(args: readonly string[], io: CliIO): Promise<number> {
  const { values } = parseServiceArgs(args, { ...CONNECTION_OPTIONS, name: { type: 'string' } }, []);
  const name = required(values.name, '--name');
  return runService('provider show', io, values, async (client, output) => {
    const record = await client.getDataProvider(name);
    const credentials = record.credentials as { secretKey?: unknown } | undefined;
    const shape = secretKeyShape(typeof credentials === 'object' ? credentials?.secretKey : undefined);
    // The record's fields are not shown in the interface, so its text form is its JSON too; and what secretKey holds.
    const shown = shape === undefined ? record : { ...record, secretKeyHolds: shape };
    output.result(shown);
  });
}

async function remove(args: readonly string[], io: CliIO): Promise<number> {
  const { values } = parseServiceArgs(
    args,
    { ...CONNECTION_OPTIONS, name: { type: 'string' }, yes: { type: 'boolean', default: false } },
    [],
  );
  const name = required(values.name, '--name');
  // Dashboards and security contexts that name the provider stop working: make the deletion explicit.
  if (!values.yes)
    throw new UsageError(`deleting ${JSON.stringify(name)} needs --yes (dashboards that use it will stop working)`);
  return runService('provider delete', io, values, async (client, output) => {
    await client.deleteDataProvider(name);
    output.result({ name, deleted: true }, () => `${forTerminal(`Deleted data provider ${name}.`)}\n`);
  });
}

/** `cube-dual-auth provider create|update|upsert|list|show|delete|rotate-secret`. */
export const provider: Command = {
  help,
  run: dispatch({ create, update, upsert, list, show, delete: remove, 'rotate-secret': rotateSecret }),
};
