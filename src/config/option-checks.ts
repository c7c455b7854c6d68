/** Checks of option values the identity providers share with the options table. */
import { checkedUrl, type UrlWording } from '../http/url';

/** Throws the configuration error (`DualAuthConfigError`) naming the option being checked. */
export type Fail = (problem: string) => never;

export const nonEmptyString = (value: unknown, fail: Fail): string => {
  if (typeof value !== 'string' || value.trim() === '') fail('must be a non-empty string');
  return value;
};

/** A configured URL's problems as the configuration error tells them, after the option's name. */
const URL_WORDING: UrlWording = {
  'not-a-url': 'is not a URL',
  scheme: 'must be an http(s) URL',
  credentials: 'must not carry credentials',
  // Only an issuer is checked for them.
  'query-or-fragment': 'cannot be discovered: an issuer URL has no query or fragment',
};

/** A URL of another scheme is shown (a URL is no secret), as parsed: escaped, without user name or password. */
function wordingFor(text: string): UrlWording {
  if (!URL.canParse(text)) return URL_WORDING;
  const url = new URL(text);
  url.username = '';
  url.password = '';
  return { ...URL_WORDING, scheme: `${URL_WORDING.scheme}, not ${JSON.stringify(url.href)}` };
}

/** An http(s) URL without credentials, from outside (a discovered `jwks_uri`): its caller quotes it. */
export function httpUrl(value: unknown, fail: Fail): string {
  return checkedUrl(nonEmptyString(value, fail), URL_WORDING, fail).href;
}

/** The same rule for a configured URL (an option, a variable): a URL of another scheme is shown in the message. */
export function configuredHttpUrl(value: unknown, fail: Fail): string {
  const text = nonEmptyString(value, fail);
  return checkedUrl(text, wordingFor(text), fail).href;
}

/** An issuer to discover from: an http(s) URL without query or fragment (OpenID Connect Discovery 4). */
export function discoverableIssuer(value: string, fail: Fail): string {
  const text = nonEmptyString(value, fail);
  checkedUrl(text, wordingFor(text), fail, { bare: true });
  return value;
}
