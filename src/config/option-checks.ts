/**
 * Checks of option values that more than the options table needs (the identity providers' too): each takes the
 * value and a `fail` that throws a configuration error naming the option.
 */
/** Throws the configuration error (`DualAuthConfigError`) naming the option being checked. */
export type Fail = (problem: string) => never;

export const nonEmptyString = (value: unknown, fail: Fail): string => {
  if (typeof value !== 'string' || value.trim() === '') fail('must be a non-empty string');
  return value;
};

export function httpUrl(value: unknown, fail: Fail): string {
  const text = nonEmptyString(value, fail);
  if (!URL.canParse(text)) fail('is not a URL');
  const url = new URL(text);
  if (url.protocol !== 'https:' && url.protocol !== 'http:') fail('must be an http(s) URL');
  if (url.username || url.password) fail('must not carry credentials');
  return url.href;
}

/** An issuer the JWKS URL can be discovered from: an http(s) URL without query or fragment (OpenID Connect Discovery 4). */
export function discoverableIssuer(value: string, fail: Fail): string {
  httpUrl(value, fail);
  const url = new URL(value);
  if (url.search !== '' || url.hash !== '') fail('cannot be discovered: an issuer URL has no query or fragment');
  return value;
}
