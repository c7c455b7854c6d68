/**
 * `provider rotate-secret`: the service's half of rotating a deployment's API secret (docs/rotation.md, "Guided
 * rotation with the service"). The service is changed only once the Cube accepts tokens signed with the new secret,
 * so that no request the service sends is refused on the way.
 */
import { EmbeddableError, type DataProviderRecord, type EmbeddableClient } from '../../service';
import { deploymentOf } from '../../config/deployment';
import { providerVersion } from '../../service/validate';
import { forTerminal } from '../../terminal-text';
import { required } from '../args';
import { plural } from '../format';
import { DEFAULT_TIMEOUT_MS, mintServiceToken, parseClaims, parseOrigin } from '../cube-call';
import { EXIT_OK, EXIT_REFUSED, UsageError, type CliIO } from '../io';
import { askServiceToken, type CheckResult } from '../probe/checks';
import { apiBaseUrl } from '../probe/target';
import { CONNECTION_OPTIONS, parseServiceArgs, runService } from '../service-options';
import {
  MAX_TOKEN_AGE_ENV,
  parseReplicas,
  parseWait,
  readNewSecret,
  tokenLifetime,
  type TokenLifetime,
} from './inputs';
import { differingOf, REPLICA_OPTIONS, replicaWatch, syncStep, waitForReplicas, type ReplicaWatch } from './replicas';
import { askWithRandomSecret, doesNotJudge, unanswered } from './negative-control';
import { mayHaveArrived, unknownOutcome } from './unanswered-update';
import { REAL_CLOCK, waitUntilAccepted, type Clock, type WaitOutcome } from './wait';
import { CREDENTIAL_OPTION, credentialKind, instanceUrlOf, mintStandingToken, type CredentialKind } from './credential';

const COMMAND = 'provider rotate-secret';
/** The pause between two questions to the Cube. */
export const RETRY_MS = 1_000;

export const ROTATE_SECRET_OPTIONS = {
  ...CONNECTION_OPTIONS,
  cube: { type: 'string' },
  'new-secret-file': { type: 'string' },
  'dry-run': { type: 'boolean', default: false },
  wait: { type: 'string' },
  replicas: { type: 'string' },
  'provider-version': { type: 'string' },
  'token-lifetime': { type: 'string' },
  claims: { type: 'string' },
  origin: { type: 'string' },
  ...CREDENTIAL_OPTION,
  ...REPLICA_OPTIONS,
} as const;

/** Where an operator keeps the API secrets a Cube verifies with (docs/rotation.md). */
const SECRET_LISTS = 'api-secrets in CUBE_DUAL_AUTH_SECRETS_DIR (or CUBEJS_API_SECRETS)';

interface Rotation {
  readonly name: string;
  readonly base: URL;
  readonly origin: string;
  readonly claims: Record<string, unknown>;
  readonly waitMs: number;
  /** Answers in a row that must accept, each on a connection of its own: the replicas behind a load balancer. */
  readonly replicas: number;
  readonly version: string | undefined;
  readonly lifetime: TokenLifetime;
  readonly dryRun: boolean;
  /** `--credential` as given: the kind is known once the service's record shows the Cube's URL. */
  readonly credential: string | undefined;
  /** `--replica-metrics` and `--k8s-selector` (replicas.ts). */
  readonly watch: ReplicaWatch;
}

function parse(args: readonly string[], io: CliIO) {
  const { values, positionals } = parseServiceArgs(args, ROTATE_SECRET_OPTIONS, ['name']);
  // The deployment's settings as its hook reads them: the environment, the project's .env (config/deployment.ts).
  const { env } = deploymentOf({ env: io.env, cwd: io.cwd });
  const rotation: Rotation = {
    name: positionals[0] as string,
    base: apiBaseUrl(required(values.cube, '--cube')),
    origin: parseOrigin(values.origin, env),
    claims: values.claims === undefined ? {} : parseClaims(values.claims),
    waitMs: parseWait(values.wait),
    replicas: parseReplicas(values.replicas),
    version: values['provider-version'],
    lifetime: tokenLifetime(values['token-lifetime'], env),
    dryRun: values['dry-run'],
    credential: values.credential,
    watch: replicaWatch(values),
  };
  return { values, rotation, file: required(values['new-secret-file'], '--new-secret-file') };
}

/**
 * What the update sends, from the service's record: the version (`--provider-version`, else the record's) and the
 * kind of credential (`--credential`, else by the record's Cube URL: docs/embeddable.md).
 */
async function fromRecord(
  client: EmbeddableClient,
  rotation: Rotation,
): Promise<{ version: string; kind: CredentialKind }> {
  const given = rotation.version === undefined ? undefined : providerVersion(rotation.version, 'updateDataProvider');
  // Both given: nothing to read.
  if (given !== undefined && rotation.credential !== undefined)
    return { version: given, kind: credentialKind(rotation.credential, undefined) };
  const record: DataProviderRecord = await client.getDataProvider(rotation.name);
  const kind = credentialKind(rotation.credential, instanceUrlOf(record));
  if (given !== undefined) return { version: given, kind };
  if (typeof record.version !== 'string')
    throw new UsageError(
      `the service's record of ${JSON.stringify(rotation.name)} shows no version: give --provider-version`,
    );
  return { version: providerVersion(record.version, 'getDataProvider'), kind };
}

/**
 * One attempt: `rotation.replicas` questions in a row, each with the token `question` gives (a fresh service token
 * signed with the new secret, or the very token to be sent) and on a connection of its own (probe closes each), all
 * within `timeoutMs`; the first refusal ends it.
 */
async function askInARow(rotation: Rotation, question: () => string, io: CliIO, clock: Clock, timeoutMs: number) {
  const end = clock.now() + timeoutMs;
  let check: CheckResult | undefined;
  for (let asked = 0; asked < rotation.replicas && (check === undefined || check.verdict === 'PASS'); asked++) {
    check = await askServiceToken({
      base: rotation.base,
      origin: rotation.origin,
      timeoutMs: Math.max(1, Math.floor(end - clock.now())),
      env: io.env,
      now: () => clock.now(),
      serviceToken: question(),
    });
  }
  return check as CheckResult;
}

/** Asks the Cube until it accepts the new secret or the wait is over. */
function waitForCube(
  rotation: Rotation,
  question: () => string,
  io: CliIO,
  clock: Clock,
): Promise<WaitOutcome<CheckResult>> {
  return waitUntilAccepted({
    attempt: (timeoutMs) => askInARow(rotation, question, io, clock, timeoutMs),
    accepted: (check) => check.verdict === 'PASS',
    waitMs: rotation.waitMs,
    retryMs: RETRY_MS,
    attemptTimeoutMs: DEFAULT_TIMEOUT_MS,
    clock,
    onRefused: (check, attempt) => {
      if (attempt !== 1) return;
      io.stderr.write(
        `${forTerminal(`The Cube has not accepted the new secret yet: ${answerOf(check)}.`)}
Asking again every ${RETRY_MS / 1000} s for up to ${seconds(rotation.waitMs)}: add the new secret to ${SECRET_LISTS} \
on every replica.\n`,
      );
    },
  });
}

/** What `credentials.secretKey` is to carry, and the token each question asks the Cube with. */
interface Credential {
  readonly kind: CredentialKind;
  readonly secretKey: string;
  readonly question: () => string;
  /** In words: "the new secret", or "a service token signed with the new secret". */
  readonly said: string;
}

/**
 * With `token`, the standing token minted once with the new secret: the Cube is asked with exactly the token the
 * service will hold (docs/embeddable.md); with `secret`, a fresh short-lived service token per question.
 */
function credentialFor(kind: CredentialKind, secret: string, rotation: Rotation, io: CliIO): Credential {
  if (kind === 'token') {
    const token = mintStandingToken(secret, rotation.claims);
    io.scrubber?.holdToken(token);
    return { kind, secretKey: token, question: () => token, said: 'a service token signed with the new secret' };
  }
  return {
    kind,
    secretKey: secret,
    question: () => mintServiceToken(secret, rotation.claims, io),
    said: 'the new secret',
  };
}

/** The Cube's answer in words: probe's reason, which names the status of a refusal. */
function answerOf(check: CheckResult): string {
  return check.verdict === 'PASS' ? `${check.status} ${check.reason}` : check.reason;
}

/** The line that says the Cube accepts: with `--replicas`, how many answers in a row did. */
function acceptance(rotation: Rotation, check: CheckResult): string {
  const inARow = rotation.replicas === 1 ? '' : `, ${rotation.replicas} answers in a row`;
  return `The Cube accepts the new secret${inARow} (${answerOf(check)}).`;
}

function seconds(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`;
}

/** The step left to the operator once the service signs with the new secret, and from when it is safe. */
function lastStep(lifetime: TokenLifetime, clock: Clock, kind: CredentialKind): { text: string; after: string | null } {
  // The service holds no secret to sign with: the old token was its only one, and it has stopped sending it.
  if (kind === 'token')
    return {
      text: `Last step: the service no longer holds the old token, the only one signed with the old secret it had; \
remove the old secret from ${SECRET_LISTS} on every replica now, which also refuses the old token from then on.`,
      after: new Date(clock.epochMs()).toISOString().replace(/\.\d{3}Z$/, 'Z'),
    };
  const start = `Last step: the service's tokens signed with the old secret stay in use until they expire; then \
remove the old secret from ${SECRET_LISTS} on every replica.`;
  if (lifetime.seconds === undefined)
    return {
      text: `${start} The service's interface does not say how long its tokens live, and ${lifetime.source}: \
give --token-lifetime <duration>, or set ${MAX_TOKEN_AGE_ENV} on the deployment, which then refuses any older token.`,
      after: null,
    };
  const after = new Date(clock.epochMs() + lifetime.seconds * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
  return { text: `${start} That is in ${lifetime.seconds} s (${lifetime.source}): after ${after}.`, after };
}

/** With `--k8s-selector`, the annotation patch that brings the change to every pod at once. */
function syncLine(rotation: Rotation, clock: Clock): string {
  const sync = syncStep(rotation.watch, clock.epochMs());
  return sync === '' ? '' : `\nOnce the Secret is changed, have kubelet sync it into every pod now: ${sync}\n`;
}

type Output = Parameters<Parameters<typeof runService>[3]>[1];

/** What the command found out before changing anything: printed with every outcome. */
interface Asked {
  readonly name: string;
  readonly cube: string;
  readonly attempts: number;
  readonly check: CheckResult;
  /** The Cube's answer to a service token signed with a random secret (negative-control.ts). */
  readonly control: CheckResult;
}

function neverAccepted(rotation: Rotation, waited: WaitOutcome<CheckResult>, asked: Asked, io: CliIO, output: Output) {
  output.result({ ...asked, accepted: false, dryRun: rotation.dryRun, updated: false }, () => '');
  const cube = rotation.base.href;
  io.stderr.write(
    `${forTerminal(`cube-dual-auth ${COMMAND}: the Cube at ${cube} did not accept a service token signed with the \
new secret within ${seconds(rotation.waitMs)} (${plural(waited.attempts, 'attempt')}; last: ${answerOf(waited.last)}).`)}
Nothing was changed at the service. Add the new secret to ${SECRET_LISTS} on every replica, then run this again.\n`,
  );
  return EXIT_REFUSED;
}

/** Replicas that do not all hold the same api-secrets: nothing is changed at the service. */
function notEverywhere(
  rotation: Rotation,
  verdict: Parameters<typeof differingOf>[0],
  asked: Asked,
  { io, output, clock }: { io: CliIO; output: Output; clock: Clock },
) {
  output.result({ ...asked, accepted: true, replicasAgree: false, dryRun: rotation.dryRun, updated: false }, () => '');
  const why = `the Cube accepts the new secret, but within ${seconds(rotation.waitMs)} not every replica held the same api-secrets: ${differingOf(verdict)}.`;
  const fix = `Nothing was changed at the service. Put the new secret in ${SECRET_LISTS} on every replica, then run this again.`;
  io.stderr.write(`${forTerminal(`cube-dual-auth ${COMMAND}: ${why}`)}\n${fix}\n${syncLine(rotation, clock)}`);
  return EXIT_REFUSED;
}

/** The stop when the URL accepted a token of a random secret: `--json` says so too; exit 1. */
function refuseControl(rotation: Rotation, control: CheckResult, io: CliIO, output: Output): number {
  const judged = { name: rotation.name, cube: rotation.base.href, control, judgesTokens: false };
  output.result({ ...judged, accepted: false, dryRun: rotation.dryRun, updated: false }, () => '');
  return doesNotJudge(rotation, control, io, COMMAND);
}

/** Sends the new secret to the service, then prints the last step; exit 1 when the service refuses. */
async function update(
  rotation: Rotation,
  { client, output, io, clock }: { client: EmbeddableClient; output: Output; io: CliIO; clock: Clock },
  { credential, version, asked }: { credential: Credential; version: string; asked: Asked },
): Promise<number> {
  let record: DataProviderRecord | undefined;
  try {
    record = await client.updateDataProvider(rotation.name, {
      version,
      credentials: { secretKey: credential.secretKey },
    });
  } catch (error) {
    if (!(error instanceof EmbeddableError)) throw error;
    const status = output.refused(COMMAND, error);
    if (mayHaveArrived(error)) return unknownOutcome(rotation.name, SECRET_LISTS, io);
    io.stderr.write(
      `The Cube accepts the new secret, but the service still signs with the old one: keep both in ${SECRET_LISTS}.\n`,
    );
    return status;
  }
  const step = lastStep(rotation.lifetime, clock, credential.kind);
  const lifetime = { removeOldSecretAfter: step.after, tokenLifetimeSeconds: rotation.lifetime.seconds ?? null };
  output.result(
    {
      ...asked,
      accepted: true,
      dryRun: false,
      updated: true,
      version,
      credential: credential.kind,
      response: record ?? null,
      lastStep: lifetime,
    },
    () => `${acceptance(rotation, asked.check)}
Updated data provider ${rotation.name}: credentials.secretKey to ${credential.said}, version ${version}. The service \
${credential.kind === 'token' ? 'sends the new token' : 'signs with the new secret'} from now on.

${step.text}
${syncLine(rotation, clock)}`,
  );
  return EXIT_OK;
}

/** `provider rotate-secret <name> --cube <url> --new-secret-file <file> [--dry-run] [--wait <duration>] ...`. */
export async function rotateSecret(args: readonly string[], io: CliIO, clock: Clock = REAL_CLOCK): Promise<number> {
  const { values, rotation, file } = parse(args, io);
  const secret = await readNewSecret(file);
  io.scrubber?.holdSecret(secret);
  let status = EXIT_OK;
  const done = await runService(
    COMMAND,
    io,
    values,
    async (client, output) => {
      const { version, kind } = await fromRecord(client, rotation);
      const credential = credentialFor(kind, secret, rotation, io);
      const ask = { ...rotation, clock };
      let control = await askWithRandomSecret(ask, io);
      if (control.verdict === 'PASS') return void (status = refuseControl(rotation, control, io, output));
      const waited = await waitForCube(rotation, credential.question, io, clock);
      // A Cube that did not answer at first is asked again once it does: before anything changes.
      if (waited.accepted && unanswered(control)) control = await askWithRandomSecret(ask, io);
      if (control.verdict === 'PASS') return void (status = refuseControl(rotation, control, io, output));
      const asked = {
        name: rotation.name,
        cube: rotation.base.href,
        attempts: waited.attempts,
        check: waited.last,
        control,
      };
      const held = waited.accepted
        ? await waitForReplicas(rotation.watch, { io, clock, waitMs: rotation.waitMs })
        : undefined;
      if (!waited.accepted) status = neverAccepted(rotation, waited, asked, io, output);
      else if (held?.agree === false) status = notEverywhere(rotation, held.verdict, asked, { io, output, clock });
      else if (!rotation.dryRun)
        status = await update(rotation, { client, output, io, clock }, { credential, version, asked });
      else
        output.result(
          {
            ...asked,
            accepted: true,
            dryRun: true,
            updated: false,
            wouldUpdate: { version, secretKey: true, credential: kind },
          },
          () => `${acceptance(rotation, waited.last)}
Dry run: would update data provider ${rotation.name}: credentials.secretKey to ${credential.said}, version ${version}. \
Nothing was changed.
`,
        );
    },
    [secret],
  );
  return done === EXIT_OK ? status : done;
}
