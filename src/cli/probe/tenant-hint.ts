/**
 * The `--claims` `probe` suggests when its service token is refused for want of the tenant claim the environment
 * configures. It makes up no tenant: which one to probe as is the operator's choice (docs/troubleshooting.md, "probe").
 */
import { readClaim } from '../../config/claim-pointer';
import { optionsFromEnv } from '../../config/env';
import { ENV_NAMES, resolveOptions } from '../../config/options';

/** The claims object with `value` at the claim's place: `{"tenant_id": value}`, or nested for a pointer. */
function claimsWith(path: readonly string[], value: string): unknown {
  return path.reduceRight<unknown>((inner, name) => ({ [name]: inner }), value);
}

/** The hint for a refused service token; undefined without a service tenant claim here, or when `claims` has it. */
export function tenantClaimHint(env: NodeJS.ProcessEnv, claims: Readonly<Record<string, unknown>>): string | undefined {
  let rules;
  try {
    rules = resolveOptions(optionsFromEnv(env), ENV_NAMES).authorization?.sharedSecret;
  } catch {
    return undefined;
  }
  const claim = rules?.tenantClaim;
  if (rules === undefined || claim === undefined || readClaim(claims, claim) !== undefined) return undefined;
  const example = JSON.stringify(claimsWith(claim.path, '<tenant>'));
  return `service tokens need the tenant claim ${JSON.stringify(claim.text)} (${rules.tenantOption}): give the tenant to probe as with --claims '${example}'`;
}
