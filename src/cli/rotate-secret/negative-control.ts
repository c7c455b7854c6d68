/**
 * `provider rotate-secret`'s negative control (docs/rotation.md, "Guided rotation with the service"): the Cube must
 * refuse a token of a random secret; a URL that accepts any token says nothing of the secrets a Cube holds.
 */
import { randomBytes } from 'node:crypto';
import { forTerminal } from '../../terminal-text';
import { DEFAULT_TIMEOUT_MS, mintServiceToken } from '../cube-call';
import { EXIT_REFUSED, type CliIO } from '../io';
import { askServiceToken, type CheckResult } from '../probe/checks';
import type { Clock } from './wait';

/** Where and how the Cube is asked: as the new secret's questions are. */
export interface ControlAsk {
  readonly base: URL;
  readonly origin: string;
  readonly claims: Record<string, unknown>;
  readonly clock: Clock;
  /** The command's `--wait`: the question takes no longer. */
  readonly waitMs: number;
}

/** A secret no deployment holds, new on every run, as strong as a new API secret must be. */
const randomSecret = (): string => randomBytes(32).toString('base64url');

/**
 * Asks the Cube once with a service token signed with a random secret, as the new secret is asked; the token is held
 * by the scrubber. PASS means the URL accepted a token no deployment can verify.
 * @example if ((await askWithRandomSecret(ask, io)).verdict === 'PASS') return doesNotJudge(ask, check, io);
 */
export function askWithRandomSecret(ask: ControlAsk, io: CliIO): Promise<CheckResult> {
  return askServiceToken({
    base: ask.base,
    origin: ask.origin,
    timeoutMs: Math.min(DEFAULT_TIMEOUT_MS, ask.waitMs),
    env: io.env,
    now: () => ask.clock.now(),
    serviceToken: mintServiceToken(randomSecret(), ask.claims, io),
  });
}

/** Whether the control's answer leaves the Cube to be asked again once it answers: it gave no answer at all. */
export const unanswered = (check: CheckResult): boolean => check.status === null;

/** The refusal to go on when the URL accepted the random secret's token: exit 1, nothing sent to the service. */
export function doesNotJudge(ask: Pick<ControlAsk, 'base'>, check: CheckResult, io: CliIO, command: string): number {
  const why = `the URL ${ask.base.href} does not judge tokens: it accepted a service token signed with a random secret (${check.status} ${check.reason}).`;
  const fix = `The new secret was not sent to the service. Give --cube the URL of a Cube whose checkAuth is cube-dual-auth's, not a proxy, a cache or another service that answers any token.`;
  io.stderr.write(`${forTerminal(`cube-dual-auth ${command}: ${why}`)}\n${fix}\n`);
  return EXIT_REFUSED;
}
