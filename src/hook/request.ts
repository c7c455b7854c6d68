/**
 * Reading what Cube hands to `checkAuth`: an Express request, a Node `IncomingMessage`, an object with a Fetch
 * `Headers`, or, over WebSockets, `{ isSubscription, protocol: 'ws' }` with no headers at all.
 */

import type { AuthPath } from '../errors';

type HeaderBag = Record<string, unknown> & { get?: unknown };
type RequestLike = { headers?: unknown; get?: unknown; rawHeaders?: unknown } | null | undefined;

const BEARER = /^bearer(?:\s+|$)/i;

function first(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (Array.isArray(value) && typeof value[0] === 'string') return value[0];
  return undefined;
}

/** @param lowerCased true for a Node request, whose header names Node lower-cased: no other casing to look for */
function fromPlainHeaders(headers: HeaderBag, lowerName: string, lowerCased: boolean): unknown {
  if (Object.hasOwn(headers, lowerName)) return headers[lowerName];
  if (lowerCased) return undefined;
  // Hand-built header objects may keep the sender's casing; names of another length are passed over unconverted.
  for (const key in headers) {
    if (key.length === lowerName.length && Object.hasOwn(headers, key) && key.toLowerCase() === lowerName)
      return headers[key];
  }
  return undefined;
}

/** One request header by lower-case name (its first value when it has several), or undefined; never throws. */
export function readHeader(req: unknown, lowerName: string): string | undefined {
  return first(readHeaderValues(req, lowerName));
}

/** A request header as held: a string, or an array when repeated (one element counts as its value); never throws. */
function readHeaderValues(req: unknown, lowerName: string): string | readonly string[] | undefined {
  if (typeof req !== 'object' || req === null) return undefined;
  try {
    const { headers, get, rawHeaders } = req as NonNullable<RequestLike>;
    let value: unknown;
    if (typeof headers === 'object' && headers !== null) {
      const bag = headers as HeaderBag;
      // Node's requests alone have `rawHeaders`, the names as sent beside the lower-cased `headers`.
      const lowerCased = Array.isArray(rawHeaders);
      value =
        typeof bag.get === 'function'
          ? (bag.get as (name: string) => unknown).call(bag, lowerName)
          : fromPlainHeaders(bag, lowerName, lowerCased);
    } else if (typeof get === 'function') {
      value = (get as (name: string) => unknown).call(req, lowerName);
    }
    if (typeof value === 'string') return value;
    if (Array.isArray(value) && value.length > 0 && value.every((item) => typeof item === 'string'))
      return value.length === 1 ? value[0] : value;
  } catch {
    // A host object whose accessors throw is treated as having no such header.
  }
  return undefined;
}

/** The token: `auth` when Cube passes one, else `Authorization`, else `X-Cube-Authorization`; `Bearer ` removed. */
export function extractToken(req: unknown, auth: unknown): string | undefined {
  const given = typeof auth === 'string' ? trim(auth) : '';
  const raw = given !== '' ? given : (readHeader(req, 'authorization') ?? readHeader(req, 'x-cube-authorization'));
  if (raw === undefined) return undefined;
  const token = withoutBearer(trim(raw));
  return token === '' ? undefined : token;
}

/** Trimmed text without its `Bearer` scheme (any case): the token as the hook and the CLI read it. */
export function withoutBearer(text: string): string {
  // A JWS starts with "ey" (the encoded "{"): the prefix is looked for only when the text starts with a "b".
  return (text.charCodeAt(0) | 0x20) === 0x62 ? text.replace(BEARER, '').trim() : text;
}

/** Visible ASCII: never white space. */
function isVisibleAscii(code: number): boolean {
  return code > 0x20 && code < 0x7f;
}

/** `text` without surrounding white space; a token (visible ASCII at both ends) without a call to `trim`. */
function trim(text: string): string {
  return isVisibleAscii(text.charCodeAt(0)) && isVisibleAscii(text.charCodeAt(text.length - 1)) ? text : text.trim();
}

/** The path a request goes to, and why: what `checkAuth` follows and `explain` reports. */
export interface PathChoice {
  readonly path: AuthPath;
  readonly reason: string;
}

/**
 * Chooses the path from `Request-Origin`: shared-secret only for exactly one value equal to `origin` (any case and
 * surrounding space); several values, as an array or comma-joined, never (docs/security.md, "One request, one path").
 */
export function pathChooser(origin: string): (req: unknown) => PathChoice {
  const keySet = 'the key-set path (identity provider tokens)';
  const service: PathChoice = Object.freeze({
    path: 'shared-secret',
    reason: `Request-Origin is "${origin}": the shared-secret path (service tokens)`,
  });
  const noHeader: PathChoice = Object.freeze({ path: 'key-set', reason: `no Request-Origin header: ${keySet}` });
  const otherOrigin: PathChoice = Object.freeze({
    path: 'key-set',
    reason: `Request-Origin is not "${origin}": ${keySet}`,
  });
  const several: PathChoice = Object.freeze({ path: 'key-set', reason: `several Request-Origin values: ${keySet}` });
  return (req) => {
    const value = readHeaderValues(req, 'request-origin');
    if (value === undefined) return noHeader;
    if (typeof value !== 'string') return several;
    if (value.includes(',')) return several;
    return value.trim().toLowerCase() === origin ? service : otherOrigin;
  };
}
