/**
 * The key-set path's lines: each identity provider loaded with the hook's own key store and settings, so that
 * discovery, reachability, timeout and key vetting are the runtime's; then the claims it checks tokens for.
 */
import { performance } from 'node:perf_hooks';
import type { ResolvedOptions } from '../../config/options';
import { ENV } from '../../config/env';
import type { IdentityProvider } from '../../config/identity-providers';
import { DualAuthError } from '../../errors';
import { isLoopback } from '../../http/url';
import { KeyStore, keyStoreOptions } from '../../keys';
import { check, type Check } from '../check';

const MAX_KIDS_SHOWN = 5;

/** Plain http is fine on this machine only: elsewhere, whoever sits on the network path can swap the keys. */
function plainHttp(url: string): boolean {
  const parsed = new URL(url);
  return parsed.protocol === 'http:' && !isLoopback(parsed);
}

export function jwksUrlCheck(jwksUri: string | undefined): Check {
  if (jwksUri === undefined) {
    return check(
      'jwks-url',
      'warn',
      `${ENV.jwksUri} is not set (nor ${ENV.providers}, nor one issuer URL in ${ENV.issuer} to discover it from): the key-set path refuses every identity-provider token`,
    );
  }
  if (plainHttp(jwksUri)) {
    return check(
      'jwks-url',
      'warn',
      `${ENV.jwksUri} ${jwksUri} is plain http: whoever sits on the network path can swap the keys and forge tokens; use https`,
    );
  }
  return check('jwks-url', 'ok', `${ENV.jwksUri} is ${jwksUri}`);
}

/** What the key store found of one provider: its state once asked, how long that took, and why it failed. */
interface Asked {
  readonly state: ReturnType<KeyStore['describe']>;
  readonly elapsed: number;
  readonly failure: string | undefined;
}

async function ask(options: ResolvedOptions, provider: IdentityProvider): Promise<Asked> {
  const store = new KeyStore(keyStoreOptions(options, provider));
  const started = performance.now();
  let failure: string | undefined;
  try {
    await store.prefetch();
  } catch (error) {
    failure = error instanceof DualAuthError ? error.detail : String(error);
  } finally {
    store.close();
  }
  return { state: store.describe(), elapsed: Math.round(performance.now() - started), failure };
}

/** The keys found for the provider's algorithms, a few kids shown, and how many keys were skipped. */
function keysFound(provider: IdentityProvider, { state, elapsed }: Asked): string {
  const { kids, skippedKeys } = state;
  const shown = kids
    .slice(0, MAX_KIDS_SHOWN)
    .map((kid) => JSON.stringify(kid))
    .join(', ');
  const more = kids.length > MAX_KIDS_SHOWN ? ` and ${kids.length - MAX_KIDS_SHOWN} more` : '';
  const algorithms = provider.algorithms.join(', ');
  const skipped =
    skippedKeys > 0
      ? `; ${skippedKeys} other ${skippedKeys === 1 ? 'key' : 'keys'} skipped (encryption, or not for ${algorithms})`
      : '';
  const count = `${kids.length} signing ${kids.length === 1 ? 'key' : 'keys'}`;
  return `${count} for ${algorithms}: ${shown}${more}, answered in ${elapsed} ms${skipped}`;
}

/**
 * One identity provider: where its JWKS URL comes from (given, or discovered from its issuer), then its keys for its
 * algorithms, then its audience. With several providers, each line names the provider and carries its issuer.
 */
export async function providerChecks(
  options: ResolvedOptions,
  provider: IdentityProvider,
  several: boolean,
): Promise<Check[]> {
  const { issuer } = provider;
  const about = issuer === undefined ? {} : { issuer };
  const named = (message: string): string =>
    several ? `identity provider ${JSON.stringify(issuer)}: ${message}` : message;
  const asked = await ask(options, provider);
  const { failure } = asked;
  const checks: Check[] = [];
  const audience = several
    ? { ...audienceCheck(provider.audience, named), ...about }
    : audienceCheck(provider.audience, (message) => message);
  if (provider.jwksUri !== undefined) {
    const url = jwksUrlCheck(provider.jwksUri);
    const plain = url.status === 'warn' ? ' is plain http: use https' : '';
    checks.push(
      several ? { ...check('jwks-url', url.status, named(`JWKS URL ${provider.jwksUri}${plain}`)), ...about } : url,
    );
  } else {
    const { discovery } = asked.state;
    if (discovery?.jwksUri === undefined)
      return [{ ...check('discovery', 'fail', named(failure ?? 'discovery found no JWKS URL')), ...about }, audience];
    const found = `issuer ${JSON.stringify(issuer)} names jwks_uri ${discovery.jwksUri} in ${discovery.documentUrl}`;
    checks.push(
      plainHttp(discovery.jwksUri)
        ? {
            ...check(
              'discovery',
              'warn',
              named(`${found}: plain http, whoever sits on the network path can swap the keys; use https`),
            ),
            ...about,
          }
        : { ...check('discovery', 'ok', named(found)), ...about },
    );
  }
  if (failure !== undefined) return [...checks, { ...check('jwks-keys', 'fail', named(failure)), ...about }, audience];
  checks.push({ ...check('jwks-keys', 'ok', named(keysFound(provider, asked))), ...about });
  checks.push(audience);
  return checks;
}

export function audienceCheck(audience: readonly string[] | undefined, named: (message: string) => string): Check {
  if (audience === undefined) {
    return check(
      'audience',
      'warn',
      named(
        `${ENV.audience} is not set: tokens the identity provider issued for any other application are accepted too`,
      ),
    );
  }
  return check(
    'audience',
    'ok',
    named(`${ENV.audience}: ${audience.map((value) => JSON.stringify(value)).join(' or ')}`),
  );
}

/** With one JWKS URL, whether tokens are checked for who issued them; discovery and several providers always check. */
export function issuerCheck(issuers: readonly string[] | undefined): Check {
  if (issuers === undefined)
    return check('issuer', 'warn', `${ENV.issuer} is not set: tokens are not checked for who issued them`);
  return check('issuer', 'ok', `${ENV.issuer}: ${issuers.map((value) => JSON.stringify(value)).join(' or ')}`);
}
