import { EmbeddableValidationError } from '../../service';
import { claimFormat, decodeTenant } from '../../config/claim-format';
import { claimPointer, readClaim } from '../../config/claim-pointer';
import { ENV, readEnv } from '../../config/env';
import { forTerminal, jsonForTerminal } from '../../terminal-text';
import { readStdin, type CliIO, type Command } from '../io';
import { required } from '../args';
import {
  CONNECTION_OPTIONS,
  connectionOptionsHelp,
  parseServiceArgs,
  runService,
  SERVICE_ENVIRONMENT_HELP,
  serviceExitHelp,
} from '../service-options';

// Named after the endpoint it calls (POST /api/v1/security-token), so that the service's documentation
// and this command use the same word.
const help = `Usage: cube-dual-auth security-token <embeddableId> --data-provider <name> \
--security-context <json|-> [options]

Requests a security token for embedding a dashboard against a given data provider. Prints the token
alone (for TOKEN=$(...)), or the service's whole answer with --json. Server-side use only.
The dashboard field is sent as "embeddableId"; the interface's reference spells it "embbeddableId"
once, which is taken to be a typo.

Arguments:
  <embeddableId>              the dashboard's UUID

Options:
  --data-provider <name>      the name of an existing data provider (required)
  --security-context <json>   the security context as a JSON object, or - to read it from
                              standard input (required)
  --saved-version <v>         a tag (development, staging, production: follows later publishes) or
                              a label such as v7 (pinned); not sent when omitted
  --expiry-seconds <n>        the token's lifetime in seconds; not sent when omitted
  --user <id>                 the user the dashboard is shown to (an e-mail address or a user
                              id), under which the service keeps their dashboard preferences; the
                              handbook lists it as required; not sent when omitted
${connectionOptionsHelp(26)}

Environment:
${SERVICE_ENVIRONMENT_HELP}
  ${ENV.serviceTenantClaim}, ${ENV.tenantClaim}
                       the deployment's tenant claim for service tokens, when it has one
                       (the first set of the two): a security context
                       without it (or whose tenant is not a non-empty string) gets a warning
                       on standard error, as the deployment would refuse the dashboard's
                       queries; the token is printed and the exit status kept all the same
  ${ENV.tenantClaimFormat}
                       how the deployment reads that claim (array, json, space): a tenant
                       not written so gets the same warning

${serviceExitHelp()}

Examples:
  cube-dual-auth security-token 3f2a0c1e-8b9d-4e5f-a6b7-c8d9e0f1a2b3 --region us \\
    --data-provider cube-main --security-context '{"tenantId":"acme"}' --saved-version production \\
    --user ana@acme.example
  echo '{"tenantId":"acme"}' | cube-dual-auth security-token 3f2a0c1e-8b9d-4e5f-a6b7-c8d9e0f1a2b3 \\
    --data-provider cube-preview --security-context - --json
`;

const OPTIONS = {
  ...CONNECTION_OPTIONS,
  'data-provider': { type: 'string' },
  'security-context': { type: 'string' },
  'saved-version': { type: 'string' },
  'expiry-seconds': { type: 'string' },
  user: { type: 'string' },
} as const;

function parsedSecurityContext(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new EmbeddableValidationError(
      'securityContext',
      `--security-context is not valid JSON: ${reason}`,
      'createSecurityToken',
    );
  }
}

/**
 * The service signs the security context as the payload of its token for the deployment, and the hook reads the
 * tenant claim from that whole payload (hook/tenant-and-groups.ts): so the claim is looked up in the context itself,
 * as the hook will. The warning names the refusal the deployment would answer with; never the context's values.
 */
function tenantWarning(context: unknown, variable: string, env: NodeJS.ProcessEnv): string | undefined {
  const text = readEnv(env, variable);
  if (text === undefined || typeof context !== 'object' || context === null || Array.isArray(context)) return undefined;
  // A claim that is no pointer stops the deployment at start: the caller says so (warnAboutTenant).
  const claim = claimPointer(text, (why) => {
    throw new Error(why);
  });
  const found = readClaim(context as Record<string, unknown>, claim);
  const name = `${jsonForTerminal(claim.text)} (${variable})`;
  if (found === undefined)
    return `the security context has no tenant claim ${name}: the deployment will refuse the dashboard's queries with ERR_TENANT_MISSING`;
  // Read in the format the deployment declares for it (docs/authorization.md#claim-formats), as the hook reads it.
  const format = claimFormat(readEnv(env, ENV.tenantClaimFormat) ?? 'array', (why) => {
    throw new Error(why);
  });
  const decoded = decodeTenant(found, format);
  if (!('value' in decoded))
    return `the security context's tenant claim ${name} is not written as ${format} (${ENV.tenantClaimFormat}): the deployment will refuse the dashboard's queries with ERR_CLAIM_FORMAT`;
  const value = decoded.value;
  if (typeof value !== 'string' || value.trim() === '')
    return `the security context's tenant claim ${name} is not a non-empty string: the deployment will refuse the dashboard's queries with ERR_TENANT_INVALID`;
  return undefined;
}

function warnAboutTenant(context: unknown, io: CliIO): void {
  // Service tokens read the tenant where the service's own claim says, else where the claim of both paths does.
  const variable = readEnv(io.env, ENV.serviceTenantClaim) === undefined ? ENV.tenantClaim : ENV.serviceTenantClaim;
  let warning: string | undefined;
  try {
    warning = tenantWarning(context, variable, io.env);
  } catch {
    warning = `${variable} is not a claim name or a JSON Pointer, or ${ENV.tenantClaimFormat} no claim format: the deployment will not start with it, so the tenant of the security context was not checked`;
  }
  if (warning !== undefined) io.stderr.write(`cube-dual-auth security-token: warning: ${forTerminal(warning)}\n`);
}

/** `cube-dual-auth security-token`. */
export const securityToken: Command = {
  help,
  async run(args, io) {
    const { values, positionals } = parseServiceArgs(args, OPTIONS, ['embeddableId']);
    const dataProvider = required(values['data-provider'], '--data-provider');
    const contextArg = required(values['security-context'], '--security-context');
    const expiry = values['expiry-seconds'];
    return runService('security-token', io, values, async (client, output) => {
      const context = parsedSecurityContext(contextArg === '-' ? await readStdin(io.stdin) : contextArg);
      const answer = await client.createSecurityToken({
        embeddableId: positionals[0] ?? '',
        securityContext: context as Record<string, unknown>,
        dataProvider,
        ...(values['saved-version'] !== undefined && { savedVersion: values['saved-version'] }),
        ...(expiry !== undefined && { expiryInSeconds: Number(expiry) }),
        ...(values.user !== undefined && { user: values.user }),
      });
      // The token is the service's answer: a real one has nothing to escape.
      const { token } = answer;
      output.result(answer, token === undefined ? undefined : () => `${forTerminal(token)}\n`);
      // After the answer: the token was issued, and what it will meet at the deployment is worth knowing.
      warnAboutTenant(context, io);
    });
  },
};
