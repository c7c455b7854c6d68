// A Cube project that is the example with the naive checkAuth of bench/naive-cube.js instead of cube-dual-auth's: the
// deployment `cube-dual-auth probe` must fail (a bad token makes that hook throw a plain Error, which Cube answers
// with a 500 and a stack trace). It lives in .cache/, with links to a Cube line's installed project for the rest.
import { copyFileSync, mkdirSync, rmSync, symlinkSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '../..');

/**
 * Makes (again) the naive project of an installed Cube line: bench/naive-cube.js as cube.js, and links to the
 * line's model/, data/ and node_modules/, so that it runs the same Cube, model and data as the line's own project.
 * Its jsonwebtoken is whichever the line's project resolves first (on 0.33, Cube's own 8.5.1): both throw the same
 * plain errors on a bad token.
 * @param {import('./cube-lines.mjs').CubeLine} line
 * @returns {string} the project directory, for startCube()
 */
export function prepareNaiveProject(line) {
  const dir = join(repoRoot, `.cache/cube-dual-auth/naive-cube-${line.id}`);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  copyFileSync(join(repoRoot, 'bench/naive-cube.js'), join(dir, 'cube.js'));
  // What the naive cube.js takes all but checkAuth from: the line's own configuration.
  copyFileSync(join(line.projectDir, 'cube.js'), join(dir, 'example-cube.js'));
  for (const entry of ['model', 'data', 'node_modules'])
    symlinkSync(join(line.projectDir, entry), join(dir, entry), 'dir');
  return dir;
}
