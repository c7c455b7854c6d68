/**
 * `provider rotate-secret`: the service's half of rotating a deployment's API secret (docs/rotation.md, "Guided
 * rotation with the service"). The service is changed only once the Cube accepts tokens signed with the new secret,
 * so that no request the service sends is refused on the way.
 */
import { EmbeddableError, type DataProviderRecord, type EmbeddableClient } from '../../service';
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
import { askWithRandomSecret, doesNotJudge, unanswered } from './negative-control';
import { mayHaveArrived, unknownOutcome } from './unanswered-update';
import { REAL_CLOCK, waitUntilAccepted, type Clock, type WaitOutcome } from './wait';

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
}

function parse(args: readonly string[], io: CliIO) {
  const { values, positionals } = parseServiceArgs(args, ROTATE_SECRET_OPTIONS, ['name']);
  const rotation: Rotation = {
    name: positionals[0] as string,
    base: apiBaseUrl(required(values.cube, '--cube')),
    origin: parseOrigin(values.origin, io.env),
    claims: values.claims === undefined ? {} : parseClaims(values.claims),
    waitMs: parseWait(values.wait),
    replicas: parseReplicas(values.replicas),
    version: values['provider-version'],
    lifetime: tokenLifetime(values['token-lifetime'], io.env),
    dryRun: values['dry-run'],
  };
  return { values, rotation, file: required(values['new-secret-file'], '--new-secret-file') };
}

/** The version the update sends: `--provider-version`, else the one the service's record holds. */
async function versionToSend(client: EmbeddableClient, rotation: Rotation): Promise<string> {
  if (rotation.version !== undefined) return providerVersion(rotation.version, 'updateDataProvider');
  const record: DataProviderRecord = await client.getDataProvider(rotation.name);
  if (typeof record.version !== 'string')
    throw new UsageError(
      `the service's record of ${JSON.stringify(rotation.name)} shows no version: give --provider-version`,
    );
  return providerVersion(record.version, 'getDataProvider');
}

/**
 * One attempt: `rotation.replicas` questions in a row, each with a fresh service token signed with `secret` and on a
 * connection of its own (probe closes each), all within `timeoutMs`; the first refusal ends it.
 */
async function askInARow(rotation: Rotation, secret: string, io: CliIO, clock: Clock, timeoutMs: number) {
  const end = clock.now() + timeoutMs;
  let check: CheckResult | undefined;
  for (let asked = 0; asked < rotation.replicas && (check === undefined || check.verdict === 'PASS'); asked++) {
    check = await askServiceToken({
      base: rotation.base,
      origin: rotation.origin,
      timeoutMs: Math.max(1, Math.floor(end - clock.now())),
      env: io.env,
      now: () => clock.now(),
      serviceToken: mintServiceToken(secret, rotation.claims, io),
    });
  }
  return check as CheckResult;
}

/** Asks the Cube until it accepts the new secret or the wait is over. */
function waitForCube(rotation: Rotation, secret: string, io: CliIO, clock: Clock): Promise<WaitOutcome<CheckResult>> {
  return waitUntilAccepted({
    attempt: (timeoutMs) => askInARow(rotation, secret, io, clock, timeoutMs),
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
function lastStep(lifetime: TokenLifetime, clock: Clock): { text: string; after: string | null } {
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
  { secret, version, asked }: { secret: string; version: string; asked: Asked },
): Promise<number> {
  let record: DataProviderRecord | undefined;
  try {
    record = await client.updateDataProvider(rotation.name, { version, credentials: { secretKey: secret } });
  } catch (error) {
    if (!(error instanceof EmbeddableError)) throw error;
    const status = output.refused(COMMAND, error);
    if (mayHaveArrived(error)) return unknownOutcome(rotation.name, SECRET_LISTS, io);
    io.stderr.write(
      `The Cube accepts the new secret, but the service still signs with the old one: keep both in ${SECRET_LISTS}.\n`,
    );
    return status;
  }
  const step = lastStep(rotation.lifetime, clock);
  const lifetime = { removeOldSecretAfter: step.after, tokenLifetimeSeconds: rotation.lifetime.seconds ?? null };
  output.result(
    { ...asked, accepted: true, dryRun: false, updated: true, version, response: record ?? null, lastStep: lifetime },
    () => `${acceptance(rotation, asked.check)}
Updated data provider ${rotation.name}: credentials.secretKey to the new secret, version ${version}. The service \
signs with the new secret from now on.

${step.text}
`,
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
      const version = await versionToSend(client, rotation);
      const ask = { ...rotation, clock };
      let control = await askWithRandomSecret(ask, io);
      if (control.verdict === 'PASS') return void (status = refuseControl(rotation, control, io, output));
      const waited = await waitForCube(rotation, secret, io, clock);
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
      if (!waited.accepted) status = neverAccepted(rotation, waited, asked, io, output);
      else if (!rotation.dryRun)
        status = await update(rotation, { client, output, io, clock }, { secret, version, asked });
      else
        output.result(
          { ...asked, accepted: true, dryRun: true, updated: false, wouldUpdate: { version, secretKey: true } },
          () => `${acceptance(rotation, waited.last)}
Dry run: would update data provider ${rotation.name}: credentials.secretKey to the new secret, version ${version}. \
Nothing was changed.
`,
        );
    },
    [secret],
  );
  return done === EXIT_OK ? status : done;
}
