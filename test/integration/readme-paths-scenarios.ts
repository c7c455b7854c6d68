// The README's two paths, "Cube 1.x, start to finish" and "Cube 0.33, start to finish", followed in a real Cube: the
// cube.js and the model are taken from the README itself, the environment is the README's for a Keycloak-style
// identity provider (test/support/readme-set-up.ts), the data the example's seeded orders.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../../scripts/ensure-cube.mjs';
import { cubeLine } from '../../scripts/lib/cube-lines.mjs';
import type { CubeAnswer } from '../support/real-cube';
import { readmeSetUp } from '../support/readme-set-up';
import { rowsOf } from './real-cube-scenarios';

const PATHS = { '1': 'Cube 1.x, start to finish', '0.33': 'Cube 0.33, start to finish' } as const;

/** The README's section of a path, from its heading to the next one. */
function pathOf(lineId: keyof typeof PATHS): string {
  const readme = readFileSync(join(repoRoot, 'README.md'), 'utf8');
  const start = readme.indexOf(`\n## ${PATHS[lineId]}\n`);
  if (start < 0) throw new Error(`The README has no section "${PATHS[lineId]}"`);
  return readme.slice(start, readme.indexOf('\n## ', start + 1));
}

/** The first `js` block of `text` whose first line is `// <file>`. */
function block(text: string, file: string): string {
  const found = new RegExp(`^\`\`\`js\\n(// ${file.replace('.', '\\.')}\\n[\\s\\S]*?)^\`\`\``, 'm').exec(text)?.[1];
  if (found === undefined) throw new Error(`The README's path has no ${file}`);
  return found;
}

/**
 * The path's cube.js, and a directory holding its model: the Cube 1.x path's `model/orders.js`, which the Cube 0.33
 * path takes without `access_policy`.
 */
function readmeProject(lineId: keyof typeof PATHS): { cubeJs: string; modelDir: string } {
  const model = block(pathOf('1'), 'model/orders.js');
  const policies = /^ {2}access_policy: \[[\s\S]*?^ {2}\],\n/m;
  expect(model).toMatch(policies);
  const modelDir = mkdtempSync(join(tmpdir(), 'readme-path-model-'));
  afterAll(() => rmSync(modelDir, { recursive: true, force: true }));
  writeFileSync(join(modelDir, 'orders.js'), lineId === '1' ? model : model.replace(policies, ''));
  return { cubeJs: block(pathOf(lineId), 'cube.js'), modelDir };
}

const COUNT_BY_TENANT = {
  measures: ['orders.count'],
  dimensions: ['orders.tenant'],
  order: { 'orders.tenant': 'asc' },
};

function expectRows(answer: CubeAnswer, rows: unknown[]): void {
  expect(answer.status, answer.text).toBe(200);
  expect(rowsOf(answer.body)).toEqual(rows);
}

/** Declares the path's scenarios against its Cube line, with one Cube for the file. */
export function readmePathScenarios(lineId: keyof typeof PATHS): void {
  const setUp = readmeSetUp({
    line: lineId,
    ...readmeProject(lineId),
    apps: {
      'globex-analyst': { tenant_id: 'globex', realm_access: { roles: ['analyst'] } },
      'acme-viewer': { tenant_id: 'acme', realm_access: { roles: ['viewer'] } },
    },
  });

  describe(`Cube ${cubeLine(lineId).version}: the README's "${PATHS[lineId]}", its cube.js and model`, () => {
    it('refuses a request without a token with a 403', async () => {
      const answer = await setUp.load(COUNT_BY_TENANT, {});
      expect(answer.status, answer.text).toBe(403);
      expect(answer.body).toEqual({ error: 'Authentication required' });
    });

    it("serves the service and the identity provider's analyst each its own tenant's rows", async () => {
      const claims = lineId === '1' ? { tenant_id: 'acme', roles: ['analyst'] } : { tenant_id: 'acme' };
      expectRows(await setUp.load(COUNT_BY_TENANT, setUp.asService(claims)), [
        { 'orders.tenant': 'acme', 'orders.count': 4 },
      ]);
      expectRows(await setUp.load(COUNT_BY_TENANT, await setUp.asIdp('globex-analyst')), [
        { 'orders.tenant': 'globex', 'orders.count': 3 },
      ]);
    });

    if (lineId === '1')
      it('denies a group that no policy of the model names: no rows', async () => {
        expectRows(await setUp.load(COUNT_BY_TENANT, await setUp.asIdp('acme-viewer')), []);
      });

    it("leaves no whole token in Cube's log after the requests of the trial", async () => {
      await setUp.expectNoWholeTokenAfterTrial(COUNT_BY_TENANT, 'globex-analyst', { tenant_id: 'acme' });
    });
  });
}
