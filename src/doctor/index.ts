/**
 * The runner of `cube-dual-auth doctor`: the checks of checks/ in the order the checklist shows them, each judged with
 * the hook's own code, plus what the hook cannot know (docs/cli-output.md#doctors-checks).
 */
import type { ResolvedOptions } from '../config/options';
import { apiSecretsInForce } from '../config/env';
import { apiSecretsFromDirectory, secretsDirReport } from './secrets-dir';
import { CUBE_JS_TIMEOUT_MS, readCubeJs } from './cube-js';
import { NOT_CHECKED, unlessAborted } from './deadline';
import { cubeOptionsOfProject, modelOfProject, type ProjectModel } from './cube-options';
import { deploymentOf } from '../config/deployment';
import { nodeOfProject } from './node-line';
import { check, type Check } from './check';
import { configurationCheck } from './checks/configuration';
import { originCheck, secretChecks } from './checks/shared-secret';
import { issuerCheck, jwksUrlCheck, providerChecks } from './checks/key-set';
import { accessPolicyCheck, authorizationCheck, exampleTokenCheck } from './checks/authorization';
import { sqlApiCheck, sqlApiPort, sqlKeyCheck, withSqlAuthOfCubeJs } from './checks/sql';
import { metricsCheck } from './checks/metrics';
import { serviceConnectionsCheck, withStandingNote } from './checks/connections';
import { cubeJsChecks, gatewayCheck, refreshWorkerCheck } from './checks/cube';
import { cubeStartCheck } from './checks/cube-start';

export type { Check, CheckStatus } from './check';
export { CUBE_JS_TIMEOUT_MS } from './cube-js';

interface Diagnosis {
  /** False when any check failed. */
  readonly ok: boolean;
  readonly checks: readonly Check[];
}

/** What {@link diagnose} checks beside the environment. */
export interface DiagnoseOptions {
  /** An example token: whether a token like it passes the hook's authorization step. */
  readonly exampleToken?: string;
  /** How long `cube.js` may take to load. Default {@link CUBE_JS_TIMEOUT_MS}. */
  readonly cubeJsTimeoutMs?: number;
  /** The command's deadline: once aborted, what is left is a `fail` check, not checked. */
  readonly signal?: AbortSignal;
  /** The Node judged against the Cube found. Default: the one this runs on. */
  readonly nodeVersion?: string;
}

/** What the checks that need a valid configuration are given. */
interface Context {
  readonly env: NodeJS.ProcessEnv;
  readonly cwd: string;
  readonly reading: ReturnType<typeof readCubeJs>;
  readonly signal: AbortSignal | undefined;
  readonly exampleToken: string | undefined;
  readonly project: Promise<ProjectModel>;
}

/** The lines of a valid configuration (or one whose API secret alone is weak), in the checklist's order. */
async function configuredChecks(resolved: ResolvedOptions, context: Context): Promise<Check[]> {
  const { env, cwd, reading, signal, exampleToken, project } = context;
  const providers = resolved.identityProviders;
  const checks = [originCheck(resolved)];
  if (providers.length === 0) checks.push(jwksUrlCheck(undefined));
  // One at a time: the lines then come out in the configured order, and a provider's timeout is its own.
  for (const provider of providers) {
    const asked = providerChecks(resolved, provider, resolved.providers !== undefined);
    const about = provider.issuer === undefined ? '' : ` (identity provider ${JSON.stringify(provider.issuer)})`;
    const notChecked = [check('jwks-keys', 'fail', `${NOT_CHECKED}${about}`)];
    checks.push(...(await unlessAborted(asked, signal, notChecked)));
  }
  const [only] = providers;
  if (providers.length === 1 && only?.jwksUri !== undefined) checks.push(issuerCheck(only.issuers));
  const several = resolved.providers !== undefined;
  checks.push(authorizationCheck(resolved.authorization, providers, several));
  const cubeOptions = cubeOptionsOfProject(await reading, resolved.authorization, await project);
  if (cubeOptions !== undefined) checks.push(check('cube-options', cubeOptions.status, cubeOptions.message));
  const sql = sqlApiCheck(env, resolved, providers, cwd);
  if (sql !== undefined) checks.push(withSqlAuthOfCubeJs(sql, await reading, sqlApiPort(env) !== undefined));
  const optional = [
    serviceConnectionsCheck(resolved),
    sqlKeyCheck(env, resolved),
    metricsCheck(env, resolved),
    refreshWorkerCheck(env, resolved.authorization),
  ];
  checks.push(...optional.filter((line) => line !== undefined));
  if (exampleToken !== undefined)
    checks.push(
      withStandingNote(
        exampleTokenCheck(exampleToken, resolved.authorization, providers, several),
        exampleToken,
        resolved,
      ),
    );
  return checks;
}

/**
 * Checks the environment a deployment would run with (`given`, with the `.env` of `cwd` under it as Cube's server
 * loads it), whether Cube resolves from `cwd` and starts on this Node, and what `cube.js` there exports (read in a
 * child process, as Cube loads it, with that environment); with `exampleToken`, whether a token like it passes the
 * hook's authorization step. Never throws for a bad configuration: that is a `fail` check, and the checks that need
 * a valid configuration are left out (docs/cli-output.md#doctors-checks).
 */
export async function diagnose(
  given: NodeJS.ProcessEnv,
  cwd: string,
  {
    exampleToken,
    cubeJsTimeoutMs = CUBE_JS_TIMEOUT_MS,
    signal,
    nodeVersion = process.versions.node,
  }: DiagnoseOptions = {},
): Promise<Diagnosis> {
  const { env, dotenv: findings } = deploymentOf({ env: given, cwd });
  // Loads while the identity providers are asked.
  const reading = readCubeJs({ cwd, env, timeoutMs: cubeJsTimeoutMs, ...(signal === undefined ? {} : { signal }) });
  const checks: Check[] = findings.map(({ status, message }) => check('dotenv', status, message));
  const { check: configuration, options, resolved } = configurationCheck(env);
  checks.push(configuration);
  const secretsDir = secretsDirReport(options);
  if (secretsDir !== undefined) checks.push(check('secrets-dir', secretsDir.status, secretsDir.message));
  // Read apart from the other variables, so that a configuration failure still shows them; an api-secrets file
  // replaces them.
  const keySet = (resolved?.identityProviders ?? []).length > 0;
  if (!apiSecretsFromDirectory(options))
    checks.push(...secretChecks(apiSecretsInForce(env), { weakAllowed: options?.allowWeakSecret === true, keySet }));
  const project = reading.then((read) => modelOfProject(read, { cwd, env }));
  if (resolved)
    checks.push(...(await configuredChecks(resolved, { env, cwd, reading, signal, exampleToken, project })));
  const node = nodeOfProject(cwd, nodeVersion);
  checks.push(gatewayCheck(cwd), check('node', node.status, node.message), ...cubeJsChecks(await reading));
  const start = cubeStartCheck(env, await reading, { apiSecretsInDirectory: apiSecretsFromDirectory(options) });
  if (start !== undefined) checks.push(start);
  const policies = accessPolicyCheck(await project);
  if (policies !== undefined) checks.push(policies);
  return { ok: checks.every((c) => c.status !== 'fail'), checks };
}
