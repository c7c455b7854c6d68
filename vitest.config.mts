import { defineConfig } from 'vitest/config';

// Projects: `unit` and `unit-own-process` are `npm test`; `cube-0.33`, `cube-1` and `integration` are
// `npm run test:integration`, which .ci/run runs on the Node majors of docs/development.md#tests. A real-Cube suite
// names its Cube line in its file name, so it joins its line's project.
const INTEGRATION = 'test/**/*.integration.test.ts';
const CUBE_0_33 = 'test/**/*cube-0.33.integration.test.ts';
const CUBE_1 = 'test/**/*cube-1.integration.test.ts';
/** Unit tests that count the metrics of the whole process (src/metrics/index.ts), or set OpenTelemetry's global. */
const OWN_PROCESS = ['test/metrics/**/*.test.ts', 'test/config/secret-state.test.ts', 'test/config/reload.test.ts'];

export default defineConfig({
  test: {
    pool: 'forks',
    globalSetup: ['test/support/build.ts'],
    // What bounds a run (docs/development.md#deadlines): a test 20 s, a hook 240 s (a `beforeAll` may install a Cube
    // line, about 4 minutes under load), vitest's close 10 s. No vitest timeout covers a file that never finishes
    // loading: `npm test` and `npm run test:integration` run under scripts/deadline.mjs, which names the files this
    // reporter keeps when the run passes its deadline.
    testTimeout: 20_000,
    hookTimeout: 240_000,
    teardownTimeout: 10_000,
    reporters: ['default', './scripts/lib/running-files-reporter.mjs'],
    projects: [
      // One worker per core, where vitest keeps one core for itself: unit tests mostly wait on sockets and spawned
      // bins, so on 2 cores this halves `npm test`. A worker runs file after file without loading the modules again,
      // a third of the CPU; files whose asserts read the process's one set of metrics get a process each
      // (docs/development.md#tests).
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['test/**/*.test.ts'],
          exclude: [INTEGRATION, ...OWN_PROCESS],
          maxWorkers: '100%',
          isolate: false,
        },
      },
      { extends: true, test: { name: 'unit-own-process', include: OWN_PROCESS, maxWorkers: '100%' } },
      { extends: true, test: { name: 'cube-0.33', include: [CUBE_0_33] } },
      { extends: true, test: { name: 'cube-1', include: [CUBE_1] } },
      { extends: true, test: { name: 'integration', include: [INTEGRATION], exclude: [CUBE_0_33, CUBE_1] } },
      // `npm run bench:load`: a measured report, in no test command (docs/development.md#timing-dependent-tests).
      { extends: true, test: { name: 'load', include: ['test/**/*.load.ts'] } },
    ],
  },
});
