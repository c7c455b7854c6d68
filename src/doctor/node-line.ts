/**
 * Which Node the Cube found starts on: `cubejs-server` checks the Node major first, in `@cubejs-backend/shared`'s
 * `node-check`; doctor reads that check, else falls back on each line's rule (docs/cube-lines.md#tested-with).
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

const CUBE_1: NodeRule = { least: 22, refused: [], source: 'table' };
const CUBE_033: NodeRule = { least: 14, refused: [15], source: 'table' };

/** The Node majors of each line, said the same way in every message. */
export const NODE_BY_CUBE_LINE = 'Cube 1.x needs Node 22 or later; Cube 0.33 runs on Node 14, and 16 or later';

function ruleOfLine(cubeVersion: string): NodeRule {
  return Number(cubeVersion.split('.')[0]) >= 1 ? CUBE_1 : CUBE_033;
}

/** The rule of Cube's own `node-check` beside its gateway, in its 1.x or 0.33 form; undefined when unreadable. */
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

/** A warning when the Cube found would exit at once on this Node; without a Cube, what each line needs. */
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
      message: `Node ${nodeVersion}: Cube ${cubeVersion}'s cubejs-server exits at start on Node ${major}: it needs Node ${least} or later${not} (${by}); ${NODE_BY_CUBE_LINE}`,
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
