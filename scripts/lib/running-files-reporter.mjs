// A vitest reporter that keeps the test files a run has started and not finished in a file, for scripts/deadline.mjs
// to name when a run passes its deadline (docs/development.md#deadlines). It writes only under a deadline: into each
// folder of CUBE_DUAL_AUTH_RUNNING_FILES (one per deadline around the run, nested ones included), as
// `<vitest's pid>.json`, `{ "files": { "test/x.test.ts": <ms since 1970 when its worker took it> } }`.
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { delimiter, join, relative } from 'node:path';

export default class RunningFilesReporter {
  folders = (process.env.CUBE_DUAL_AUTH_RUNNING_FILES ?? '').split(delimiter).filter(Boolean);
  running = new Map();
  root = process.cwd();

  onInit(vitest) {
    this.root = vitest.config.root;
  }

  // Queued is when a worker takes the file, before it imports it: a file that never finishes importing is named too.
  onTestModuleQueued(testModule) {
    this.running.set(relative(this.root, testModule.moduleId), Date.now());
    this.write();
  }

  onTestModuleEnd(testModule) {
    this.running.delete(relative(this.root, testModule.moduleId));
    this.write();
  }

  onTestRunEnd() {
    this.running.clear();
    this.write();
  }

  write() {
    const text = JSON.stringify({ files: Object.fromEntries(this.running) });
    for (const folder of this.folders) {
      try {
        mkdirSync(folder, { recursive: true });
        const file = join(folder, `${process.pid}.json`);
        // Renamed into place, so a deadline never reads half a file.
        writeFileSync(`${file}.tmp`, text);
        renameSync(`${file}.tmp`, file);
      } catch {
        // The deadline's folder is gone (it ended): nothing is left to tell.
      }
    }
  }
}
