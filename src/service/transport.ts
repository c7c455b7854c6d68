/**
 * Sends one operation to the service: headers, timeout, retries where safe, and the translation of every failure
 * into a typed error. The API key lives only in this closure.
 */
import { readBody } from '../http/exchange';
import { isObject, JsonTooDeepError, parseOutsideJson } from '../http/json';
import type { Endpoint } from './endpoints';
import {
  BUILDER_CODE_EXPLANATIONS,
  EmbeddableApiError,
  EmbeddableNetworkError,
  EmbeddableResponseError,
} from './errors';
import type { ClientSettings } from './options';
import { transportHint } from '../http/transport-failure';

/** One operation to send. */
interface Outgoing {
  /** Client method name, used in messages. */
  readonly operation: string;
  readonly endpoint: Endpoint;
  readonly body?: unknown;
  /** Whether repeating the request is harmless (GET, idempotent publish). */
  readonly retry: boolean;
  /** Values besides the API key that must never appear in an error message (a data-provider secret). */
  readonly secrets?: readonly string[];
  /** Explanations of statuses specific to this operation, for answers without a known BUILDER code. */
  readonly hints?: Readonly<Record<number, string>>;
}

/** A successful answer: its status and parsed JSON body (`undefined` when the body is empty). */
export interface ServiceAnswer {
  readonly status: number;
  readonly body: unknown;
}

/** Sends an operation and returns the successful answer, or throws an `EmbeddableError`. */
export type Send = (outgoing: Outgoing) => Promise<ServiceAnswer>;

const RETRYABLE_STATUS = new Set([408, 429, 502, 503, 504]);
const MAX_RETRY_AFTER_S = 30;
const MAX_SERVICE_MESSAGE = 200;
const BUILDER_CODE = /\bBUILDER-\d+\b/;

const STATUS_EXPLANATIONS: Readonly<Record<number, string>> = {
  400: 'the service refused the request as malformed',
  401: BUILDER_CODE_EXPLANATIONS['BUILDER-998'] ?? 'the API key is missing or invalid',
  403: 'the API key is not allowed to do this',
  404: 'not found',
  409: 'the request conflicts with what exists (for example a data provider with this name)',
  429: 'too many requests; try again later',
};

interface Received {
  readonly status: number;
  readonly headers: Headers;
  /** The body; `undefined` when it is larger than the limit, and so was not read to its end. */
  readonly text: string | undefined;
}

/**
 * The body as text, or `undefined` as soon as it is known to be larger than `limit` bytes; the rest is never read
 * (docs/service-client.md#the-size-of-an-answer).
 */
async function readText(response: Response, limit: number): Promise<string | undefined> {
  const body = await readBody(response.body, limit, response.headers.get('content-length'));
  return body === undefined ? undefined : new TextDecoder().decode(body);
}

function tooLarge(outgoing: Outgoing, received: Received, limit: number): EmbeddableResponseError {
  const declared = Number(received.headers.get('content-length'));
  const problem =
    declared > limit
      ? `its Content-Length, ${declared} bytes, is more than the limit of ${limit} bytes (maxResponseBytes); none of it was read`
      : `it is larger than the limit of ${limit} bytes (maxResponseBytes); reading stopped there`;
  const raise = `raise the limit if answers this large are expected: the client's maxResponseBytes option, the CLI's --max-response-bytes or EMBEDDABLE_MAX_RESPONSE_BYTES`;
  return new EmbeddableResponseError(outgoing.operation, received.status, `${problem}; ${raise}`, 'ERR_TOO_LARGE');
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

function retryDelay(settings: ClientSettings, attempt: number, headers?: Headers): number {
  const retryAfter = Number(headers?.get('retry-after') ?? Number.NaN);
  if (Number.isInteger(retryAfter) && retryAfter >= 0 && retryAfter <= MAX_RETRY_AFTER_S) return retryAfter * 1000;
  return settings.retryDelayMs * 2 ** (attempt - 1);
}

/** Makes a message safe to show: secrets removed, printable characters only, shortened. */
function clean(text: string, secrets: readonly string[]): string {
  let result = text;
  for (const secret of secrets) result = result.split(secret).join('[redacted]');
  result = result.replace(/[^\x20-\x7e]+/g, ' ').trim();
  return result.length > MAX_SERVICE_MESSAGE ? `${result.slice(0, MAX_SERVICE_MESSAGE)}...` : result;
}

/** The service's own message; the error body's shape is not shown (docs/service-client.md#service-errors). */
function serviceMessage(text: string): string | undefined {
  let parsed: unknown;
  try {
    parsed = parseOutsideJson(text);
  } catch {
    return text.trimStart().startsWith('<') ? undefined : text.split('\n')[0];
  }
  if (typeof parsed === 'string') return parsed;
  if (!isObject(parsed)) return undefined;
  const nested = isObject(parsed.error) ? parsed.error.message : undefined;
  const found = [parsed.message, parsed.errorMessage, parsed.error, nested, parsed.detail].find(
    (v) => typeof v === 'string' && v !== '',
  );
  return found as string | undefined;
}

function explanationOf(outgoing: Outgoing, status: number, code: string | undefined, location: string | null): string {
  const known = code === undefined ? undefined : BUILDER_CODE_EXPLANATIONS[code];
  if (known) return known;
  if (status >= 300 && status < 400)
    return `the service answered with a redirect${location ? ` to ${location}` : ''}; check the base URL`;
  const base =
    outgoing.hints?.[status] ??
    STATUS_EXPLANATIONS[status] ??
    (status >= 500 ? 'the service failed; try again later' : 'the service refused the request');
  if (status === 404 && outgoing.endpoint.assumed) {
    const { method, path } = outgoing.endpoint;
    return `${base}; note that this client assumes the path ${method} ${path} (the interface does not show it), so a 404 may also mean the service uses another path`;
  }
  return base;
}

function apiError(
  outgoing: Outgoing,
  text: string,
  received: Received,
  attempts: number,
  secrets: readonly string[],
): EmbeddableApiError {
  const code = BUILDER_CODE.exec(text)?.[0];
  const said = serviceMessage(text);
  const location = received.headers.get('location');
  return new EmbeddableApiError({
    operation: outgoing.operation,
    status: received.status,
    code,
    explanation: explanationOf(outgoing, received.status, code, location === null ? null : clean(location, secrets)),
    serviceMessage: said ? clean(said, secrets) || undefined : undefined,
    attempts,
  });
}

function networkError(
  outgoing: Outgoing,
  error: unknown,
  attempts: number,
  settings: ClientSettings,
  secrets: readonly string[],
): EmbeddableNetworkError {
  const { operation, endpoint } = outgoing;
  const tries = attempts > 1 ? ` (${attempts} attempts)` : '';
  const where = `${endpoint.method} ${settings.baseUrl}${endpoint.path}`;
  if (error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError')) {
    const message = `${operation} failed: no answer within ${settings.timeoutMs} ms from ${where}${tries}`;
    return new EmbeddableNetworkError('ERR_TIMEOUT', message, operation, attempts, error);
  }
  const cause = error instanceof Error ? (error.cause as { code?: unknown; message?: unknown } | undefined) : undefined;
  const detail =
    transportHint(cause) ??
    (typeof cause?.code === 'string' ? cause.code : typeof cause?.message === 'string' ? cause.message : String(error));
  const message = `${operation} failed: could not reach ${where}: ${clean(detail, secrets)}${tries}`;
  return new EmbeddableNetworkError('ERR_NETWORK', message, operation, attempts, error);
}

function parseSuccess(outgoing: Outgoing, status: number, text: string): ServiceAnswer {
  if (text.trim() === '') return { status, body: undefined };
  try {
    return { status, body: parseOutsideJson(text) };
  } catch (error) {
    const problem =
      error instanceof JsonTooDeepError ? `the body is refused: ${error.message}` : 'the body is not JSON';
    throw new EmbeddableResponseError(outgoing.operation, status, problem);
  }
}

/** Creates the sender for the client's checked settings. */
export function createSender(settings: ClientSettings): Send {
  const headers = {
    'Content-Type': 'application/json',
    Accept: 'application/json',
    Authorization: `Bearer ${settings.apiKey}`,
  };

  async function attempt(outgoing: Outgoing): Promise<Received> {
    // The timeout covers the body too: a server that sends headers and then stalls must not hang us.
    const response = await settings.fetch(`${settings.baseUrl}${outgoing.endpoint.path}`, {
      method: outgoing.endpoint.method,
      headers,
      body: outgoing.body === undefined ? undefined : JSON.stringify(outgoing.body),
      // A redirect would resend the key elsewhere, or turn a POST into a GET: report it instead.
      redirect: 'manual',
      signal: AbortSignal.timeout(settings.timeoutMs),
    });
    return {
      status: response.status,
      headers: response.headers,
      text: await readText(response, settings.maxResponseBytes),
    };
  }

  return async function send(outgoing) {
    const secrets = [settings.apiKey, ...(outgoing.secrets ?? [])];
    const maxAttempts = outgoing.retry ? 1 + settings.retries : 1;
    for (let attempts = 1; ; attempts += 1) {
      let received: Received;
      try {
        received = await attempt(outgoing);
      } catch (error) {
        if (attempts < maxAttempts) {
          await sleep(retryDelay(settings, attempts));
          continue;
        }
        throw networkError(outgoing, error, attempts, settings, secrets);
      }
      // Not retried: the same request would get the same answer, and reading it again costs as much.
      if (received.text === undefined) throw tooLarge(outgoing, received, settings.maxResponseBytes);
      if (received.status >= 200 && received.status < 300)
        return parseSuccess(outgoing, received.status, received.text);
      if (RETRYABLE_STATUS.has(received.status) && attempts < maxAttempts) {
        await sleep(retryDelay(settings, attempts, received.headers));
        continue;
      }
      throw apiError(outgoing, received.text, received, attempts, secrets);
    }
  };
}
