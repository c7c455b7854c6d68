/**
 * The service's two connections, where the configuration decides how the hook answers the Core one
 * (docs/embeddable.md): the opt-in that routes cube-dual-auth's own token without `Request-Origin`, and the maximum
 * token age; with them, a tenant the service's tokens must carry.
 */
import type { ResolvedOptions } from '../../config/options';
import { ENV_NAMES } from '../../config/options';
import { decodeToken } from '../../hook/token';
import { STANDING_MEANING, standingKindOf } from '../../hook/standing-token';
import { check, type Check } from '../check';

const CONNECTIONS = `The service reaches this Cube on one of two connections (docs/embeddable.md): Cube Cloud's, a \
token signed per request with the API secret and "Request-Origin" sent; Cube Core's, the one token registered as the \
data provider's secretKey, which gives every request it carries one and the same security context.`;

/** What each setting makes of the Core connection, and which refusals then point to it. */
function settingsSaid(options: ResolvedOptions): string[] {
  const said: string[] = [];
  const optIn = ENV_NAMES.standingTokenWithoutOrigin;
  said.push(
    options.standingTokenWithoutOrigin
      ? `${optIn} is on: cube-dual-auth's own token (provider --credential token) is verified on the shared-secret path without "Request-Origin", recognised by its jti's form, trusted by its HS256 signature alone.`
      : `Refusals of an HS256 token without "Request-Origin" (ERR_ALG_NOT_ALLOWED on the key-set path) most likely come from the Core connection: register with --credential token and set ${optIn}=true, or have the service send the header.`,
  );
  if (options.maxTokenAge !== undefined)
    said.push(
      `${ENV_NAMES.maxTokenAge} is ${options.maxTokenAge} s: cube-dual-auth's own token is exempt, lasting as long as the API secret; any other token without "exp" (the handbook's Cube Core sample) is refused once older (ERR_TOKEN_TOO_OLD, pointing to the Core connection).`,
    );
  const tenantOption = options.authorization?.sharedSecret.tenantOption;
  if (options.authorization?.sharedSecret.tenantClaim !== undefined && tenantOption !== undefined)
    said.push(
      `Service tokens must carry a tenant (${tenantOption}): on the Core connection each tenant needs a data provider of its own, its token minted with that tenant (provider create --credential token --claims); ERR_TENANT_MISSING for a token without "exp" points to the Core connection.`,
    );
  return said;
}

/**
 * The `service-connections` line, when the configuration decides how the hook answers the Core connection: the opt-in
 * is on, or a maximum token age is set (then a tenant the service's tokens must carry is named too); else undefined.
 * @example
 * serviceConnectionsCheck(resolveOptions({ apiSecret, maxTokenAge: 3600 }))?.message;
 */
export function serviceConnectionsCheck(options: ResolvedOptions): Check | undefined {
  if (!options.standingTokenWithoutOrigin && options.maxTokenAge === undefined) return undefined;
  return check('service-connections', 'ok', [CONNECTIONS, ...settingsSaid(options)].join(' '));
}

/** How a standing token fares without `Request-Origin`, and under a maximum token age. */
function standingFate(kind: 'package' | 'no-exp', options: ResolvedOptions): string {
  const optIn = ENV_NAMES.standingTokenWithoutOrigin;
  const withoutOrigin =
    kind === 'package' && options.standingTokenWithoutOrigin
      ? `sent without "Request-Origin" it is verified on the shared-secret path (${optIn})`
      : `sent without "Request-Origin" it is refused on the key-set path (ERR_ALG_NOT_ALLOWED)${kind === 'package' ? `, unless ${optIn}=true` : ''}`;
  const age =
    options.maxTokenAge === undefined
      ? ''
      : kind === 'package'
        ? `; ${ENV_NAMES.maxTokenAge} does not bound it`
        : `; older than ${options.maxTokenAge} s (${ENV_NAMES.maxTokenAge}) it is refused (ERR_TOKEN_TOO_OLD)`;
  return `${withoutOrigin}${age}`;
}

/**
 * The `example-token` line, told when the token is a standing service credential (an HS256 token without `exp`, or
 * cube-dual-auth's own): what that means and how the Core connection's requests fare (docs/embeddable.md).
 * @example
 * withStandingNote(exampleTokenCheck(token, authorization, providers, false), token, resolved);
 */
export function withStandingNote(line: Check, token: string, options: ResolvedOptions): Check {
  let payload: Record<string, unknown> | undefined;
  try {
    const decoded = decodeToken(token);
    payload = decoded.header.alg === 'HS256' ? decoded.payloadIfObject() : undefined;
  } catch {
    return line;
  }
  const kind = payload === undefined ? undefined : standingKindOf(payload);
  if (kind === undefined) return line;
  const what = kind === 'package' ? "cube-dual-auth's own service token" : 'an HS256 token without "exp"';
  const note = `It is ${what}, ${STANDING_MEANING}: the service's Cube Core connection (docs/embeddable.md); ${standingFate(kind, options)}.`;
  return { ...line, message: `${line.message}. ${note}` };
}
