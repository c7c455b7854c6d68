/** What can be wrong with a URL we are given to send requests to, in the order the rule checks. */
type UrlProblem = 'not-a-url' | 'scheme' | 'credentials' | 'query-or-fragment';

/** How a caller tells each problem to its reader (an operator's configuration error, a usage error, an API error). */
export type UrlWording = Readonly<Record<UrlProblem, string>>;

interface UrlRule {
  /** Whether the URL's scheme (and host) is allowed. Default: http or https. */
  readonly scheme?: (url: URL) => boolean;
  /** Refuse a query or a fragment: a base URL that paths are appended to, or an issuer (OpenID Connect Discovery 4). */
  readonly bare?: boolean;
}

const HTTP = (url: URL): boolean => url.protocol === 'https:' || url.protocol === 'http:';

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

/** Whether `url` names this machine, where plain http crosses no network. */
export function isLoopback(url: URL): boolean {
  return LOOPBACK.has(url.hostname);
}

/**
 * The one rule for a URL we send requests to: it parses, its scheme is allowed, it carries no credentials (they would
 * show in every message naming it), and when `bare` no query or fragment. `fail` throws the first problem's `wording`.
 */
export function checkedUrl(
  text: string,
  wording: UrlWording,
  fail: (message: string) => never,
  rule: UrlRule = {},
): URL {
  if (!URL.canParse(text)) fail(wording['not-a-url']);
  const url = new URL(text);
  if (!(rule.scheme ?? HTTP)(url)) fail(wording.scheme);
  if (url.username !== '' || url.password !== '') fail(wording.credentials);
  if (rule.bare === true && (url.search !== '' || url.hash !== '')) fail(wording['query-or-fragment']);
  return url;
}
