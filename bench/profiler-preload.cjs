// `npm run bench:e2e` loads this into the shared Cube only (NODE_OPTIONS=--require), to measure how much CPU each
// hook's own code takes under load. Nothing runs until the first SIGUSR2, which starts V8's sampling profiler; the
// next one stops it and writes the profile to BENCH_PROFILE_FILE. Never load it into a Cube you deploy.
'use strict';
const inspector = require('node:inspector');
const { writeFileSync } = require('node:fs');

const SAMPLING_INTERVAL_US = 100;
let session;

process.on('SIGUSR2', () => {
  if (session === undefined) {
    session = new inspector.Session();
    session.connect();
    session.post('Profiler.enable', () =>
      session.post('Profiler.setSamplingInterval', { interval: SAMPLING_INTERVAL_US }, () =>
        session.post('Profiler.start'),
      ),
    );
    return;
  }
  const done = session;
  session = undefined;
  done.post('Profiler.stop', (error, result) => {
    writeFileSync(process.env.BENCH_PROFILE_FILE, JSON.stringify(error ? { error: error.message } : result.profile));
    done.disconnect();
  });
});
