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

/** A compact JWS split and decoded, its signature not yet checked. */
export interface DecodedToken {
  readonly header: TokenHeader;
  readonly payload: Record<string, unknown>;
  /** `base64url(header) "." base64url(payload)`: what the signature covers. */
  readonly signingInput: string;
  readonly signature: Buffer;
}

const BASE64URL = /^[A-Za-z0-9_-]*$/;

function malformed(detail: string, path?: AuthPath): DualAuthError {
  return new DualAuthError('ERR_TOKEN_MALFORMED', `Malformed token: ${detail}`, path);
}

function decodeJson(part: string, what: string, path?: AuthPath): unknown {
  if (!BASE64URL.test(part)) throw malformed(`${what} is not base64url`, path);
  try {
    return JSON.parse(Buffer.from(part, 'base64url').toString('utf8'));
  } catch {
    throw malformed(`${what} is not JSON`, path);
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The header alone, for choosing how to verify; no signature check. */
export function decodeHeader(token: string, path?: AuthPath): TokenHeader {
  if (token.length > MAX_TOKEN_LENGTH) throw malformed(`longer than ${MAX_TOKEN_LENGTH} characters`, path);
  const dot = token.indexOf('.');
  if (dot <= 0) throw malformed('expected three dot-separated parts (header.payload.signature)', path);
  const header = decodeJson(token.slice(0, dot), 'header', path);
  if (!isObject(header)) throw malformed('header is not a JSON object', path);
  if (typeof header.alg !== 'string') throw malformed('header has no "alg"', path);
  // RFC 7515 4.1.11: an extension we do not understand, listed as critical, must make us refuse the token.
  if (header.crit !== undefined) throw malformed('header lists critical extensions ("crit"), which are not supported', path);
  return header as TokenHeader;
}

/** Splits a compact JWS and decodes header and payload. The payload must be a JSON object. */
export function decodeToken(token: string, path?: AuthPath): DecodedToken {
  const header = decodeHeader(token, path);
  const parts = token.split('.');
  if (parts.length !== 3) throw malformed('expected three dot-separated parts (header.payload.signature)', path);
  const [encodedHeader, encodedPayload, encodedSignature] = parts as [string, string, string];
  if (encodedSignature === '' || !BASE64URL.test(encodedSignature)) throw malformed('signature is missing or not base64url', path);
  const payload = decodeJson(encodedPayload, 'payload', path);
  if (!isObject(payload)) {
    throw new DualAuthError('ERR_PAYLOAD_NOT_OBJECT', 'Token payload is not a JSON object; a security context must be one', path);
  }
  return {
    header,
    payload,
    signingInput: `${encodedHeader}.${encodedPayload}`,
    signature: Buffer.from(encodedSignature, 'base64url'),
  };
}
