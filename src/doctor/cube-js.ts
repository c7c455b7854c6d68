/**
 * What the project's `cube.js` really exports, read as Cube reads it: `import()` of `cube.js` in the working directory,
 * its default export (unwrapped once more when transpiled, `__esModule`). It runs in a child process with a deadline,
 * so that a `cube.js` that hangs, exits or starts servers costs `doctor` nothing but the time (docs/cli-output.md,
 * "How doctor reads cube.js").
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { ENV } from '../config/env';
import { faultMessage } from '../errors';
import { isObject, parseOutsideJson } from '../http/json';
import { MAX_ANSWER_BYTES, runContained, WRITE_ANSWER, type ChildOutcome } from './child';

/** The file Cube loads its configuration from, in the directory it runs in (Cube 0.33 and 1.x alike). */
export const CUBE_JS = 'cube.js';

/** One member of the configuration `cube.js` exports. */
export interface CubeJsExport {
  readonly name: string;
  /** Whether its value is a function (Cube calls checkAuth, logger, contextToGroups...). */
  readonly function: boolean;
  /**
   * Whether it is the very value cube-dual-auth exports under that name (`checkAuth` is the ready-made hook): undefined
   * when the package exports no such name, or cube-dual-auth does not resolve from `cube.js`.
   */
  readonly fromPackage?: boolean;
}

/** What reading `cube.js` found. */
export type CubeJsReading =
  /** There is no `cube.js` in the directory. */
  | { readonly kind: 'missing'; readonly file: string }
  /** It loaded: the members of its configuration, in their order. */
  | { readonly kind: 'loaded'; readonly file: string; readonly exports: readonly CubeJsExport[] }
  /** Loading it threw (or rejected): the error's message, tokens and secret values masked. */
  | { readonly kind: 'threw'; readonly file: string; readonly message: string }
  /** It did not finish loading within the deadline: the child was killed. */
  | { readonly kind: 'timed-out'; readonly file: string; readonly timeoutMs: number }
  /** The child ended without an answer: `cube.js` called process.exit, or Node could not start. */
  | { readonly kind: 'no-answer'; readonly file: string; readonly reason: string }
  /** The command's deadline passed first: the child was killed. */
  | { readonly kind: 'not-checked'; readonly file: string };

export interface ReadCubeJsOptions {
  /** The Cube project directory: where Cube runs and looks for `cube.js`. */
  readonly cwd: string;
  /** The environment `cube.js` reads (Cube's). */
  readonly env: NodeJS.ProcessEnv;
  /** How long loading may take before the child is killed. */
  readonly timeoutMs: number;
  /** The command's deadline: aborted, the child is killed and `cube.js` is not checked. */
  readonly signal?: AbortSignal;
}

/**
 * Loading a Cube project's `cube.js` (cube-dual-auth, Cube's packages) takes well under a second on an
 * idle machine.
 */
export const CUBE_JS_TIMEOUT_MS = 10_000;

// Runs as `node -e` in the project directory (child.ts). Answers on file descriptor 3, framed with its length, so that
// whatever cube.js prints to standard output or error is neither mistaken for the answer nor shown.
const READ = `
${WRITE_ANSWER}
const { createRequire } = require('node:module');
const { pathToFileURL } = require('node:url');
const file = process.argv[1];
const answer = (value) => answerBytes(value);
const loaded = (module) => {
  const exported = module.default;
  const config = exported && exported.__esModule ? exported.default : exported;
  let pkg;
  try { pkg = createRequire(file)('cube-dual-auth'); } catch {}
  const read = (object, name) => { try { return { value: object[name] }; } catch { return undefined; } };
  const names = config !== null && (typeof config === 'object' || typeof config === 'function')\
 ? Object.keys(config) : [];
  answer({ kind: 'loaded', exports: names.map((name) => {
    const value = read(config, name)?.value;
    const own = pkg !== undefined && Object.prototype.hasOwnProperty.call(pkg, name) ? read(pkg, name) : undefined;
    return { name, function: typeof value === 'function',\
 ...(own === undefined ? {} : { fromPackage: own.value === value }) };
  }) });
};
const threw = (error) => answer({ kind: 'threw', message: error instanceof Error ? error.message : String(error) });
import(pathToFileURL(file).href).then(loaded, threw);`;

/** Names of variables whose values are secrets: masked in a message of `cube.js`, which may quote one. */
const SECRET_NAME = /SECRET|PASS|TOKEN|CREDENTIAL|PRIVATE|_KEY/i;

/** `text` with every secret-looking variable's value (and each item of a list) replaced. */
function withoutSecrets(text: string, env: NodeJS.ProcessEnv): string {
  const values = Object.entries(env)
    .filter(([name]) => SECRET_NAME.test(name))
    .flatMap(([, value]) => (value === undefined ? [] : [value, ...value.split(',')]))
    .map((value) => value.trim())
    .filter((value) => value.length >= 4)
    .sort((a, b) => b.length - a.length);
  return values.reduce((masked, value) => masked.split(value).join('[secret]'), text);
}

/**
 * Reads what `cube.js` in `cwd` exports, in a child process given `env` (without the metrics port: the running Cube
 * holds it, and the hook would refuse to start on a port in use) and killed after `timeoutMs`. Never throws.
 */
export function readCubeJs({ cwd, env, timeoutMs, signal }: ReadCubeJsOptions): Promise<CubeJsReading> {
  const file = join(cwd, CUBE_JS);
  if (!existsSync(file)) return Promise.resolve({ kind: 'missing', file });
  const childEnv = Object.fromEntries(Object.entries(env).filter(([name]) => name !== ENV.metricsPort));
  return runContained({ script: READ, args: [file], cwd, env: childEnv, timeoutMs, signal }).then((outcome) =>
    readingOf(outcome, { file, env, timeoutMs }),
  );
}

/** What the child's outcome says of `cube.js`. */
function readingOf(
  outcome: ChildOutcome,
  { file, env, timeoutMs }: { file: string; env: NodeJS.ProcessEnv; timeoutMs: number },
): CubeJsReading {
  if (outcome.kind === 'timed-out') return { kind: 'timed-out', file, timeoutMs };
  if (outcome.kind === 'aborted') return { kind: 'not-checked', file };
  if (outcome.kind === 'too-large')
    return {
      kind: 'no-answer',
      file,
      reason: `its answer was refused: larger than ${MAX_ANSWER_BYTES} bytes (the limit)`,
    };
  if (outcome.kind === 'ended') return { kind: 'no-answer', file, reason: `${outcome.reason} before cube.js was read` };
  let answer: unknown;
  try {
    answer = parseOutsideJson(outcome.text);
  } catch (error) {
    return { kind: 'no-answer', file, reason: `its answer was refused: ${faultMessage(error)}` };
  }
  if (isObject(answer) && answer['kind'] === 'loaded' && Array.isArray(answer['exports']))
    return { kind: 'loaded', file, exports: (answer['exports'] as unknown[]).filter(isExport) };
  if (isObject(answer) && answer['kind'] === 'threw')
    return { kind: 'threw', file, message: faultMessage(withoutSecrets(String(answer['message']), env)) };
  return { kind: 'no-answer', file, reason: 'its answer is not what doctor asked for' };
}

/** A member as the child lists it: a cube.js may have written another answer in its place. */
function isExport(value: unknown): value is CubeJsExport {
  return (
    isObject(value) &&
    typeof value['name'] === 'string' &&
    typeof value['function'] === 'boolean' &&
    (value['fromPackage'] === undefined || typeof value['fromPackage'] === 'boolean')
  );
}

export type FindingStatus = 'ok' | 'warn' | 'fail';

/** A judgement of what `cube.js` exports, which `doctor` prints as one line of its checklist. */
export interface Finding {
  readonly status: FindingStatus;
  readonly message: string;
}

/** At most this many export names are listed. */
const MAX_NAMES_SHOWN = 12;

/** The member `name` of what `cube.js` exports, when it was read and has one. */
export function exportOf(reading: CubeJsReading, name: string): CubeJsExport | undefined {
  return reading.kind === 'loaded' ? reading.exports.find((member) => member.name === name) : undefined;
}

/** The exports, by name, the package's own marked: `checkAuth (cube-dual-auth's), queryRewrite`. */
function exportList(exports: readonly CubeJsExport[]): string {
  if (exports.length === 0) return 'nothing';
  const names = exports
    .slice(0, MAX_NAMES_SHOWN)
    .map(({ name, fromPackage }) => (fromPackage === true ? `${name} (cube-dual-auth's)` : name));
  const more = exports.length > MAX_NAMES_SHOWN ? ` and ${exports.length - MAX_NAMES_SHOWN} more` : '';
  return `${names.join(', ')}${more}`;
}

/** Whether `cube.js` loads as Cube loads it, and gives Cube cube-dual-auth's `checkAuth`. */
export function cubeJsFinding(reading: CubeJsReading): Finding {
  const { file } = reading;
  switch (reading.kind) {
    case 'missing':
      return {
        status: 'warn',
        message: `no ${file}: Cube loads its configuration from ${CUBE_JS} in the directory it runs in, so run doctor in the Cube project directory; what cube.js gives Cube (checkAuth, logger, contextToGroups...) is not checked`,
      };
    case 'threw':
      return { status: 'fail', message: `${file} throws while it loads, so Cube will not start: ${reading.message}` };
    case 'timed-out':
      return {
        status: 'fail',
        message: `${file} did not finish loading within ${reading.timeoutMs} ms (the process reading it was stopped): Cube would not start either; its exports are not checked`,
      };
    case 'no-answer':
      return { status: 'fail', message: `${file} could not be read: ${reading.reason}` };
    case 'not-checked':
      return {
        status: 'fail',
        message: `${file}: not checked: the deadline passed (the process reading it was stopped)`,
      };
    case 'loaded': {
      const exports = `${file} exports ${exportList(reading.exports)}`;
      const checkAuth = exportOf(reading, 'checkAuth');
      if (checkAuth?.function !== true)
        return {
          status: 'fail',
          message: `${exports}: no checkAuth function, so Cube verifies tokens with its own JWT check, not cube-dual-auth's`,
        };
      return checkAuth.fromPackage === true
        ? { status: 'ok', message: exports }
        : {
            status: 'ok',
            message: `${exports}; its checkAuth is not cube-dual-auth's ready-made one (createCheckAuth, or a wrapper): the lines above describe the hook this environment configures, not options given in code`,
          };
    }
  }
}

/** Whether Cube's log is kept free of tokens: undefined when `cube.js` was not read. */
export function loggerFinding(reading: CubeJsReading): Finding | undefined {
  if (reading.kind !== 'loaded') return undefined;
  const logger = exportOf(reading, 'logger');
  const advice = "export cube-dual-auth's logger (logger: require('cube-dual-auth').logger), which masks them";
  if (logger?.function !== true) {
    return {
      status: 'warn',
      message: `cube.js exports no logger function: Cube's default logger then writes whole tokens into its log (refused requests, queries, errors), where whoever reads the log can replay them; ${advice}`,
    };
  }
  return logger.fromPackage === true
    ? { status: 'ok', message: "cube-dual-auth's logger: tokens are masked in Cube's log" }
    : {
        status: 'warn',
        message: `cube.js exports a logger of its own, not cube-dual-auth's: doctor cannot tell whether it keeps tokens out of Cube's log; ${advice}, or have yours call it`,
      };
}

/**
 * Whether `cube.js` gives Cube's SQL API the package's login: with the SQL API on and no `checkSqlAuth`, Cube accepts
 * only its own static login, never a token, so the `sql-api` line fails; with it off (only the login configured), a
 * warning. Unread, the line cannot be ok.
 */
export function sqlAuthFinding(reading: CubeJsReading, sqlApiOn: boolean): Finding {
  if (reading.kind !== 'loaded')
    return { status: 'warn', message: 'checkSqlAuth not checked (cube.js was not read, see cube-js)' };
  const exported = exportOf(reading, 'checkSqlAuth');
  if (exported?.function !== true) {
    return {
      status: sqlApiOn ? 'fail' : 'warn',
      message:
        "cube.js exports no checkSqlAuth function: Cube's SQL API then takes only its own static login (CUBEJS_SQL_USER, CUBEJS_SQL_PASSWORD), never a token; export cube-dual-auth's checkSqlAuth",
    };
  }
  return {
    status: 'ok',
    message:
      exported.fromPackage === true
        ? "checkSqlAuth in cube.js is cube-dual-auth's"
        : "checkSqlAuth in cube.js is its own, not cube-dual-auth's: what follows describes the package's",
  };
}
