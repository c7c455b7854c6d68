/** Standing service credentials, the service's Cube Core connection (docs/embeddable.md): known by shape. */
import { createHash, randomBytes } from 'node:crypto';
import { SHARED_SECRET_ALGORITHM } from '../algorithms';
import { emit, type AuthEventListener, type StandingTokenKind } from '../events';
import { own, type DecodedToken } from './token';

export type { StandingTokenKind } from '../events';

/** The prefix of the package's standing token's `jti`; 22 base64url characters (128 random bits) follow. */
export const STANDING_JTI_PREFIX = 'cube-dual-auth.service.';
const STANDING_JTI = /^cube-dual-auth\.service\.[A-Za-z0-9_-]{22}$/;

/** What a standing token means, in the words the log line, `verify` and the metric's help use. */
export const STANDING_MEANING =
  'a standing service credential: every request it carries gets one and the same security context';

/**
 * A new `jti` of the package's form.
 * @example
 * const jti = newStandingJti(); // 'cube-dual-auth.service.Qm9vZ…'
 */
export function newStandingJti(): string {
  return `${STANDING_JTI_PREFIX}${randomBytes(16).toString('base64url')}`;
}

/**
 * Whether `jti` has the package's form, which routes and names a token; its signature decides (docs/security.md).
 * @example
 * isStandingJti(newStandingJti()); // true
 */
export function isStandingJti(jti: unknown): boolean {
  return typeof jti === 'string' && STANDING_JTI.test(jti);
}

/**
 * Whether a decoded, not yet verified token has the package's standing token's shape: HS256 and a `jti` of its form.
 * @example
 * hasStandingShape(decodeToken(token)); // true for a token `provider create --credential token` minted
 */
export function hasStandingShape(token: DecodedToken): boolean {
  return token.header.alg === SHARED_SECRET_ALGORITHM && isStandingJti(token.payloadIfObject()?.jti);
}

/**
 * The kind of standing credential a verified shared-secret payload is: `package` (its `jti` has the package's form),
 * `no-exp` (any other token without `exp`, such as the handbook's Cube Core sample), or undefined (a per-request token).
 * @example
 * standingKindOf({ sub: 'docs-user', iat: 1700000000 }); // 'no-exp'
 */
export function standingKindOf(payload: Readonly<Record<string, unknown>>): StandingTokenKind | undefined {
  if (isStandingJti(own(payload, 'jti'))) return 'package';
  return own(payload, 'exp') === undefined ? 'no-exp' : undefined;
}

/** Distinct standing tokens remembered, so that each is logged once: a bound no caller can grow past. */
const MAX_REMEMBERED = 1_000;

/** Logs and tells each distinct standing token once, by a digest; past {@link MAX_REMEMBERED}, forgets the oldest. */
export class StandingTokenWatch {
  private readonly seen = new Set<string>();

  constructor(private readonly onEvent: AuthEventListener | undefined) {}

  /** Called for each standing token accepted on the shared-secret path; `withOrigin` is false when routed by shape. */
  sighted(token: string, kind: StandingTokenKind, withOrigin: boolean): void {
    const digest = createHash('sha256').update(token).digest('base64url').slice(0, 22);
    if (this.seen.has(digest)) return;
    if (this.seen.size >= MAX_REMEMBERED) this.seen.delete(this.seen.values().next().value as string);
    this.seen.add(digest);
    const what = kind === 'package' ? "cube-dual-auth's own service token" : 'an HS256 token without "exp"';
    const how = withOrigin ? 'with the Request-Origin header' : 'without the Request-Origin header, by its shape';
    console.warn(
      `cube-dual-auth: accepted ${what} on the shared-secret path ${how}: ${STANDING_MEANING} (docs/embeddable.md)`,
    );
    emit(this.onEvent, { type: 'standing-token', kind, origin: withOrigin ? 'header' : 'none' });
  }
}
