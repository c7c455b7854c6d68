/**
 * vitest's global setup: builds dist/ when the sources changed since it was built (scripts/build.mjs --if-stale), before
 * a run and before each rerun in watch mode, since the CLI's tests spawn the built bin (docs/development.md#tests).
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';

const root = join(__dirname, '..', '..');

function buildIfStale(): void {
  execFileSync(process.execPath, [join(root, 'scripts/build.mjs'), '--if-stale'], { cwd: root, stdio: 'inherit' });
}

export default function setup(project: TestProject): void {
  buildIfStale();
  project.onTestsRerun(buildIfStale);
}
