/** The deployment `probe` talks to: the Cube REST base URL, from what an operator is likely to paste. */
import { checkedUrl, type UrlWording } from '../../http/url';
import { UsageError } from '../io';

/** Cube's REST API prefix under its default base path. */
const DEFAULT_BASE_PATH = '/cubejs-api/v1';

const EXAMPLE = 'https://cube.example.com/cubejs-api/v1';

/** Told after the argument's name. */
const URL_WORDING: UrlWording = {
  'not-a-url': `is not a URL: expected something like ${EXAMPLE}`,
  scheme: `must be an http(s) URL, like ${EXAMPLE}`,
  credentials: 'must not carry credentials',
  'query-or-fragment': `must not have a query or a fragment: give the REST base, like ${EXAMPLE}`,
};

/**
 * The REST base, `…/cubejs-api/v1`, without a trailing slash. A URL whose path already ends in `/v1` is taken as the
 * base as it is (Cube's `basePath` may be other than /cubejs-api); `…/cubejs-api` gets `/v1`; any other path (the
 * server's root, or a proxy prefix) gets `/cubejs-api/v1`. The text is never echoed: it may be a pasted token.
 */
export function apiBaseUrl(text: string): URL {
  const url = checkedUrl(
    text,
    URL_WORDING,
    (message) => {
      throw new UsageError(`<cube-api-url> ${message}`);
    },
    { bare: true },
  );
  const path = url.pathname.replace(/\/+$/, '');
  if (/\/v1$/.test(path)) url.pathname = path;
  else if (/\/cubejs-api$/.test(path)) url.pathname = `${path}/v1`;
  else url.pathname = `${path}${DEFAULT_BASE_PATH}`;
  return url;
}

/** `<base>/<endpoint>`, e.g. the base's `/meta`. */
export function endpoint(base: URL, name: string): URL {
  return new URL(`${base.pathname}/${name}`, base);
}
