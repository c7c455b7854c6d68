/**
 * The `cube-options` line: whether `cube.js` gives Cube the options the data model needs to read the hook's tenant and
 * groups, judged with the model's own files (docs/cli-output.md#how-doctor-reads-the-data-model).
 */
import type { Authorization } from '../config/authorization';
import { findGateway, gatewayVersion } from '../host-cube';
import { exportOf, type CubeJsReading, type Finding } from './cube-js';
import { readDataModel, type DataModelReading } from './data-model';

/** What {@link cubeOptionsFinding} needs to know of the deployment. */
export interface CubeOptionsContext {
  /** Groups or a tenant are configured (authorization is on). */
  readonly authorization: boolean;
  /** A tenant claim is configured for some path. */
  readonly tenant: boolean;
  /** The version of Cube found from the project (its gateway's), when found. */
  readonly cubeVersion: string | undefined;
  /** The data model, as read. */
  readonly model: DataModelReading;
}

/** How to check what the model needs when doctor could not read it. */
const CHECK_IT = 'check the model\'s files, or what a token sees with "cube-dual-auth access"';

/** Up to three files by name, the rest counted. */
export const listed = (files: readonly string[]): string =>
  files.length > 3 ? `${files.slice(0, 3).join(', ')} and ${files.length - 3} more` : files.join(', ');

/** `contextToGroups` on Cube 1.x: a problem only where access policies name groups. */
function groupsJudgement(has: boolean, { cubeVersion, model }: CubeOptionsContext): { problem?: string; ok?: string } {
  if (has) return { ok: `exports contextToGroups (Cube ${cubeVersion})` };
  const matching = `Cube ${cubeVersion} matches access policies by the groups contextToGroups returns`;
  const unmatched = `${matching}, so a policy by group matches no request (its queries answer no rows)`;
  if (model.kind === 'unread')
    return {
      problem: `cube.js exports no contextToGroups: this depends on the data model, which doctor did not read (${model.why}): if its access policies name groups, ${unmatched}; ${CHECK_IT}`,
    };
  const files = listed(model.groupPolicies);
  if (model.groupPolicies.length > 0)
    return {
      problem: `cube.js exports no contextToGroups, and ${files} has access policies by group: ${unmatched}`,
    };
  return { ok: `exports no contextToGroups, which no access policy of ${model.dir} needs` };
}

/** `contextToAppId` with a tenant: a problem only where the model reads COMPILE_CONTEXT. */
function appIdJudgement(has: boolean, { model }: CubeOptionsContext): { problem?: string; ok?: string } {
  if (has) return { ok: 'exports contextToAppId (a tenant claim is configured)' };
  const safe = 'one compiled model serves every tenant, which is safe';
  const why = 'as Cube evaluates securityContext (in SQL and access policies) per query';
  const perQuery = `exports no contextToAppId: ${safe}, ${why}`;
  if (model.kind === 'unread')
    return {
      ok: `${perQuery}; a model that reads COMPILE_CONTEXT would need contextToAppId (doctor did not read the model: ${model.why}; ${CHECK_IT})`,
    };
  if (model.compileContext.length > 0)
    return {
      problem: `cube.js exports no contextToAppId, and ${listed(model.compileContext)} reads COMPILE_CONTEXT, which Cube evaluates once per app id: without contextToAppId it refuses to compile the model; export cube-dual-auth's contextToAppId`,
    };
  return { ok: `${perQuery}; no file of ${model.dir} reads COMPILE_CONTEXT` };
}

/**
 * A warning that rests on a model doctor could not read says so. Undefined when `cube.js` was not read or
 * authorization is off.
 */
export function cubeOptionsFinding(reading: CubeJsReading, context: CubeOptionsContext): Finding | undefined {
  if (reading.kind !== 'loaded' || !context.authorization) return undefined;
  const has = (name: string): boolean => exportOf(reading, name)?.function === true;
  const major = context.cubeVersion === undefined ? undefined : Number(context.cubeVersion.split('.')[0]);
  const judgements = [
    ...(major !== undefined && major >= 1 ? [groupsJudgement(has('contextToGroups'), context)] : []),
    ...(context.tenant ? [appIdJudgement(has('contextToAppId'), context)] : []),
  ];
  const problems = judgements.flatMap(({ problem }) => (problem === undefined ? [] : [problem]));
  if (problems.length > 0) return { status: 'warn', message: problems.join('; ') };
  const present = judgements.flatMap(({ ok }) => (ok === undefined ? [] : [ok]));
  if (present.length === 0) return undefined;
  return { status: 'ok', message: `cube.js ${present.join('; ')}` };
}

/** The Cube version found from `cwd` (its gateway's) and the data model read where that Cube reads it with `env`. */
export interface ProjectModel {
  readonly cubeVersion: string | undefined;
  readonly model: DataModelReading;
}

/** Reads {@link ProjectModel} once, for `cube-options` and `access-policies`. */
export function modelOfProject(
  reading: CubeJsReading,
  { cwd, env }: { readonly cwd: string; readonly env: NodeJS.ProcessEnv },
): ProjectModel {
  const found = findGateway(cwd);
  const cubeVersion = found === undefined ? undefined : gatewayVersion(found.file);
  const exported = reading.kind === 'loaded' ? reading.exports.map(({ name }) => name) : [];
  return { cubeVersion, model: readDataModel(cwd, env, cubeVersion, exported) };
}

/** {@link cubeOptionsFinding} for the Cube project whose model and version `project` holds. */
export function cubeOptionsOfProject(
  reading: CubeJsReading,
  authorization: Authorization | undefined,
  project: ProjectModel,
): Finding | undefined {
  if (reading.kind !== 'loaded' || authorization === undefined) return undefined;
  return cubeOptionsFinding(reading, { authorization: true, tenant: authorization.tenant, ...project });
}
