/**
 * What `provider rotate-secret` reads besides the service's connection: the new secret's file, how long to wait for
 * the Cube, and how long the service's tokens signed with the old secret can still be accepted.
 */
import { readFile } from 'node:fs/promises';
import { DURATION_FORM, durationSeconds } from '../../config/duration';
import { readEnv } from '../../config/env';
import { OPTIONS } from '../../config/options';
import { SECRET_ADVICE, secretWeakness } from '../../config/secret-strength';
import { UsageError } from '../io';

export const DEFAULT_WAIT_MS = 60_000;
export const MAX_WAIT_MS = 3_600_000;
const WAIT_UNITS_MS = { ms: 1, s: 1_000, m: 60_000 } as const;

/** The variables the deployment bounds a token's age with, as the hook reads them. */
export const MAX_TOKEN_AGE_ENV = OPTIONS.maxTokenAge.env[0];
export const CLOCK_TOLERANCE_ENV = OPTIONS.clockTolerance.env[0];
const DEFAULT_CLOCK_TOLERANCE = OPTIONS.clockTolerance.default;

/** `--wait`: `1500ms`, `90s` or `2m`, from 1 ms to an hour; {@link DEFAULT_WAIT_MS} when not given. */
export function parseWait(text: string | undefined): number {
  if (text === undefined) return DEFAULT_WAIT_MS;
  const match = /^([1-9][0-9]{0,9})(ms|s|m)$/.exec(text);
  const ms = match ? Number(match[1]) * WAIT_UNITS_MS[match[2] as keyof typeof WAIT_UNITS_MS] : NaN;
  if (!(ms <= MAX_WAIT_MS))
    throw new UsageError(
      `--wait must be a whole number of ms, s or m (e.g. 1500ms, 90s, 2m), at most 60m, got ${JSON.stringify(text.slice(0, 16))}`,
    );
  return ms;
}

export const MAX_REPLICAS = 100;

/** `--replicas`: how many answers in a row must accept, from 1 (the default) to {@link MAX_REPLICAS}. */
export function parseReplicas(text: string | undefined): number {
  if (text === undefined) return 1;
  const value = /^[1-9][0-9]{0,2}$/.test(text) ? Number(text) : NaN;
  if (!(value <= MAX_REPLICAS))
    throw new UsageError(
      `--replicas must be a whole number from 1 to ${MAX_REPLICAS}, got ${JSON.stringify(text.slice(0, 16))}`,
    );
  return value;
}

/**
 * The new secret in `file`: one line, the line break after it allowed, strong enough for HS256 by the rule the hook
 * holds every API secret to (config/secret-strength.ts). No message holds the secret, or the file's name, which
 * could be a secret pasted in the wrong place.
 */
export async function readNewSecret(file: string): Promise<string> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new UsageError(`cannot read the file of --new-secret-file${code === undefined ? '' : ` (${code})`}`);
  }
  const secret = text.replace(/\r?\n$/, '');
  if (secret.trim() === '') throw new UsageError('the file of --new-secret-file is empty: it must hold the new secret');
  if (/[\r\n]/.test(secret))
    throw new UsageError('the file of --new-secret-file must hold one secret on one line, not several lines');
  if (/\s/.test(secret)) throw new UsageError('the new secret must not hold white space');
  // Cube's rotation list (CUBEJS_API_SECRETS) is split on commas: such a secret could not be listed there.
  if (secret.includes(',')) throw new UsageError('the new secret must not hold a comma: secret lists are split on it');
  const weakness = secretWeakness(secret);
  if (weakness !== undefined) throw new UsageError(`the new secret ${weakness}: ${SECRET_ADVICE}`);
  return secret;
}

/** How long a token signed with the old secret can still be accepted, and what says so. */
export interface TokenLifetime {
  /** Seconds from now; undefined when neither `--token-lifetime` nor the deployment's maximum age tells. */
  readonly seconds: number | undefined;
  /** Where the figure comes from, in words, e.g. `CUBE_DUAL_AUTH_MAX_TOKEN_AGE 3600 s, plus 5 s of clock tolerance`. */
  readonly source: string;
}

/** Seconds from a variable read as the hook reads it, rounded up; undefined when unset or not a number from `least`. */
function secondsFrom(env: NodeJS.ProcessEnv, name: string, least: number): number | undefined {
  const value = Number(readEnv(env, name) ?? NaN);
  return Number.isFinite(value) && value >= least ? Math.ceil(value) : undefined;
}

/**
 * The longest a service token signed with the old secret can still be accepted: the shorter of `--token-lifetime`
 * (the service's own lifetime, which its interface does not show) and the deployment's `CUBE_DUAL_AUTH_MAX_TOKEN_AGE`
 * (older tokens are refused whatever their `exp`), plus its clock tolerance.
 */
export function tokenLifetime(given: string | undefined, env: NodeJS.ProcessEnv): TokenLifetime {
  const lifetime = given === undefined ? undefined : durationSeconds(given);
  if (given !== undefined && lifetime === undefined)
    throw new UsageError(`--token-lifetime must be ${DURATION_FORM}, got ${JSON.stringify(given.slice(0, 16))}`);
  const maxAge = secondsFrom(env, MAX_TOKEN_AGE_ENV, 1);
  const tolerance = secondsFrom(env, CLOCK_TOLERANCE_ENV, 0) ?? DEFAULT_CLOCK_TOLERANCE;
  const bounds = [
    ...(lifetime === undefined ? [] : [{ seconds: lifetime, said: `--token-lifetime ${lifetime} s` }]),
    ...(maxAge === undefined ? [] : [{ seconds: maxAge, said: `${MAX_TOKEN_AGE_ENV} ${maxAge} s` }]),
  ].sort((a, b) => a.seconds - b.seconds);
  const shortest = bounds[0];
  if (shortest === undefined)
    return { seconds: undefined, source: `neither --token-lifetime nor ${MAX_TOKEN_AGE_ENV} is given` };
  return {
    seconds: shortest.seconds + tolerance,
    source: `${shortest.said}, plus ${tolerance} s of clock tolerance (${CLOCK_TOLERANCE_ENV})`,
  };
}
