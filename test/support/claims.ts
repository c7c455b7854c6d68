import { randomBytes } from 'node:crypto';

/** A random shared secret of `bytes` bytes, hex-encoded (as `openssl rand -hex 32` makes one). */
export function randomSecret(bytes = 32): string {
  return randomBytes(bytes).toString('hex');
}

export interface TimedOptions {
  /** Seconds from `now` for `exp`; null leaves `exp` out. Default 300. */
  readonly expiresIn?: number | null;
  /** Seconds since 1970 taken as the issue time; default the real clock. */
  readonly now?: number;
}

/** A payload with `iat` and `exp` added, as a real issuer would; the payload's own values win. */
export function timed(payload: Record<string, unknown>, options: TimedOptions = {}): Record<string, unknown> {
  const now = options.now ?? Math.floor(Date.now() / 1000);
  const exp = options.expiresIn === null ? {} : { exp: now + (options.expiresIn ?? 300) };
  return { iat: now, ...exp, ...payload };
}
