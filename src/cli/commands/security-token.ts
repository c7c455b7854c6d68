import { EmbeddableValidationError } from '../../service';
import { forTerminal } from '../../terminal-text';
import { readStdin, type Command } from '../io';
import { required } from '../args';
import { CONNECTION_OPTIONS, connectionOptionsHelp, parseServiceArgs, runService, SERVICE_ENVIRONMENT_HELP, serviceExitHelp } from '../service-options';

// Named after the endpoint it calls (POST /api/v1/security-token), so that the service's documentation
// and this command use the same word.
const help = `Usage: cube-dual-auth security-token <embeddableId> --data-provider <name> --security-context <json|-> [options]

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
${connectionOptionsHelp(26)}

Environment:
${SERVICE_ENVIRONMENT_HELP}

${serviceExitHelp()}

Examples:
  cube-dual-auth security-token 3f2a0c1e-8b9d-4e5f-a6b7-c8d9e0f1a2b3 --region us \\
    --data-provider cube-main --security-context '{"tenantId":"acme"}' --saved-version production
  echo '{"tenantId":"acme"}' | cube-dual-auth security-token 3f2a0c1e-8b9d-4e5f-a6b7-c8d9e0f1a2b3 \\
    --data-provider cube-preview --security-context - --json
`;

const OPTIONS = {
  ...CONNECTION_OPTIONS,
  'data-provider': { type: 'string' },
  'security-context': { type: 'string' },
  'saved-version': { type: 'string' },
  'expiry-seconds': { type: 'string' },
} as const;

function securityContext(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new EmbeddableValidationError('securityContext', `--security-context is not valid JSON: ${reason}`, 'createSecurityToken');
  }
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
      const answer = await client.createSecurityToken({
        embeddableId: positionals[0] ?? '',
        securityContext: securityContext(contextArg === '-' ? await readStdin(io.stdin) : contextArg) as Record<string, unknown>,
        dataProvider,
        ...(values['saved-version'] !== undefined && { savedVersion: values['saved-version'] }),
        ...(expiry !== undefined && { expiryInSeconds: Number(expiry) }),
      });
      // The token is the service's answer: a real one has nothing to escape.
      const { token } = answer;
      output.result(answer, token === undefined ? undefined : () => `${forTerminal(token)}\n`);
    });
  },
};
