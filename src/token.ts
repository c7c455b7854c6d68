import { isUtf8 } from 'node:buffer';
import { DualAuthError, type AuthPath } from './errors';

/** Longest token accepted. Node refuses request headers over 16 KiB by default, so a real token fits. */
export const MAX_TOKEN_LENGTH = 16_384;

/** The protected header of a JWS, as far as this package reads it. */
export interface TokenHeader {
  readonly alg: string;
  readonly kid?: unknown;
  readonly typ?: unknown;
  readonly [name: string]: unknown;
}

/**
 * A compact JWS split and decoded, its signature not yet checked. The header routes the token (path, `kid`,
 * algorithm) and the payload is vetted before jsonwebtoken verifies `raw`.
 */
export interface DecodedToken {
  /** The compact JWS as received, for jsonwebtoken to verify. */
  readonly raw: string;
  readonly header: TokenHeader;
  readonly payload: Record<string, unknown>;
}

/** Decoded headers by their encoded form: an issuer sends the same few headers, so each is parsed once. */
const headerCache = new Map<string, TokenHeader>();
const HEADER_CACHE_SIZE = 64;

function malformed(detail: string, path?: AuthPath): DualAuthError {
  return new DualAuthError('ERR_TOKEN_MALFORMED', `Malformed token: ${detail}`, path);
}

/**
 * One token, one encoding: Node's decoder also takes `+`, `/`, `=`, white space and non-zero trailing bits, so
 * the text must be exactly what encoding its bytes gives back (RFC 7515 2, RFC 7519 7.2).
 */
function fromBase64url(part: string, what: string, path?: AuthPath): Buffer {
  const bytes = Buffer.from(part, 'base64url');
  if (bytes.toString('base64url') !== part) throw malformed(`${what} is not base64url`, path);
  return bytes;
}

function decodeJson(part: string, what: string, path?: AuthPath): unknown {
  const bytes = fromBase64url(part, what, path);
  // Invalid UTF-8 would be decoded to U+FFFD, so two different byte strings would read as one claim.
  if (!isUtf8(bytes)) throw malformed(`${what} is not UTF-8`, path);
  try {
    return JSON.parse(bytes.toString('utf8'));
  } catch {
    throw malformed(`${what} is not JSON`, path);
  }
}

/**
 * A member of a token's header or payload, read as an own property only: `"__proto__"`, `"constructor"` or a
 * name someone added to `Object.prototype` must never answer with something the token does not carry.
 */
export function own(record: Readonly<Record<string, unknown>>, name: string): unknown {
  return Object.hasOwn(record, name) ? record[name] : undefined;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function parseHeader(encoded: string, path?: AuthPath): TokenHeader {
  const header = decodeJson(encoded, 'header', path);
  if (!isObject(header)) throw malformed('header is not a JSON object', path);
  const alg = own(header, 'alg');
  if (typeof alg !== 'string') throw malformed('header has no "alg"', path);
  if (alg.toLowerCase() === 'none') {
    throw new DualAuthError('ERR_ALG_NOT_ALLOWED', 'Unsigned tokens (alg "none") are never accepted', path);
  }
  // RFC 7515 4.1.11: an extension we do not understand, listed as critical, must make us refuse the token.
  if (own(header, 'crit') !== undefined) throw malformed('header lists critical extensions ("crit"), which are not supported', path);
  return Object.freeze(header) as TokenHeader;
}

function headerOf(encoded: string, path?: AuthPath): TokenHeader {
  let header = headerCache.get(encoded);
  if (header === undefined) {
    header = parseHeader(encoded, path);
    if (headerCache.size < HEADER_CACHE_SIZE) headerCache.set(encoded, header);
  }
  return header;
}

/**
 * Splits a compact JWS and decodes header and payload, with what jsonwebtoken does not check: a length limit,
 * strict base64url in every segment, a payload that is an object, no `alg: none`, no `crit`.
 */
export function decodeToken(token: string, path?: AuthPath): DecodedToken {
  if (token.length > MAX_TOKEN_LENGTH) throw malformed(`longer than ${MAX_TOKEN_LENGTH} characters`, path);
  const first = token.indexOf('.');
  const last = token.lastIndexOf('.');
  if (first <= 0 || last === first || token.indexOf('.', first + 1) !== last) {
    throw malformed('expected three dot-separated parts (header.payload.signature)', path);
  }
  const header = headerOf(token.slice(0, first), path);
  const payload = decodeJson(token.slice(first + 1, last), 'payload', path);
  if (!isObject(payload)) {
    throw new DualAuthError('ERR_PAYLOAD_NOT_OBJECT', 'Token payload is not a JSON object; a security context must be one', path);
  }
  if (last === token.length - 1) throw malformed('signature is missing', path);
  fromBase64url(token.slice(last + 1), 'signature', path);
  return { raw: token, header, payload };
}
