import { defineConfig } from 'vitest/config';

// Projects: `unit` is `npm test`; `cube-0.33`, `cube-1` and `integration` are `npm run test:integration`, which .ci/run
// runs on the Node majors of docs/development.md#tests. A real-Cube suite names its Cube line in its file name, so it
// joins its line's project.
const INTEGRATION = 'test/**/*.integration.test.ts';
const CUBE_0_33 = 'test/**/*cube-0.33.integration.test.ts';
const CUBE_1 = 'test/**/*cube-1.integration.test.ts';

export default defineConfig({
  test: {
    pool: 'forks',
    globalSetup: ['test/support/build.ts'],
    testTimeout: 20_000,
    hookTimeout: 240_000,
    projects: [
      // One worker per core, where vitest keeps one core for itself: unit tests mostly wait on sockets and spawned
      // bins, so on 2 cores this halves `npm test` (docs/development.md#tests).
      {
        extends: true,
        test: { name: 'unit', include: ['test/**/*.test.ts'], exclude: [INTEGRATION], maxWorkers: '100%' },
      },
      { extends: true, test: { name: 'cube-0.33', include: [CUBE_0_33] } },
      { extends: true, test: { name: 'cube-1', include: [CUBE_1] } },
      { extends: true, test: { name: 'integration', include: [INTEGRATION], exclude: [CUBE_0_33, CUBE_1] } },
      // `npm run bench:load`: a measured report, in no test command (docs/development.md#timing-dependent-tests).
      { extends: true, test: { name: 'load', include: ['test/**/*.load.ts'] } },
    ],
  },
});
