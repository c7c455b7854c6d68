/** The checks `probe` runs, in order: the requests the embedding service and an app send, and what each must get. */
import { randomBytes } from 'node:crypto';
import { NOT_CHECKED, type Deadline } from '../deadline';
import { get, type Answer } from './http';
import { judge, MISSING_TOKEN_BODY, type Expectation, type Verdict } from './judge';
import { endpoint } from './target';

/** Stable names, as `--json` reports them. */
export const CHECK_NAMES = [
  'no-token',
  'garbage-token',
  'service-token',
  'service-token-without-origin',
  'idp-token',
  'idp-token-with-origin',
] as const;

type CheckName = (typeof CHECK_NAMES)[number];

/** One line of the report. */
export interface CheckResult {
  readonly name: CheckName;
  /** The status the check wants. */
  readonly expected: 200 | 403;
  /** The status the deployment answered; null when it did not answer or the check was not run. */
  readonly status: number | null;
  /** Milliseconds until the whole answer arrived (or the failure); null when no request was sent. */
  readonly ms: number | null;
  readonly verdict: Verdict;
  readonly reason: string;
}

interface ProbePlan {
  /** The REST base, `…/cubejs-api/v1`. */
  readonly base: URL;
  /** The `Request-Origin` value that selects the shared-secret path. */
  readonly origin: string;
  /** A service token signed with the API secret; undefined when there is no secret (its checks are skipped). */
  readonly serviceToken: string | undefined;
  /** Why there is no service token, for the skipped checks. */
  readonly noServiceToken: string;
  /**
   * Service tokens signed with the other API secrets in force, each with the file or variable it came from: the
   * `service-token` check passes only when every one is accepted too (a readiness probe through a rotation).
   */
  readonly otherServiceTokens?: readonly SignedWith[];
  /** Where the secret of `serviceToken` came from, named when the check sends several. */
  readonly serviceTokenSource?: string;
  /** The identity provider's token given by the operator; undefined: its checks are skipped. */
  readonly idpToken: string | undefined;
  readonly noIdpToken: string;
  readonly timeoutMs: number;
  /** Where the proxy variables are read: the CLI's environment. */
  readonly env: NodeJS.ProcessEnv;
  /** Milliseconds on a monotonic clock (tests pass their own). */
  readonly now?: () => number;
  /** The whole probe's deadline: checks it leaves are not checked, and fail. */
  readonly deadline?: Deadline;
}

/** A service token, and the file or variable of the secret that signed it (never the secret). */
export interface SignedWith {
  readonly token: string;
  readonly source: string;
}

/** One check as planned: the request it sends and what the answer must be. Its outcome is a {@link CheckResult}. */
interface CheckSpec {
  readonly name: CheckName;
  /** The token sent, if any; a check whose token is unavailable is skipped. */
  readonly token: { readonly value: string | undefined; readonly missing: string } | undefined;
  readonly withOrigin: boolean;
  readonly expect: Expectation;
}

/** A token-shaped string no issuer made, new on every run: an answer giving it back is recognised as doing so. */
function garbageToken(): string {
  return ['eyJnYXJiYWdlIjp0cnVlfQ', randomBytes(24), randomBytes(32)]
    .map((part) => (typeof part === 'string' ? part : part.toString('base64url')))
    .join('.');
}

function checksOf(plan: ProbePlan): readonly CheckSpec[] {
  const service = { value: plan.serviceToken, missing: plan.noServiceToken };
  const idp = { value: plan.idpToken, missing: plan.noIdpToken };
  return [
    { name: 'no-token', token: undefined, withOrigin: false, expect: { status: 403, body: MISSING_TOKEN_BODY } },
    {
      name: 'garbage-token',
      token: { value: garbageToken(), missing: '' },
      withOrigin: false,
      expect: { status: 403 },
    },
    { name: 'service-token', token: service, withOrigin: true, expect: { status: 200 } },
    { name: 'service-token-without-origin', token: service, withOrigin: false, expect: { status: 403 } },
    { name: 'idp-token', token: idp, withOrigin: false, expect: { status: 200 } },
    { name: 'idp-token-with-origin', token: idp, withOrigin: true, expect: { status: 403 } },
  ];
}

function headersFor(check: CheckSpec, origin: string): Record<string, string> {
  const headers: Record<string, string> = { 'user-agent': 'cube-dual-auth-probe', accept: 'application/json' };
  // As Cube's JavaScript client sends it: the bare token.
  if (check.token?.value !== undefined) headers['authorization'] = check.token.value;
  if (check.withOrigin) headers['request-origin'] = origin;
  return headers;
}

/** Sends one check's request to `url` and judges the answer. */
async function send(
  check: CheckSpec,
  url: URL,
  plan: ProbePlan,
): Promise<{ result: CheckResult; answered: boolean; notChecked: boolean }> {
  const answer: Answer = await get(url, {
    headers: headersFor(check, plan.origin),
    timeoutMs: plan.deadline?.within(plan.timeoutMs) ?? plan.timeoutMs,
    env: plan.env,
    now: plan.now,
    ...(plan.deadline === undefined ? {} : { signal: plan.deadline.signal }),
  });
  const { verdict, reason } = judge(answer, check.expect, check.token?.value);
  const status = answer.kind === 'answered' ? answer.status : null;
  return {
    result: { name: check.name, expected: check.expect.status, status, ms: answer.ms, verdict, reason },
    answered: answer.kind === 'answered',
    notChecked: answer.kind === 'unanswered' && answer.reason === NOT_CHECKED,
  };
}

/**
 * Runs the checks one after the other against `/meta`. When the first request gets no answer at all, the deployment
 * is down or unreachable: the others are not sent (each reports why), so a dead host costs one timeout, not six.
 */
export async function runChecks(plan: ProbePlan): Promise<CheckResult[]> {
  const url = endpoint(plan.base, 'meta');
  const results: CheckResult[] = [];
  let sent = 0;
  let unreachable: string | undefined;
  for (const check of checksOf(plan)) {
    const expected = check.expect.status;
    if (check.token !== undefined && check.token.value === undefined) {
      results.push({
        name: check.name,
        expected,
        status: null,
        ms: null,
        verdict: 'SKIP',
        reason: check.token.missing,
      });
      continue;
    }
    if (unreachable === undefined && plan.deadline?.passed === true) unreachable = NOT_CHECKED;
    if (unreachable !== undefined) {
      results.push({
        name: check.name,
        expected,
        status: null,
        ms: null,
        verdict: 'FAIL',
        reason: unreachable === NOT_CHECKED ? NOT_CHECKED : `not sent: ${unreachable}`,
      });
      continue;
    }
    const { result, answered, notChecked } =
      check.name === 'service-token' ? await sendEachSecret(check, url, plan) : await send(check, url, plan);
    sent++;
    results.push(result);
    if (notChecked) unreachable = NOT_CHECKED;
    else if (!answered && sent === 1) unreachable = `${check.name} got no answer`;
  }
  return results;
}

/**
 * The `service-token` check with every API secret in force: the first refusal is the verdict, its reason naming the
 * secret's source; when all are accepted, the reason says how many were.
 */
async function sendEachSecret(check: CheckSpec, url: URL, plan: ProbePlan): ReturnType<typeof send> {
  const others = plan.otherServiceTokens ?? [];
  const first = await send(check, url, plan);
  if (others.length === 0) return first;
  const named = (outcome: Awaited<ReturnType<typeof send>>, source: string) => ({
    ...outcome,
    result: { ...outcome.result, reason: `signed with the secret of ${source}: ${outcome.result.reason}` },
  });
  if (first.result.verdict !== 'PASS') return named(first, plan.serviceTokenSource ?? 'the first API secret');
  let last = first;
  for (const other of others) {
    last = await send({ ...check, token: { value: other.token, missing: '' } }, url, plan);
    if (last.result.verdict !== 'PASS') return named(last, other.source);
  }
  const count = others.length + 1;
  return {
    ...last,
    result: { ...last.result, reason: `${last.result.reason} (each of the ${count} API secrets in force)` },
  };
}

/** What {@link askServiceToken} needs: a probe's plan for its one check, the service token given. */
export type ServiceTokenAsk = Pick<ProbePlan, 'base' | 'origin' | 'timeoutMs' | 'env' | 'now'> & {
  readonly serviceToken: string;
};

/**
 * Probe's `service-token` check alone: whether the deployment accepts `serviceToken`, sent as the embedding service
 * sends it. PASS means a 200 with Cube's `/meta` answer; its reason quotes a refusal with any token masked.
 */
export async function askServiceToken(ask: ServiceTokenAsk): Promise<CheckResult> {
  const plan: ProbePlan = { ...ask, noServiceToken: '', idpToken: undefined, noIdpToken: '' };
  const check = checksOf(plan).find((spec) => spec.name === 'service-token') as CheckSpec;
  return (await send(check, endpoint(plan.base, 'meta'), plan)).result;
}
