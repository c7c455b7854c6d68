// The README's first screen, followed on a Cube line: its two lines of cube.js, taken from the README itself, over
// examples/cube-project's model (which keeps each caller to the tenant the hook writes into the security context),
// configured by the README's environment for a Keycloak-style identity provider (test/support/readme-set-up.ts).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { exampleProject, repoRoot } from '../../scripts/ensure-cube.mjs';
import { cubeLine } from '../../scripts/lib/cube-lines.mjs';
import { readmeSetUp } from '../support/readme-set-up';
import { rowsOf } from './real-cube-scenarios';

/** The first `js` block of the README: the two lines of its first screen. */
export function firstScreenCubeJs(): string {
  const block = /^```js\n([\s\S]*?)^```/m.exec(readFileSync(join(repoRoot, 'README.md'), 'utf8'))?.[1];
  if (block === undefined) throw new Error('The README has no js block');
  return block;
}

const COUNT_BY_REGION = {
  measures: ['orders.count'],
  dimensions: ['orders.tenant', 'orders.region'],
  order: { 'orders.tenant': 'asc', 'orders.region': 'asc' },
};

/** Declares the first screen's scenarios against one Cube line ("0.33" or "1"), with one Cube for the file. */
export function firstScreenScenarios(lineId: string): void {
  const setUp = readmeSetUp({
    line: lineId,
    cubeJs: firstScreenCubeJs(),
    modelDir: join(exampleProject, 'model'),
    apps: { 'globex-app': { tenant_id: 'globex' } },
  });

  describe(`Cube ${cubeLine(lineId).version}: the README's first screen, its two lines of cube.js`, () => {
    it('takes the masking logger with checkAuth, in two lines', () => {
      expect(firstScreenCubeJs()).toBe(
        "const { checkAuth, logger } = require('cube-dual-auth');\nmodule.exports = { checkAuth, logger };\n",
      );
    });

    it("serves both callers their own tenant's rows", async () => {
      const globex = await setUp.load(COUNT_BY_REGION, await setUp.asIdp('globex-app'));
      expect(globex.status, globex.text).toBe(200);
      expect(rowsOf(globex.body)).toEqual([
        { 'orders.tenant': 'globex', 'orders.region': 'apac', 'orders.count': 1 },
        { 'orders.tenant': 'globex', 'orders.region': 'emea', 'orders.count': 2 },
      ]);
      const acme = await setUp.load(COUNT_BY_REGION, setUp.asService({ tenant_id: 'acme' }));
      expect(acme.status, acme.text).toBe(200);
      expect(rowsOf(acme.body)).toEqual([
        { 'orders.tenant': 'acme', 'orders.region': 'amer', 'orders.count': 2 },
        { 'orders.tenant': 'acme', 'orders.region': 'emea', 'orders.count': 2 },
      ]);
    });

    it("leaves no whole token in Cube's log after the requests of the trial", async () => {
      await setUp.expectNoWholeTokenAfterTrial(COUNT_BY_REGION, 'globex-app', { tenant_id: 'acme' });
    });
  });
}
