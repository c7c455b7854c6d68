/**
 * What a data provider's `credentials.secretKey` holds (docs/embeddable.md): the API secret (Cube Cloud) or a
 * standing service token signed with it (Cube Core), for the provider commands that send one.
 */
import { createSecretKey } from 'node:crypto';
import { sign } from 'jsonwebtoken';
import { SHARED_SECRET_ALGORITHM } from '../../algorithms';
import { isObject } from '../../http/json';
import { isStandingJti, newStandingJti } from '../../hook/standing-token';
import { UsageError } from '../io';

export type CredentialKind = 'secret' | 'token';

/** The option every command that sends a credential takes. */
export const CREDENTIAL_OPTION = { credential: { type: 'string' } } as const;

/** The `sub` of a minted token unless `--claims` names one: says what the token is wherever a context is logged. */
const DEFAULT_SUBJECT = 'embeddable-service';

/** Cube Cloud's API hosts, `*.cubecloudapp.dev` and the older `*.cubecloud.dev` (docs/embeddable.md). */
const CUBE_CLOUD_HOSTS = ['.cubecloudapp.dev', '.cubecloud.dev'];

/** Whether `url` is a Cube Cloud deployment's, by its host. */
export function isCubeCloudUrl(url: string | undefined): boolean {
  if (url === undefined) return false;
  let host: string;
  try {
    host = new URL(url).hostname.toLowerCase();
  } catch {
    return false;
  }
  return CUBE_CLOUD_HOSTS.some((suffix) => host.endsWith(suffix) && host.length > suffix.length);
}

/** The kind to send: `--credential`, else `secret` on Cube Cloud, else a usage error naming both handbook pages. */
export function credentialKind(given: string | undefined, instanceUrl: string | undefined): CredentialKind {
  if (given === 'secret' || given === 'token') return given;
  if (given !== undefined)
    throw new UsageError(`--credential must be "secret" or "token", got ${JSON.stringify(given.slice(0, 16))}`);
  if (isCubeCloudUrl(instanceUrl)) return 'secret';
  const where = instanceUrl === undefined ? 'a Cube whose URL is not known' : 'a Cube outside Cube Cloud';
  throw new UsageError(`--credential secret|token is required for ${where}: the service's handbook registers Cube \
Cloud with the API secret (pages/data/cube-cloud.mdx) and Cube Core with a JWT signed with it \
(pages/data/cube-core.mdx); see docs/embeddable.md`);
}

/**
 * A standing service token: HS256 with `secret`, the claims given, `sub` (unless given), `iat`, a `jti` of the
 * package's form and no `exp`: it lives as long as the secret that signs it (docs/embeddable.md, "The token").
 * @example
 * const token = mintStandingToken(process.env.CUBEJS_API_SECRET!, { tenant: 'acme' });
 */
export function mintStandingToken(secret: string, claims: Readonly<Record<string, unknown>>): string {
  for (const claim of ['exp', 'jti'])
    if (claim in claims)
      throw new UsageError(`--claims must not set "${claim}": the service token's is cube-dual-auth's own`);
  return sign({ sub: DEFAULT_SUBJECT, ...claims, jti: newStandingJti() }, createSecretKey(Buffer.from(secret)), {
    algorithm: SHARED_SECRET_ALGORITHM,
  });
}

/** The Cube URL a data provider's record holds, when the service's answer shows one. */
export function instanceUrlOf(record: Readonly<Record<string, unknown>>): string | undefined {
  const { credentials } = record;
  const url = isObject(credentials) ? credentials.instanceUrl : undefined;
  return typeof url === 'string' ? url : undefined;
}

/** What a record's `secretKey` is, as `provider show` tells it, without the value. */
export interface SecretKeyShape {
  readonly kind: CredentialKind;
  /** The service's connection the kind belongs to (docs/embeddable.md). */
  readonly connection: 'Cube Cloud' | 'Cube Core';
  /** A token's: its algorithm, whether cube-dual-auth minted it, and whether it expires. */
  readonly token?: { readonly alg: unknown; readonly mintedByCubeDualAuth: boolean; readonly expires: boolean };
}

function jsonPart(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
    return isObject(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

/** A JWT's shape (three base64url parts, a JSON header naming `alg`), or a secret; undefined when not shown. */
export function secretKeyShape(value: unknown): SecretKeyShape | undefined {
  if (typeof value !== 'string' || value === '[redacted]') return undefined;
  const parts = value.split('.');
  const header = parts.length === 3 ? jsonPart(parts[0] as string) : undefined;
  const payload = header !== undefined && typeof header.alg === 'string' ? jsonPart(parts[1] as string) : undefined;
  if (header === undefined || payload === undefined) return { kind: 'secret', connection: 'Cube Cloud' };
  return {
    kind: 'token',
    connection: 'Cube Core',
    token: { alg: header.alg, mintedByCubeDualAuth: isStandingJti(payload.jti), expires: payload.exp !== undefined },
  };
}
