/**
 * What the data model asks of `cube.js`, read from its files as text (never run): whether it reads `COMPILE_CONTEXT`,
 * which Cube evaluates once per app id (and refuses without `contextToAppId`), and which files hold access policies by
 * group, matched on Cube 1.x through `contextToGroups`, or by `role`, which Cube 1.7 no longer compiles.
 * `securityContext` in SQL and access policies is compiled into
 * functions of each query's context, so it needs neither (docs/cli-output.md, "How doctor reads the data model").
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { readEnv } from '../config/env';

/** Model files are read up to this many, and this size each: a model is a few hundred small files at most. */
const MAX_FILES = 2000;
const MAX_FILE_BYTES = 1024 * 1024;

/** Cube reads models from these (JavaScript, YAML, Jinja templates, Python globals). */
const MODEL_FILE = /\.(js|cjs|mjs|ts|ya?ml|jinja|py)$/;

const COMPILE_CONTEXT = /\bCOMPILE_CONTEXT\b/;
const ACCESS_POLICY = /\baccess_?policy\b|\baccessPolicy\b/;
const GROUP_KEY = /\bgroups?\s*:/;
/** A policy keyed by `role` (quoted or not, a YAML list item or an object member), after the policy keyword. */
const ROLE_KEY = /(?:^|[\s{,[-])["'`]?role["'`]?\s*:/m;

/** What doctor found of the data model. */
export type DataModelReading =
  /** Read: its directory, how many files, those that read COMPILE_CONTEXT, those with access policies by group. */
  | {
      readonly kind: 'read';
      readonly dir: string;
      readonly files: number;
      readonly compileContext: readonly string[];
      readonly groupPolicies: readonly string[];
      /** Files with an access policy keyed by `role:`, which Cube 1.7 removed (docs/authorization.md). */
      readonly rolePolicies: readonly string[];
    }
  /** Not read, and why (no such directory, or cube.js says where the model comes from). */
  | { readonly kind: 'unread'; readonly why: string };

/** Options of `cube.js` that take the model from elsewhere than the model directory. */
const MODEL_ELSEWHERE = ['schemaPath', 'repositoryFactory'];

/** The directory Cube reads the model from: `CUBEJS_SCHEMA_PATH`, else `model` on Cube 1.x and `schema` on 0.33. */
function modelDirectory(cwd: string, env: NodeJS.ProcessEnv, cubeVersion: string | undefined): string {
  const given = readEnv(env, 'CUBEJS_SCHEMA_PATH');
  if (given !== undefined) return join(cwd, given);
  const major = cubeVersion === undefined ? undefined : Number(cubeVersion.split('.')[0]);
  if (major === undefined) {
    const model = join(cwd, 'model');
    return isDirectory(model) ? model : join(cwd, 'schema');
  }
  return join(cwd, major >= 1 ? 'model' : 'schema');
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** The model files under `dir`, depth first, `node_modules` and dot directories left out. */
function modelFiles(dir: string, found: string[] = []): string[] {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (found.length >= MAX_FILES) break;
    const path = join(dir, entry.name);
    if (entry.isDirectory() && entry.name !== 'node_modules' && !entry.name.startsWith('.')) modelFiles(path, found);
    else if (entry.isFile() && MODEL_FILE.test(entry.name)) found.push(path);
  }
  return found;
}

/**
 * Reads the data model of the Cube project in `cwd` as text, where Cube would read it from; `exported` are the names
 * `cube.js` exports. Never throws.
 */
export function readDataModel(
  cwd: string,
  env: NodeJS.ProcessEnv,
  cubeVersion: string | undefined,
  exported: readonly string[],
): DataModelReading {
  const elsewhere = MODEL_ELSEWHERE.find((name) => exported.includes(name));
  if (elsewhere !== undefined)
    return { kind: 'unread', why: `cube.js sets ${elsewhere}, which doctor does not follow` };
  const dir = modelDirectory(cwd, env, cubeVersion);
  if (!isDirectory(dir)) return { kind: 'unread', why: `there is no model directory ${dir}` };
  try {
    const files = modelFiles(dir);
    const compileContext: string[] = [];
    const groupPolicies: string[] = [];
    const rolePolicies: string[] = [];
    for (const file of files) {
      if (statSync(file).size > MAX_FILE_BYTES) continue;
      const text = readFileSync(file, 'utf8');
      const name = relative(cwd, file);
      if (COMPILE_CONTEXT.test(text)) compileContext.push(name);
      const policy = ACCESS_POLICY.exec(text);
      if (policy === null) continue;
      if (GROUP_KEY.test(text)) groupPolicies.push(name);
      if (ROLE_KEY.test(text.slice(policy.index))) rolePolicies.push(name);
    }
    return { kind: 'read', dir, files: files.length, compileContext, groupPolicies, rolePolicies };
  } catch (error) {
    return { kind: 'unread', why: `${dir} could not be read (${(error as NodeJS.ErrnoException).code ?? 'error'})` };
  }
}
