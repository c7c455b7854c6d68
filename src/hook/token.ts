import { isUtf8 } from 'node:buffer';
import { DualAuthError, type AuthPath } from '../errors';
import { isObject } from '../http/json';

/** Longest token accepted. Node refuses request headers over 16 KiB by default, so a real token fits. */
const MAX_TOKEN_LENGTH = 16_384;

/** The protected header of a JWS, as far as this package reads it. */
export interface TokenHeader {
  readonly alg: string;
  readonly kid?: unknown;
  readonly typ?: unknown;
  readonly [name: string]: unknown;
}

/**
 * A compact JWS split, its header decoded and its encoding vetted, its signature not yet checked. The payload is
 * decoded on first use: jsonwebtoken decodes it as it verifies `raw`, and refusals and reports decode it here.
 */
export class DecodedToken {
  private parsed: Record<string, unknown> | undefined;

  constructor(
    /** The compact JWS as received, for jsonwebtoken to verify. */
    readonly raw: string,
    readonly header: TokenHeader,
    /** Where the payload's base64url text is in `raw`: from `payloadStart` up to `payloadEnd`, the second dot. */
    private readonly payloadStart: number,
    private readonly payloadEnd: number,
    private readonly path: AuthPath | undefined,
  ) {}

  /** The payload, a JSON object; throws the refusal when it is not one. */
  get payload(): Record<string, unknown> {
    return (this.parsed ??= parsePayload(this.payloadBytes(), this.path));
  }

  /** Characters of the signature's base64url text: after the second dot, to the end. */
  get signatureLength(): number {
    return this.raw.length - this.payloadEnd - 1;
  }

  /** The payload's bytes, decoded from its base64url text. */
  payloadBytes(): Buffer {
    return Buffer.from(this.raw.slice(this.payloadStart, this.payloadEnd), 'base64url');
  }

  /** The payload when it is a JSON object, for reports; never throws. */
  payloadIfObject(): Record<string, unknown> | undefined {
    try {
      return this.payload;
    } catch {
      return undefined;
    }
  }

  /** Why the token is malformed, checked in full, so a refusal names the token's first fault, not a symptom. */
  malformation(): DualAuthError | undefined {
    const segments = this.raw.split('.');
    const names = ['header', 'payload', 'signature'] as const;
    for (const [i, name] of names.entries()) {
      if (!isCanonicalBase64url(segments[i] as string)) return malformed(`${name} is not base64url`, this.path);
    }
    try {
      void this.payload;
    } catch (error) {
      return error as DualAuthError;
    }
    return undefined;
  }
}

/** Decoded headers by their text, shared by every hook: an issuer sends few; only the first few are kept. */
const headerCache = new Map<string, TokenHeader>();
const HEADER_CACHE_SIZE = 64;

/** The refusal of a token that is not a JWS as this package reads one; `detail` says what is wrong with it. */
export function malformed(detail: string, path?: AuthPath): DualAuthError {
  return new DualAuthError('ERR_TOKEN_MALFORMED', `Malformed token: ${detail}`, path);
}

const BASE64URL = /^[A-Za-z0-9_-]*$/;
const BASE64URL_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
/** Each ASCII character's base64url value, -1 for characters outside the alphabet: read on every request. */
const BASE64URL_VALUES = Int8Array.from({ length: 128 }, (_, code) =>
  BASE64URL_ALPHABET.indexOf(String.fromCharCode(code)),
);

/** The base64url value of the character at `index` of `text`, -1 when it is not one (or there is none). */
function base64urlValue(text: string, index: number): number {
  return BASE64URL_VALUES[text.charCodeAt(index)] ?? -1;
}

/**
 * One token, one encoding (RFC 7515 2, RFC 7519 7.2; docs/security.md): Node's decoder also takes `+`, `/`, `=`,
 * white space and spare bits. Checked on the text, without decoding; the signature is jsonwebtoken's to decode.
 */
function isCanonicalBase64url(part: string): boolean {
  return BASE64URL.test(part) && hasCanonicalEnd(part);
}

function decodeJson(bytes: Buffer, what: string, path?: AuthPath): unknown {
  // Invalid UTF-8 would be decoded to U+FFFD, so two different byte strings would read as one claim.
  if (!isUtf8(bytes)) throw malformed(`${what} is not UTF-8`, path);
  try {
    return JSON.parse(bytes.toString('utf8'));
  } catch {
    throw malformed(`${what} is not JSON`, path);
  }
}

function parsePayload(bytes: Buffer, path?: AuthPath): Record<string, unknown> {
  const payload = decodeJson(bytes, 'payload', path);
  if (!isObject(payload)) throw notAnObject(path);
  return payload;
}

function notAnObject(path?: AuthPath): DualAuthError {
  return new DualAuthError(
    'ERR_PAYLOAD_NOT_OBJECT',
    'Token payload is not a JSON object; a security context must be one',
    path,
  );
}

/** True when the length of the base64url segment from `start` to `end` is possible and leaves the spare bits 0. */
function hasCanonicalEnd(text: string, start = 0, end = text.length): boolean {
  const tail = (end - start) % 4;
  if (tail === 0) return true;
  if (tail === 1) return false;
  const last = base64urlValue(text, end - 1);
  return last >= 0 && (last & (tail === 2 ? 0x0f : 0x03)) === 0;
}

/**
 * A payload of ASCII bytes only, recognised in the token's text without a copy or a decode: a byte's top bit is bit
 * 5, 3 or 1 of the first, second or third character of each group of four.
 */
const ASCII_PAYLOAD = (() => {
  const where = (clear: number): string =>
    `[${[...BASE64URL_ALPHABET]
      .filter((_, value) => (value & clear) === 0)
      .join('')
      .replace('-', '\\-')}]`;
  const [first, second, third, any] = [where(0x20), where(0x08), where(0x02), where(0)];
  return new RegExp(`(?:${first}${second}${third}${any})*(?:${first}${any}|${first}${second}${any})?\\.`, 'y');
})();

/** True when the payload of `token`, from `start` up to the next dot, is base64url text of ASCII bytes only. */
function isAsciiPayload(token: string, start: number): boolean {
  ASCII_PAYLOAD.lastIndex = start;
  return ASCII_PAYLOAD.test(token);
}

/** True when the base64url text at `start` opens with the byte `{` (its first character, two bits of the next). */
function opensWithBrace(text: string, start: number): boolean {
  return text.charCodeAt(start) === 0x65 && base64urlValue(text, start + 1) >= 0x30;
}

const OPENING_BRACE = 0x7b;
const JSON_WHITE_SPACE = new Set([0x20, 0x09, 0x0a, 0x0d]);

/** True when the payload's JSON text opens an object; whether it is valid JSON, jsonwebtoken's parse tells. */
function opensAnObject(bytes: Buffer): boolean {
  for (const byte of bytes) if (!JSON_WHITE_SPACE.has(byte)) return byte === OPENING_BRACE;
  return false;
}

/** A member of a token's header or payload as an own property only, never one of `Object.prototype`. */
export function own(record: Readonly<Record<string, unknown>>, name: string): unknown {
  return ownValue(record, name, record[name]);
}

/** {@link own} for a reader that read `record[name]` itself, which V8 reads as a field of the shape: faster. */
export function ownValue(record: Readonly<Record<string, unknown>>, name: string, value: unknown): unknown {
  // Asked only when there is an answer: most names asked for are present, or absent from the prototype too.
  return value !== undefined && Object.hasOwn(record, name) ? value : undefined;
}

function parseHeader(encoded: string, path?: AuthPath): TokenHeader {
  if (!isCanonicalBase64url(encoded)) throw malformed('header is not base64url', path);
  const header = decodeJson(Buffer.from(encoded, 'base64url'), 'header', path);
  if (!isObject(header)) throw malformed('header is not a JSON object', path);
  const alg = own(header, 'alg');
  if (typeof alg !== 'string') throw malformed('header has no "alg"', path);
  if (alg.toLowerCase() === 'none') {
    throw new DualAuthError('ERR_ALG_NOT_ALLOWED', 'Unsigned tokens (alg "none") are never accepted', path);
  }
  // RFC 7515 4.1.11: an extension we do not understand, listed as critical, must make us refuse the token.
  if (own(header, 'crit') !== undefined)
    throw malformed('header lists critical extensions ("crit"), which are not supported', path);
  return Object.freeze(header) as TokenHeader;
}

/** The header of `token`, whose first `length` characters encode it. */
function headerOf(token: string, length: number, path?: AuthPath): TokenHeader {
  const encoded = token.slice(0, length);
  let header = headerCache.get(encoded);
  if (header === undefined) {
    header = parseHeader(encoded, path);
    if (headerCache.size < HEADER_CACHE_SIZE) headerCache.set(encoded, header);
  }
  return header;
}

/**
 * Splits a compact JWS and decodes its header, with the checks of docs/security.md step 3. A payload whose text shows
 * ASCII opening an object is not decoded here: jsonwebtoken decodes it anyway.
 */
export function decodeToken(token: string, path?: AuthPath): DecodedToken {
  if (token.length > MAX_TOKEN_LENGTH) throw malformed(`longer than ${MAX_TOKEN_LENGTH} characters`, path);
  // Forward searches only: V8's lastIndexOf would walk the whole signature backwards, a character at a time.
  const first = token.indexOf('.');
  const last = token.indexOf('.', first + 1);
  if (first <= 0 || last === -1 || token.indexOf('.', last + 1) !== -1) {
    throw malformed('expected three dot-separated parts (header.payload.signature)', path);
  }
  const header = headerOf(token, first, path);
  if (!hasCanonicalEnd(token, first + 1, last)) throw malformed('payload is not base64url', path);
  const decoded = new DecodedToken(token, header, first + 1, last, path);
  if (!(isAsciiPayload(token, first + 1) && opensWithBrace(token, first + 1))) {
    const payloadBytes = decoded.payloadBytes();
    // Anything but an object is classified now, by a whole parse: not JSON, or JSON of another kind.
    if (!opensAnObject(payloadBytes)) throw decoded.malformation() ?? notAnObject(path);
    if (!isUtf8(payloadBytes)) throw malformed('payload is not UTF-8', path);
  }
  if (last === token.length - 1) throw malformed('signature is missing', path);
  if (!hasCanonicalEnd(token, last + 1)) throw malformed('signature is not base64url', path);
  return decoded;
}
