/** The deployment `probe` talks to: the Cube REST base URL, from what an operator is likely to paste. */
import { UsageError } from '../io';

/** Cube's REST API prefix under its default base path. */
const DEFAULT_BASE_PATH = '/cubejs-api/v1';

const EXAMPLE = 'https://cube.example.com/cubejs-api/v1';

/**
 * The REST base, `…/cubejs-api/v1`, without a trailing slash. A URL whose path already ends in `/v1` is taken as the
 * base as it is (Cube's `basePath` may be other than /cubejs-api); `…/cubejs-api` gets `/v1`; any other path (the
 * server's root, or a proxy prefix) gets `/cubejs-api/v1`. The text is never echoed: it may be a pasted token.
 */
export function apiBaseUrl(text: string): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new UsageError(`<cube-api-url> is not a URL: expected something like ${EXAMPLE}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new UsageError(`<cube-api-url> must be an http(s) URL, like ${EXAMPLE}`);
  if (url.username !== '' || url.password !== '') throw new UsageError('<cube-api-url> must not carry credentials');
  if (url.search !== '' || url.hash !== '') throw new UsageError(`<cube-api-url> must not have a query or a fragment: give the REST base, like ${EXAMPLE}`);
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
