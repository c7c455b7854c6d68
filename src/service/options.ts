/** The client's options, checked once when the client is created and turned into its settings. */
import { fetchThroughProxy, type Fetch } from '../http/fetch';
import { checkedUrl, isLoopback } from '../http/url';
import { DEFAULT_MAX_RESPONSE_BYTES, EMBEDDABLE_SERVICE_DOMAIN, MAX_MAX_RESPONSE_BYTES } from './constants';
import { EmbeddableValidationError } from './errors';
import { quote } from './validate';

/** Options of {@link createEmbeddableClient}. Give `region` or `baseUrl`, not both. */
export interface EmbeddableClientOptions {
  /** The workspace API key, sent as a Bearer token. Required; server-side only; never logged, printed or inspected. */
  apiKey: string;
  /** The service region, for example `us` or `eu`: the base URL becomes `https://api.<region>.<serviceDomain>`. */
  region?: string;
  /** The service's domain used with `region`. Default {@link EMBEDDABLE_SERVICE_DOMAIN} (`embeddable.com`). */
  serviceDomain?: string;
  /** The whole base URL instead of `region`: https (http for localhost only), no credentials, query or `/api/v1`. */
  baseUrl?: string;
  /** Time allowed for each attempt, answer body included, in milliseconds. Default 10000. */
  timeoutMs?: number;
  /** Extra attempts for GETs and publish after a failure, a timeout or 408/429/502-504; never others. Default 2. */
  retries?: number;
  /** Ms before the first retry, doubled for each further one; a `Retry-After` (≤ 30 s) wins. Default 250. */
  retryDelayMs?: number;
  /**
   * The largest answer accepted, in bytes, from 1 to {@link MAX_MAX_RESPONSE_BYTES}; a larger one fails with
   * `ERR_TOO_LARGE`, never read past the limit (docs/service-client.md#the-size-of-an-answer). Default 8 MiB.
   */
  maxResponseBytes?: number;
  /** The `fetch` to use. Default: the package's own, through the proxy `HTTPS_PROXY`/`HTTP_PROXY`/`NO_PROXY` name. */
  fetch?: typeof fetch;
}

/** The client's settings: its options after checking, with the defaults filled in. */
export interface ClientSettings {
  readonly apiKey: string;
  /** Origin plus optional path prefix, without a trailing slash. */
  readonly baseUrl: string;
  readonly timeoutMs: number;
  readonly retries: number;
  readonly retryDelayMs: number;
  readonly maxResponseBytes: number;
  readonly fetch: Fetch;
}

const DEFAULT_TIMEOUT_MS = 10_000;
const DEFAULT_RETRIES = 2;
const DEFAULT_RETRY_DELAY_MS = 250;

const API_KEY = /^[\x21-\x7e]+$/;
const DNS_LABEL = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/;

function fail(field: string, message: string): never {
  throw new EmbeddableValidationError(field, message);
}

function apiKey(value: unknown): string {
  if (typeof value !== 'string' || value === '') fail('apiKey', 'the workspace API key is required');
  // Checked here so that a pasted newline or space fails clearly instead of inside fetch's header code.
  if (!API_KEY.test(value))
    fail('apiKey', 'must be the workspace API key: visible ASCII characters, no spaces or line breaks');
  return value;
}

function baseUrlFromRegion(region: unknown, domain: unknown): string {
  if (typeof region !== 'string' || !DNS_LABEL.test(region))
    fail('region', `must be a region name such as us or eu, got ${quote(region)}`);
  const serviceDomain = domain ?? EMBEDDABLE_SERVICE_DOMAIN;
  if (typeof serviceDomain !== 'string' || !serviceDomain.split('.').every((label) => DNS_LABEL.test(label))) {
    fail('serviceDomain', `must be a domain name such as ${EMBEDDABLE_SERVICE_DOMAIN}, got ${quote(serviceDomain)}`);
  }
  return `https://api.${region}.${serviceDomain}`;
}

function explicitBaseUrl(value: unknown): string {
  if (typeof value !== 'string') fail('baseUrl', `must be a string, got ${quote(value)}`);
  const wording = {
    'not-a-url': `must be an absolute URL such as https://api.us.${EMBEDDABLE_SERVICE_DOMAIN}, got ${quote(value)}`,
    scheme: `must use https (plain http only for localhost), got ${quote(value)}`,
    credentials: 'must not contain credentials; the API key goes in apiKey',
    'query-or-fragment': `must not have a query or fragment, got ${quote(value)}`,
  };
  const scheme = (url: URL): boolean => url.protocol === 'https:' || (url.protocol === 'http:' && isLoopback(url));
  const url = checkedUrl(value, wording, (message) => fail('baseUrl', message), { scheme, bare: true });
  const path = url.pathname.replace(/\/+$/, '');
  if (/\/api\/v1$/.test(path))
    fail('baseUrl', `must not end with /api/v1 (the client adds the API path), got ${quote(value)}`);
  return `${url.origin}${path}`;
}

function count(field: string, value: unknown, fallback: number, min: number, max = Number.MAX_SAFE_INTEGER): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < min || value > max) {
    const range = max === Number.MAX_SAFE_INTEGER ? `of at least ${min}` : `from ${min} to ${max}`;
    fail(field, `must be a whole number ${range}, got ${quote(value)}`);
  }
  return value;
}

/** Checks the options and fills in the defaults; throws {@link EmbeddableValidationError} naming the option. */
export function resolveClientSettings(options: EmbeddableClientOptions): ClientSettings {
  if (typeof options !== 'object' || options === null) fail('options', `must be an object, got ${quote(options)}`);
  const { region, baseUrl } = options;
  if (region !== undefined && baseUrl !== undefined) fail('baseUrl', 'give either region or baseUrl, not both');
  if (region === undefined && baseUrl === undefined) fail('region', `give region (such as us or eu) or baseUrl`);
  if (baseUrl !== undefined && options.serviceDomain !== undefined)
    fail('serviceDomain', 'applies only with region, not with baseUrl');
  const fetchImpl = options.fetch ?? fetchThroughProxy;
  if (typeof fetchImpl !== 'function') fail('fetch', 'no fetch implementation: use Node 18 or later, or pass one');
  return {
    apiKey: apiKey(options.apiKey),
    baseUrl: baseUrl === undefined ? baseUrlFromRegion(region, options.serviceDomain) : explicitBaseUrl(baseUrl),
    timeoutMs: count('timeoutMs', options.timeoutMs, DEFAULT_TIMEOUT_MS, 1),
    retries: count('retries', options.retries, DEFAULT_RETRIES, 0),
    retryDelayMs: count('retryDelayMs', options.retryDelayMs, DEFAULT_RETRY_DELAY_MS, 0),
    maxResponseBytes: count(
      'maxResponseBytes',
      options.maxResponseBytes,
      DEFAULT_MAX_RESPONSE_BYTES,
      1,
      MAX_MAX_RESPONSE_BYTES,
    ),
    fetch: fetchImpl,
  };
}
