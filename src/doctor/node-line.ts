/**
 * Which Node each Cube line starts on. `cubejs-server` checks the Node major before anything else, in
 * `@cubejs-backend/shared`'s `node-check` (its `node-check.ts` in cube-js/cube): Cube 1.7.43
 * exits below Node 22 (earlier 1.x releases asked for 20), Cube 0.33.65 below 14 and on 15. `doctor` reads the check
 * of the Cube it finds, and falls back on these lines (docs/cube-lines.md).
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { findGateway, gatewayVersion } from '../host-cube';
import type { Finding } from './cube-js';

/** The Node majors a Cube line's `cubejs-server` refuses, as its own check says. */
export interface NodeRule {
  /** Every major below this one is refused. */
  readonly least: number;
  /** Majors refused above `least` too (Cube 0.33 refuses 15). */
  readonly refused: readonly number[];
  /** Where the rule was read: the Cube found, or this package's table of lines. */
  readonly source: 'cube' | 'table';
}

/** Cube 1.x, as 1.7.43 checks it: Node 22 or later. */
const CUBE_1: NodeRule = { least: 22, refused: [], source: 'table' };
/** Cube 0.33, as 0.33.65 checks it: Node 14, or 16 and later. */
const CUBE_033: NodeRule = { least: 14, refused: [15], source: 'table' };

/** The Node majors of each line, said the same way in every message. */
export const NODE_BY_CUBE_LINE = 'Cube 1.x needs Node 22 or later; Cube 0.33 runs on Node 14, and 16 or later';

/** The rule of a Cube version by its line, from the table. */
function ruleOfLine(cubeVersion: string): NodeRule {
  return Number(cubeVersion.split('.')[0]) >= 1 ? CUBE_1 : CUBE_033;
}

/**
 * The rule Cube's own `node-check` holds, read from the `@cubejs-backend/shared` next to its gateway: a
 * `leastSupportedVersion = N` (1.x), or `major < N || major === M` (0.33). Undefined when it cannot be read.
 */
export function nodeRuleOfCube(gatewayFile: string): NodeRule | undefined {
  try {
    const manifest = createRequire(gatewayFile).resolve('@cubejs-backend/shared/package.json');
    const source = readFileSync(join(manifest, '..', 'dist', 'src', 'node-check.js'), 'utf8');
    const least = /leastSupportedVersion\s*=\s*(\d+)/.exec(source);
    if (least) return { least: Number(least[1]), refused: [], source: 'cube' };
    const old = /major\s*<\s*(\d+)\s*\|\|\s*major\s*===\s*(\d+)/.exec(source);
    if (old) return { least: Number(old[1]), refused: [Number(old[2])], source: 'cube' };
  } catch {
    // Not installed as an npm project has it: the table says the line's rule.
  }
  return undefined;
}

/** What {@link nodeFinding} judges. */
export interface NodeContext {
  /** The Node this runs on (`process.versions.node`). */
  readonly nodeVersion: string;
  /** The Cube found from the project, when found. */
  readonly cubeVersion: string | undefined;
  /** Its own rule, when read ({@link nodeRuleOfCube}). */
  readonly rule: NodeRule | undefined;
}

/**
 * Whether the Cube found starts on the Node this runs on: a warning when its `cubejs-server` would exit at once.
 * Without a Cube found, says which Node each line needs.
 */
export function nodeFinding({ nodeVersion, cubeVersion, rule }: NodeContext): Finding {
  const major = Number(nodeVersion.split('.')[0]);
  if (cubeVersion === undefined)
    return { status: 'ok', message: `Node ${nodeVersion}; no Cube found to judge it for: ${NODE_BY_CUBE_LINE}` };
  const { least, refused, source } = rule ?? ruleOfLine(cubeVersion);
  if (major < least || refused.includes(major)) {
    const not = refused.length > 0 ? `, not ${refused.join(', ')}` : '';
    const by = source === 'cube' ? 'by its own node-check' : "by its line's rule";
    return {
      status: 'warn',
      message:
        `Node ${nodeVersion}: Cube ${cubeVersion}'s cubejs-server exits at start on Node ${major}: it needs ` +
        `Node ${least} or later${not} (${by}); ${NODE_BY_CUBE_LINE}`,
    };
  }
  return {
    status: 'ok',
    message: `Node ${nodeVersion}: Cube ${cubeVersion} starts on it (${NODE_BY_CUBE_LINE})`,
  };
}

/** Whether the Cube found from `cwd` (as the hook finds it) starts on `nodeVersion`: doctor's `node` line. */
export function nodeOfProject(cwd: string, nodeVersion: string): Finding {
  const found = findGateway(cwd);
  return nodeFinding({
    nodeVersion,
    cubeVersion: found === undefined ? undefined : gatewayVersion(found.file),
    rule: found === undefined ? undefined : nodeRuleOfCube(found.file),
  });
}
