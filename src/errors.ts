import { findGateway, handlerErrorClass, type HandlerErrorClass } from './host-cube';

/** Stable reason codes of a rejection. The message may be reworded between releases; the code will not. */
export type RejectionCode =
  | 'ERR_TOKEN_MISSING'
  | 'ERR_TOKEN_MALFORMED'
  | 'ERR_PAYLOAD_NOT_OBJECT'
  | 'ERR_ALG_NOT_ALLOWED'
  | 'ERR_ISSUER_UNKNOWN'
  | 'ERR_KID_MISSING'
  | 'ERR_KID_UNKNOWN'
  | 'ERR_SIGNATURE_INVALID'
  | 'ERR_TOKEN_EXPIRED'
  | 'ERR_TOKEN_NOT_YET_VALID'
  | 'ERR_TOKEN_TOO_OLD'
  | 'ERR_CLAIM_INVALID'
  | 'ERR_AUDIENCE_MISMATCH'
  | 'ERR_ISSUER_MISMATCH'
  | 'ERR_SUBJECT_MISMATCH'
  | 'ERR_SECURITY_CONTEXT_INVALID'
  | 'ERR_SECURITY_CONTEXT_TIMEOUT'
  | 'ERR_CLAIM_MISSING'
  | 'ERR_TENANT_MISSING'
  | 'ERR_TENANT_INVALID'
  | 'ERR_GROUPS_INVALID'
  | 'ERR_CLAIM_FORMAT'
  | 'ERR_FORBIDDEN'
  | 'ERR_SHARED_SECRET_NOT_CONFIGURED'
  | 'ERR_JWKS_NOT_CONFIGURED'
  | 'ERR_JWKS_UNREACHABLE'
  | 'ERR_JWKS_TIMEOUT'
  | 'ERR_JWKS_INVALID'
  | 'ERR_CONFIG_INVALID'
  | 'ERR_INTERNAL'
  | 'ERR_SECRET_REMOVED'
  | 'ERR_KEY_REMOVED'
  | 'ERR_PASSWORD_CHANGED';

/** The message of `ERR_TOKEN_MISSING`, the body `probe` expects of a deployment running the hook. */
export const TOKEN_MISSING_MESSAGE = 'Authentication required';

/** Which verification a request went to. */
export type AuthPath = 'shared-secret' | 'key-set';

const BRAND = Symbol.for('cube-dual-auth.rejection');
const MAX_ECHO = 64;

/**
 * A refused request (403), thrown in Cube as its `CubejsHandlerError` (docs/security.md#how-a-request-is-verified).
 * `message` is for the caller and names no configuration; `detail` tells the operator all.
 */
export class DualAuthError extends Error {
  /** HTTP status Cube answers with. */
  readonly status = 403;
  readonly type = 'Forbidden';
  readonly code: RejectionCode;
  /** The path the request was sent to, when one was chosen. */
  readonly path: AuthPath | undefined;
  /** The whole story, for the operator; the same as `message` when the message hides nothing. */
  readonly detail: string;

  constructor(code: RejectionCode, message: string, path?: AuthPath, detail: string = message) {
    super(message);
    this.name = 'DualAuthError';
    this.code = code;
    this.path = path;
    this.detail = detail;
  }

  static override [Symbol.hasInstance](value: unknown): boolean {
    return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[BRAND] === true;
  }
}
Object.defineProperty(DualAuthError.prototype, BRAND, { value: true });

/** A setting that cannot work. Thrown by `createCheckAuth` at once; `option` names the option or variable. */
export class DualAuthConfigError extends Error {
  override readonly name = 'DualAuthConfigError';
  readonly code = 'ERR_CONFIG_INVALID';
  constructor(
    readonly option: string,
    problem: string,
  ) {
    super(`cube-dual-auth: ${option} ${problem}`);
  }
}

/** A value taken from a token, made safe to show: printable characters only, length capped. */
export function quotedText(value: unknown): string {
  const text = typeof value === 'string' ? value : (JSON.stringify(value) ?? String(value));
  const printable = text.replace(/[^\x20-\x7e]/g, '?');
  return printable.length > MAX_ECHO ? `${printable.slice(0, MAX_ECHO)}...` : printable;
}

/** Quotes a value taken from a token for a message: printable characters only, length capped. */
export function quote(value: unknown): string {
  return JSON.stringify(quotedText(value));
}

/** How every JWS starts: its header's `{"`, base64url-encoded. */
const JWS_START = 'eyJ';
/** A JWS's start and up to two more parts: a whole token, or what is left of a cut one. */
const JWT_LIKE = new RegExp(`${JWS_START}[\\w-]*(?:\\.[\\w-]*){0,2}`, 'g');
const MAX_LOGGED = 300;

/** Text from outside (an error's message, a deployment's answer) with anything shaped like a token masked. */
export function maskTokens(text: string): string {
  return text.replace(JWT_LIKE, '[token]');
}

/** Whether {@link maskTokens} could change `text`: far cheaper than masking, for text that seldom holds a token. */
export function mayHoldToken(text: string): boolean {
  return text.includes(JWS_START);
}

/** An unexpected error's message for a log: anything shaped like a token masked, length capped. */
export function faultMessage(error: unknown): string {
  return maskTokens(error instanceof Error ? error.message : String(error)).slice(0, MAX_LOGGED);
}

let hostErrorClass: HandlerErrorClass | null | undefined;

/** The running Cube's `CubejsHandlerError`, found as `doctor` finds it (host-cube.ts); null outside Cube. */
function findHostErrorClass(): HandlerErrorClass | null {
  const found = findGateway(process.cwd());
  try {
    return found === undefined ? null : handlerErrorClass(found);
  } catch {
    return null;
  }
}

/** A refusal of your own in `cube.js`: Cube answers `403 {"error": message}`, where a plain `Error` is a 500. */
export function forbidden(message: string): Error {
  const text = typeof message === 'string' && message.trim() !== '' ? message : 'Forbidden';
  return toThrowable(new DualAuthError('ERR_FORBIDDEN', text));
}

/** Test seam: forget the class found, so the next rejection looks again. */
export function resetHostErrorClass(): void {
  hostErrorClass = undefined;
}

/** What to throw: Cube's `CubejsHandlerError` with the same code, path and brand when Cube runs, else `error`. */
export function toThrowable(error: DualAuthError, detailed = false): Error {
  if (hostErrorClass === undefined) hostErrorClass = findHostErrorClass();
  const message = detailed ? error.detail : error.message;
  if (hostErrorClass === null)
    return message === error.message ? error : new DualAuthError(error.code, message, error.path);
  const hosted = new hostErrorClass(403, 'Forbidden', message);
  // Cube 0.33 sends a WebSocket client the error's stack: a rejection has no stack worth a server path.
  hosted.stack = `DualAuthError: ${message}`;
  Object.defineProperties(hosted, {
    [BRAND]: { value: true },
    name: { value: 'DualAuthError', writable: true, configurable: true },
    code: { value: error.code, enumerable: true },
    path: { value: error.path, enumerable: true },
  });
  return hosted;
}
