import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { diagnose } from '../../src/doctor';
import { nodeFinding, nodeRuleOfCube } from '../../src/doctor/node-line';
import { randomSecret } from '../support/claims';
import { gatewayIn } from '../support/cube';

const made: string[] = [];
afterAll(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

/** A project with a gateway of `version`, and Cube's shared package holding `nodeCheck` as its dist/src/node-check.js. */
function project(version: string, nodeCheck?: string): { dir: string; gateway: string } {
  const dir = mkdtempSync(join(tmpdir(), 'node-line-'));
  made.push(dir);
  const gateway = gatewayIn(dir, 'module.exports = {};\n', { name: '@cubejs-backend/api-gateway', version });
  if (nodeCheck !== undefined) {
    const shared = join(dir, 'node_modules', '@cubejs-backend', 'shared');
    mkdirSync(join(shared, 'dist', 'src'), { recursive: true });
    writeFileSync(join(shared, 'package.json'), JSON.stringify({ name: '@cubejs-backend/shared', version }));
    writeFileSync(join(shared, 'dist', 'src', 'node-check.js'), nodeCheck);
  }
  return { dir, gateway };
}

// The checks as Cube 1.7.43 and 0.33.65 ship them (@cubejs-backend/shared/dist/src/node-check.js), abridged.
const CUBE_1_7_CHECK = 'const leastSupportedVersion = 22;\nif (major < leastSupportedVersion) { process.exit(1); }\n';
const CUBE_0_33_CHECK = 'if (major < 14 || major === 15) { process.exit(1); }\n';

describe('doctor: which Node the Cube found starts on', () => {
  it("reads the rule of the Cube found from its own node-check, on either line's form", () => {
    expect(nodeRuleOfCube(project('1.7.43', CUBE_1_7_CHECK).gateway)).toEqual({
      least: 22,
      refused: [],
      source: 'cube',
    });
    expect(nodeRuleOfCube(project('0.33.65', CUBE_0_33_CHECK).gateway)).toEqual({
      least: 14,
      refused: [15],
      source: 'cube',
    });
    expect(nodeRuleOfCube(project('1.7.43').gateway)).toBeUndefined();
  });

  it.each([
    ['20.19.0', '1.7.43', 'warn'],
    ['22.12.0', '1.7.43', 'ok'],
    ['24.11.0', '1.7.43', 'ok'],
    ['15.14.0', '0.33.65', 'warn'],
    ['20.19.0', '0.33.65', 'ok'],
  ])('Node %s with Cube %s: %s', (nodeVersion, cubeVersion, status) => {
    // The table of lines and Cube's own check agree.
    const check = cubeVersion.startsWith('1.') ? CUBE_1_7_CHECK : CUBE_0_33_CHECK;
    const rule = nodeRuleOfCube(project(cubeVersion, check).gateway);
    expect(nodeFinding({ nodeVersion, cubeVersion, rule }).status).toBe(status);
    expect(nodeFinding({ nodeVersion, cubeVersion, rule: undefined }).status).toBe(status);
  });

  it('says which Node majors each line needs, and why it warns', () => {
    expect(nodeFinding({ nodeVersion: '20.19.0', cubeVersion: '1.7.43', rule: undefined })).toEqual({
      status: 'warn',
      message:
        "Node 20.19.0: Cube 1.7.43's cubejs-server exits at start on Node 20: it needs Node 22 or later (by its line's rule); Cube 1.x needs Node 22 or later; Cube 0.33 runs on Node 14, and 16 or later",
    });
    expect(nodeFinding({ nodeVersion: '20.19.0', cubeVersion: undefined, rule: undefined })).toEqual({
      status: 'ok',
      message:
        'Node 20.19.0; no Cube found to judge it for: Cube 1.x needs Node 22 or later; Cube 0.33 runs on Node 14, and 16 or later',
    });
  });

  it('is a line of diagnose, after cube-gateway, judged by the Cube found', async () => {
    const { dir } = project('1.7.43', CUBE_1_7_CHECK);
    const env = { CUBEJS_API_SECRET: randomSecret(32) };
    const ids = async (nodeVersion: string) =>
      (await diagnose(env, dir, { nodeVersion })).checks.filter(({ id }) => ['cube-gateway', 'node'].includes(id));
    expect((await ids('20.19.0')).map(({ id, status }) => `${id} ${status}`)).toEqual(['cube-gateway ok', 'node warn']);
    const [, ok] = await ids('22.12.0');
    expect(ok).toMatchObject({
      status: 'ok',
      message: expect.stringMatching(/^Node 22\.12\.0: Cube 1\.7\.43 starts on it/),
    });
  });
});
