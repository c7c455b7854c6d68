/**
 * Where an issuer publishes its keys: its OpenID Provider Configuration (OpenID Connect Discovery 1.0), or, when that
 * does not exist, its OAuth 2.0 Authorization Server Metadata (RFC 8414). Only the configured issuer decides the
 * URLs asked; the token never does.
 */
import { quote } from '../errors';
import { httpUrl } from '../config/option-checks';
import { isObject } from '../http/json';
import type { DiscoveryEvent } from '../events';
import { discoveryWording, type JwksFailure } from './errors';
import { fetchDocument, HttpStatus, statusProblem, type FetchDocumentOptions } from './fetch-document';

const ACCEPT = 'application/json';

/**
 * The two documents that can name an issuer's JWKS URL, in the order they are asked:
 * `<issuer>/.well-known/openid-configuration` (OpenID Connect Discovery 4: no doubled slash after an issuer ending
 * in `/`), then `/.well-known/oauth-authorization-server` inserted before the issuer's path (RFC 8414 3.1).
 */
export function discoveryUrls(issuer: string): readonly [openid: string, authorizationServer: string] {
  const url = new URL(issuer);
  const path = url.pathname.replace(/\/$/, '');
  return [
    `${url.origin}${path}/.well-known/openid-configuration`,
    `${url.origin}/.well-known/oauth-authorization-server${path}`,
  ];
}

/** What one discovery found. */
interface Discovered {
  readonly jwksUri: string;
  /** The document that named it. */
  readonly documentUrl: string;
  /** The document's own lifetime from `Cache-Control`, in ms; undefined when it says nothing. */
  readonly maxAgeMs: number | undefined;
}

/**
 * Asks the issuer's documents for its JWKS URL. The document must name exactly the configured issuer (OpenID
 * Connect Discovery 4.3, RFC 8414 3.3: else anyone serving a document could speak for the issuer) and an http(s)
 * `jwks_uri`. Rejects with a `JwksFailure` naming the document and what is wrong with it.
 * @param fetch the deadline is for both documents together
 */
export async function discover(issuer: string, fetch: FetchDocumentOptions): Promise<Discovered> {
  const [openid, authorizationServer] = discoveryUrls(issuer);
  const deadline = performance.now() + fetch.timeoutMs;
  let documentUrl = openid;
  let answer = await fetchDocument(openid, ACCEPT, fetch, discoveryWording(openid, issuer));
  if (answer instanceof HttpStatus && answer.status === 404) {
    documentUrl = authorizationServer;
    const timeoutMs = Math.max(1, Math.round(deadline - performance.now()));
    answer = await fetchDocument(
      authorizationServer,
      ACCEPT,
      { ...fetch, timeoutMs },
      discoveryWording(authorizationServer, issuer),
    );
  }
  const wording = discoveryWording(documentUrl, issuer);
  if (answer instanceof HttpStatus) {
    const neither =
      answer.status === 404
        ? `; ${openid} answered HTTP 404 too: the issuer publishes no discovery document, so set its JWKS URL`
        : '';
    throw wording.invalid(`${statusProblem(answer)}${neither}`);
  }
  const document = answer.json;
  if (!isObject(document)) throw wording.invalid('not a JSON object');
  const { issuer: named, jwks_uri: jwksUri } = document;
  if (named !== issuer) {
    const got = typeof named === 'string' ? `is ${quote(named)}` : 'is missing';
    throw wording.invalid(`its "issuer" ${got}, not exactly the configured ${JSON.stringify(issuer)}`);
  }
  if (jwksUri === undefined) throw wording.invalid('it has no "jwks_uri"');
  // The same rule as for a configured JWKS URL.
  httpUrl(jwksUri, (problem) => {
    throw wording.invalid(`its "jwks_uri" ${quote(jwksUri)} ${problem}`);
  });
  return { jwksUri: jwksUri as string, documentUrl, maxAgeMs: answer.maxAgeMs };
}

/**
 * How long a discovered JWKS URL is used, and how long past that it serves while discovery fails: the key store's own
 * rules.
 */
interface DiscoveryOptions {
  readonly maxAgeMs: number;
  readonly staleIfErrorMs: number;
  /** A document's shorter `Cache-Control: max-age` is honoured, but never below this. */
  readonly cooldownMs: number;
  /** Monotonic milliseconds (the key store's clock). */
  readonly clock: () => number;
  /** Told of every discovery asked, for the event log and metrics. */
  readonly report?: (event: DiscoveryEvent) => void;
}

/** A snapshot for diagnostics. */
export interface DiscoveryState {
  readonly issuer: string;
  /** The document that named the JWKS URL last, undefined before the first success. */
  readonly documentUrl: string | undefined;
  readonly jwksUri: string | undefined;
  /** Same meaning as the key set's status. */
  readonly status: 'empty' | 'fresh' | 'stale' | 'expired';
  readonly lastError: { readonly code: JwksFailure['code']; readonly message: string } | undefined;
}

/**
 * An issuer's JWKS URL, discovered and kept like the key set: fresh for `maxAgeMs` (or the document's shorter
 * lifetime), then asked again; while asking fails, the last good URL serves for `staleIfErrorMs` more. Asked only by
 * the key store's refresh, so it shares that refresh's single flight and cooldown.
 */
export class IssuerDiscovery {
  private found: Discovered | undefined;
  private freshUntil = -Infinity;
  private servableUntil = -Infinity;
  private lastFailure: JwksFailure | undefined;

  constructor(
    readonly issuer: string,
    private readonly options: DiscoveryOptions,
  ) {}

  /** The JWKS URL to fetch keys from now. Rejects with the `JwksFailure` of discovery when no URL can be served. */
  async jwksUri(fetch: FetchDocumentOptions): Promise<string> {
    if (this.found !== undefined && this.options.clock() < this.freshUntil) return this.found.jwksUri;
    const { maxAgeMs, cooldownMs, staleIfErrorMs, clock, report } = this.options;
    const started = clock();
    try {
      const found = await discover(this.issuer, fetch);
      report?.({
        type: 'discovery',
        issuer: this.issuer,
        jwksUri: found.jwksUri,
        durationMs: Math.round(clock() - started),
      });
      this.found = found;
      this.freshUntil =
        clock() + (found.maxAgeMs === undefined ? maxAgeMs : Math.min(maxAgeMs, Math.max(cooldownMs, found.maxAgeMs)));
      this.servableUntil = this.freshUntil + staleIfErrorMs;
      this.lastFailure = undefined;
      return found.jwksUri;
    } catch (error) {
      this.lastFailure = error as JwksFailure;
      report?.({
        type: 'discovery',
        issuer: this.issuer,
        code: this.lastFailure.code,
        durationMs: Math.round(clock() - started),
      });
      // The issuer's discovery is down but its keys may not be: keep using the URL it last named.
      if (this.found !== undefined && this.options.clock() < this.servableUntil) return this.found.jwksUri;
      throw error;
    }
  }

  /** The last JWKS URL discovered, if any (for messages). */
  get current(): string | undefined {
    return this.found?.jwksUri;
  }

  /** The URL discovery asks first, for messages before anything was found. */
  get firstDocumentUrl(): string {
    return discoveryUrls(this.issuer)[0];
  }

  describe(): DiscoveryState {
    const now = this.options.clock();
    const status =
      this.found === undefined
        ? 'empty'
        : now < this.freshUntil
          ? 'fresh'
          : now < this.servableUntil
            ? 'stale'
            : 'expired';
    const failure = this.lastFailure;
    return {
      issuer: this.issuer,
      documentUrl: this.found?.documentUrl,
      jwksUri: this.found?.jwksUri,
      status,
      lastError: failure && { code: failure.code, message: failure.detail },
    };
  }
}
