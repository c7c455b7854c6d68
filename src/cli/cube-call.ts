/**
 * How commands call a running Cube as the embedding service does (probe, access, provider rotate-secret): the service
 * token and its claims, the `Request-Origin` value that selects the shared-secret path, the deadline of a request.
 */
import { createSecretKey } from 'node:crypto';
import { sign } from 'jsonwebtoken';
import { ENV, readEnv } from '../config/env';
import { DEFAULTS } from '../config/options';
import { isObject } from '../http/json';
import { UsageError, type CliIO } from './io';

export const DEFAULT_TIMEOUT_MS = 5_000;
export const MAX_TIMEOUT_MS = 600_000;
/** The service token lives long enough for the probe, and no longer. */
export const SERVICE_TOKEN_SECONDS = 60;

export function parseTimeout(text: string | undefined): number {
  if (text === undefined) return DEFAULT_TIMEOUT_MS;
  const value = /^[1-9][0-9]*$/.test(text) ? Number(text) : NaN;
  if (!(value <= MAX_TIMEOUT_MS))
    throw new UsageError(
      `--timeout must be a whole number of milliseconds from 1 to ${MAX_TIMEOUT_MS}, got ${JSON.stringify(text.slice(0, 16))}`,
    );
  return value;
}

/** A header value: printable, not empty. */
export function parseOrigin(given: string | undefined, env: NodeJS.ProcessEnv): string {
  const origin = given ?? readEnv(env, ENV.origin) ?? DEFAULTS.origin;
  if (!/^[\x21-\x7e]+$/.test(origin))
    throw new UsageError(
      `--origin must be a non-empty header value without spaces${given === undefined ? ` (from ${ENV.origin})` : ''}`,
    );
  return origin;
}

/** `--claims`: a JSON object, the token's payload (which becomes Cube's security context). */
export function parseClaims(text: string): Record<string, unknown> {
  let claims: unknown;
  try {
    claims = JSON.parse(text);
  } catch (error) {
    throw new UsageError(`--claims is not JSON: ${(error as Error).message}`);
  }
  if (!isObject(claims)) {
    throw new UsageError('--claims must be a JSON object, e.g. \'{"tenant":"acme"}\': a security context is an object');
  }
  return claims;
}

/** An HS256 token of `claims` signed with the API secret, as the embedding service signs them; `iat` added. */
export function signServiceToken(
  secret: string,
  claims: Record<string, unknown>,
  expiresInSeconds: number | undefined,
): string {
  try {
    return sign(claims, createSecretKey(Buffer.from(secret, 'utf8')), {
      algorithm: 'HS256',
      ...(expiresInSeconds === undefined ? {} : { expiresIn: expiresInSeconds }),
    });
  } catch (error) {
    // jsonwebtoken refuses malformed registered claims ("exp" not a number...); its messages hold no key material.
    throw new UsageError(`cannot sign these claims: ${(error as Error).message}`);
  }
}

/** A run's service token (probe, access), held by the scrubber: it lasts {@link SERVICE_TOKEN_SECONDS} if no `exp`. */
export function mintServiceToken(secret: string, claims: Record<string, unknown>, io: Pick<CliIO, 'scrubber'>): string {
  const token = signServiceToken(secret, claims, claims.exp === undefined ? SERVICE_TOKEN_SECONDS : undefined);
  io.scrubber?.holdToken(token);
  return token;
}
